/* parse.c - the value parsers of the configuration and the API: sizes,
 * durations, integers and booleans, each in one place so a limit written
 * in a variable and one written in a request mean the same thing.
 */
#include <config.h>

#include "common/config.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

int
rc_parse_u64 (const char *s, uint64_t *out)
{
  uint64_t v = 0;
  if (s == NULL || *s == '\0')
    return -1;
  for (; *s; s++)
    {
      unsigned d;
      if (*s < '0' || *s > '9')
        return -1;
      d = (unsigned)(*s - '0');
      if (v > (UINT64_MAX - d) / 10)
        return -1;
      v = v * 10 + d;
    }
  *out = v;
  return 0;
}

/* Parses "<digits>[.<digits>]" followed by a unit from `units` (longest
 * suffix first); multiplies by the unit's factor. */
struct unit
{
  const char *suffix;
  uint64_t factor;
};

static int
parse_with_units (const char *s, const struct unit *units, size_t n_units, bool unit_required,
                  bool any_case, uint64_t *out)
{
  uint64_t whole = 0, frac = 0, frac_div = 1, factor = 1;
  const char *p = s;
  size_t i, digits = 0;
  if (s == NULL)
    return -1;
  while (*p >= '0' && *p <= '9')
    {
      if (whole > (UINT64_MAX - 9) / 10)
        return -1;
      whole = whole * 10 + (uint64_t)(*p - '0');
      p++;
      digits++;
    }
  if (*p == '.')
    {
      p++;
      while (*p >= '0' && *p <= '9')
        {
          if (frac_div < 1000000000ULL)
            {
              frac = frac * 10 + (uint64_t)(*p - '0');
              frac_div *= 10;
            }
          p++;
          digits++;
        }
    }
  if (digits == 0)
    return -1;
  if (*p == '\0')
    {
      if (unit_required)
        return -1;
    }
  else
    {
      for (i = 0; i < n_units; i++)
        if ((any_case ? strcasecmp (p, units[i].suffix) : strcmp (p, units[i].suffix)) == 0)
          break;
      if (i == n_units)
        return -1;
      factor = units[i].factor;
    }
  if (whole != 0 && factor > UINT64_MAX / whole)
    return -1;
  *out = whole * factor + (frac * factor) / frac_div;
  return 0;
}

int
rc_parse_duration_ms (const char *s, uint64_t *out_ms)
{
  /* As documented (docs/openapi.yaml): lower-case units only. */
  static const struct unit units[] = {
    { "ms", 1 },
    { "s", 1000 },
    { "m", 60000 },
    { "h", 3600000 },
  };
  uint64_t v;
  if (parse_with_units (s, units, sizeof units / sizeof units[0], true, false, &v) < 0 || v == 0)
    return -1;
  *out_ms = v;
  return 0;
}

int
rc_parse_size (const char *s, uint64_t *out_bytes)
{
  static const struct unit units[] = {
    { "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
    { "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
    { "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
    { "b", 1 },
  };
  return parse_with_units (s, units, sizeof units / sizeof units[0], false, true, out_bytes);
}

int
rc_parse_bool (const char *s, bool *out)
{
  static const char *const yes[] = { "1", "true", "yes", "on" };
  static const char *const no[] = { "0", "false", "no", "off" };
  size_t i;
  if (s == NULL)
    return -1;
  for (i = 0; i < 4; i++)
    {
      if (strcasecmp (s, yes[i]) == 0)
        {
          *out = true;
          return 0;
        }
      if (strcasecmp (s, no[i]) == 0)
        {
          *out = false;
          return 0;
        }
    }
  return -1;
}
