/* cidr.c - address allow-lists (RUN_METRICS_ALLOW): "127.0.0.0/8,::1".
 *
 * Every network is kept in the 16-byte IPv6 form, IPv4 as the mapped
 * ::ffff:a.b.c.d, so one comparison serves both families and an IPv4
 * client that reaches nginx over a dual-stack socket (::ffff:10.0.0.5)
 * matches the IPv4 network an operator wrote.
 */
#include <config.h>

#include "common/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text to the 16-byte form; *v4 says it was IPv4 (its prefix counts from
 * bit 96). */
static int
parse_addr (const char *text, unsigned char out[16], bool *v4)
{
  struct in_addr a4;
  if (inet_pton (AF_INET, text, &a4) == 1)
    {
      memset (out, 0, 10);
      out[10] = out[11] = 0xff;
      memcpy (out + 12, &a4, 4);
      *v4 = true;
      return 0;
    }
  *v4 = false;
  return inet_pton (AF_INET6, text, out) == 1 ? 0 : -1;
}

/* One "addr" or "addr/prefix". */
static int
parse_one (const char *s, size_t len, struct rc_cidr *c)
{
  char buf[64], *slash;
  bool v4;
  unsigned long prefix;
  char *end;

  if (len == 0 || len >= sizeof buf)
    return -1;
  memcpy (buf, s, len);
  buf[len] = '\0';
  slash = strchr (buf, '/');
  if (slash)
    *slash = '\0';
  if (parse_addr (buf, c->addr, &v4) < 0)
    return -1;
  if (slash == NULL)
    prefix = v4 ? 32 : 128;
  else
    {
      errno = 0;
      prefix = strtoul (slash + 1, &end, 10);
      if (slash[1] == '\0' || *end != '\0' || errno != 0 || prefix > (v4 ? 32u : 128u))
        return -1;
    }
  c->prefix = (unsigned)prefix + (v4 ? 96 : 0);
  /* The host bits are cleared: 10.1.2.3/8 means 10.0.0.0/8. */
  for (unsigned bit = c->prefix; bit < 128; bit++)
    c->addr[bit / 8] &= (unsigned char)~(0x80u >> (bit % 8));
  return 0;
}

int
rc_cidr_parse_list (const char *name, const char *text, struct rc_cidr **out, size_t *n_out,
                    rc_err_t *err)
{
  struct rc_cidr *list = NULL;
  size_t n = 0;
  const char *p = text;

  while (*p)
    {
      size_t len;
      struct rc_cidr *grown;
      while (*p == ' ' || *p == ',')
        p++;
      len = strcspn (p, ", ");
      if (len == 0)
        break;
      grown = realloc (list, (n + 1) * sizeof *list);
      if (grown == NULL)
        {
          free (list);
          return rc_error_set (err, ENOMEM, "%s", name);
        }
      list = grown;
      if (parse_one (p, len, &list[n]) < 0)
        {
          free (list);
          return rc_error_set (err, 0,
                               "%s: '%.*s' is not an address or network such as 10.0.0.0/8 "
                               "or fd00::/8",
                               name, (int)len, p);
        }
      n++;
      p += len;
    }
  *out = list;
  *n_out = n;
  return 0;
}

bool
rc_cidr_match (const struct rc_cidr *list, size_t n, const char *addr)
{
  unsigned char a[16];
  bool v4;
  if (addr == NULL || parse_addr (addr, a, &v4) < 0)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned full = list[i].prefix / 8, rest = list[i].prefix % 8;
      if (memcmp (a, list[i].addr, full) != 0)
        continue;
      if (rest && ((a[full] ^ list[i].addr[full]) & (unsigned char)(0xff00u >> rest)) != 0)
        continue;
      return true;
    }
  return false;
}
