/* limits.c - rc_limits_resolve: manifest, operator, request, ceilings.
 * The layers are described in limits.h.
 */
#include <config.h>

#include "common/limits.h"

#include <sched.h>
#include <stddef.h>
#include <string.h>

const struct rc_limit_field rc_limit_fields[] = {
  { "wallTimeMs", "RUN_MAX_WALL_MS", offsetof (struct rc_limits, wall_ms), 1 },
  { "idleMs", "RUN_MAX_IDLE_MS", offsetof (struct rc_limits, idle_ms), 1 },
  { "cpuMs", "RUN_MAX_CPU_MS", offsetof (struct rc_limits, cpu_ms), 1 },
  { "memoryMb", "RUN_MAX_MEMORY_MB", offsetof (struct rc_limits, memory_bytes), 1ULL << 20 },
  { "pids", "RUN_MAX_PIDS", offsetof (struct rc_limits, pids), 1 },
  { "outputKb", "RUN_MAX_OUTPUT_KB", offsetof (struct rc_limits, output_bytes), 1024 },
};
const size_t rc_n_limit_fields = sizeof rc_limit_fields / sizeof rc_limit_fields[0];

static uint64_t *
field_of (struct rc_limits *l, const struct rc_limit_field *f)
{
  return (uint64_t *)((char *)l + f->off);
}

static uint64_t
field_value (const struct rc_limits *l, const struct rc_limit_field *f)
{
  return *(const uint64_t *)((const char *)l + f->off);
}

uint64_t
rc_limits_lang_memory (const struct rc_config *cfg, const struct rc_lang *lang)
{
  const struct rc_lang_override *o = lang ? rc_config_lang_override (cfg, lang->slug) : NULL;
  uint64_t mem = lang ? lang->default_limits.memory_bytes : 0;
  if (cfg->sandbox_mem_max)
    mem = cfg->sandbox_mem_max;
  if (o && o->memory_bytes)
    mem = o->memory_bytes;
  return mem;
}

static uint64_t
lang_tmp (const struct rc_config *cfg, const struct rc_lang *lang)
{
  const struct rc_lang_override *o = lang ? rc_config_lang_override (cfg, lang->slug) : NULL;
  uint64_t tmp = lang ? lang->tmp_size : 0;
  if (cfg->sandbox_tmp_size)
    tmp = cfg->sandbox_tmp_size;
  if (o && o->tmp_size)
    tmp = o->tmp_size;
  return tmp;
}

uint64_t
rc_limits_rlimit_cpu_s (const struct rc_limits *l, unsigned cpus)
{
  uint64_t clock_ms = l->cpu_ms ? l->cpu_ms : l->wall_ms;
  if (clock_ms == 0)
    return 0;
  return (clock_ms + 999) / 1000 * (cpus ? cpus : 1) + 1;
}

/* The CPUs the job can run on: this process's affinity, which the job
 * inherits (one system call; sysconf's online count reads a sysfs file,
 * about 15 us of every request). */
static unsigned
usable_cpus (void)
{
  cpu_set_t set;
  int n;
  if (sched_getaffinity (0, sizeof set, &set) < 0)
    return 1;
  n = CPU_COUNT (&set);
  return n > 0 ? (unsigned)n : 1;
}

/* Layer 3 over layer 2: every field the request set. */
static void
apply_asked (struct rc_limits *l, const struct rc_limits *asked)
{
  static const size_t every[] = {
    offsetof (struct rc_limits, wall_ms),      offsetof (struct rc_limits, idle_ms),
    offsetof (struct rc_limits, cpu_ms),       offsetof (struct rc_limits, memory_bytes),
    offsetof (struct rc_limits, pids),         offsetof (struct rc_limits, output_bytes),
    offsetof (struct rc_limits, stream_bytes), offsetof (struct rc_limits, nofile),
    offsetof (struct rc_limits, fsize_bytes),
  };
  for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
    {
      uint64_t v = *(const uint64_t *)((const char *)asked + every[i]);
      if (v == RC_LIMIT_NONE)
        *(uint64_t *)((char *)l + every[i]) = 0;
      else if (v != 0)
        *(uint64_t *)((char *)l + every[i]) = v;
    }
}

/* Layer 4 for the /v1 API: an asked value above its ceiling is the
 * request's fault; a default above one is brought down to it (a compile
 * step's defaults are the service's own and stay). */
static int
apply_ceilings (const struct rc_config *cfg, struct rc_limits *l, const struct rc_limits *asked,
                const char *name, bool cap_defaults, rc_err_t *err)
{
  for (size_t i = 0; i < rc_n_limit_fields; i++)
    {
      const struct rc_limit_field *f = &rc_limit_fields[i];
      uint64_t ceiling = field_value (&cfg->limit_max, f), *v = field_of (l, f);
      if (*v <= ceiling)
        continue;
      if (field_value (asked, f) != 0)
        return rc_error_http (err, 400, "%s.%s: %llu is above this server's ceiling of %llu", name,
                              f->key, (unsigned long long)(*v / f->scale),
                              (unsigned long long)(ceiling / f->scale));
      if (cap_defaults)
        *v = ceiling;
    }
  return 0;
}

/* What every step has, whatever its origin. */
static void
finish (const struct rc_config *cfg, struct rc_limits *l, unsigned cpus)
{
  if (l->pids == 0)
    l->pids = cfg->pids_max;
  if (l->rlimit_as == 0)
    l->rlimit_as = cfg->memory_max;
  l->rlimit_cpu_s = rc_limits_rlimit_cpu_s (l, cpus);
}

int
rc_limits_resolve (const struct rc_config *cfg, const struct rc_lang *lang,
                   enum rc_limits_origin origin, const struct rc_limits *asked,
                   struct rc_job_limits *out, rc_err_t *err)
{
  struct rc_limits_ask ask = { .run = asked };
  return rc_limits_resolve_ask (cfg, lang, origin, &ask, out, err);
}

int
rc_limits_resolve_ask (const struct rc_config *cfg, const struct rc_lang *lang,
                       enum rc_limits_origin origin, const struct rc_limits_ask *ask,
                       struct rc_job_limits *out, rc_err_t *err)
{
  static const struct rc_limits nothing;
  const struct rc_session_config *sc = &cfg->sessions;
  struct rc_limits *run = &out->run, *c = &out->compile;
  const struct rc_limits *asked = ask && ask->run ? ask->run : &nothing;
  const struct rc_limits *asked_c = ask && ask->compile ? ask->compile : &nothing;
  const char *run_name = ask && ask->run_name ? ask->run_name : "limits";
  const char *compile_name = ask && ask->compile_name ? ask->compile_name : "compileLimits";
  bool v1 = origin == RC_LIMITS_EXECUTE || origin == RC_LIMITS_JUDGE;
  uint64_t lang_mem = rc_limits_lang_memory (cfg, lang);
  unsigned cpus = usable_cpus ();

  memset (out, 0, sizeof *out);
  out->tmp_bytes = lang_tmp (cfg, lang);
  switch (origin)
    {
    case RC_LIMITS_RUN:
      /* The contest contract: one clock (its timeout), the language's
       * memory, and a per-stream cap that ends the run. */
      run->wall_ms = asked->wall_ms ? asked->wall_ms : cfg->timeout_default_ms;
      if (run->wall_ms > cfg->timeout_max_ms)
        return rc_error_http (err, 400,
                              "invalid timeout: %llu ms is above the maximum this server "
                              "allows (RUN_TIMEOUT_MAX, %llu ms)",
                              (unsigned long long)run->wall_ms,
                              (unsigned long long)cfg->timeout_max_ms);
      run->memory_bytes = lang_mem;
      run->stream_bytes = cfg->output_max;
      break;
    case RC_LIMITS_SESSION:
      run->wall_ms = sc->timeout_s * 1000u;
      run->memory_bytes = sc->memory;
      run->pids = sc->pids;
      run->output_bytes = sc->max_output;
      run->nofile = sc->nofile;
      /* A file's apparent size counts, not its blocks: a sparse file
       * takes nothing of the session's tmpfs but is read back whole
       * (GET, attachments).  So no file may outgrow the session's byte
       * quota, whatever CONTAINER_ULIMIT_FSIZE says. */
      run->fsize_bytes = sc->fsize < sc->max_session_size ? sc->fsize : sc->max_session_size;
      out->tmp_bytes = sc->tmp_size;
      break;
    case RC_LIMITS_EXECUTE:
    case RC_LIMITS_JUDGE:
      if (lang)
        *run = lang->default_limits;
      run->memory_bytes = lang_mem;
      apply_asked (run, asked);
      if (apply_ceilings (cfg, run, asked, run_name, true, err) < 0)
        return -1;
      if (origin == RC_LIMITS_JUDGE)
        {
          /* A judged program's output is compared whole: past outputKb it
           * is not cut but ended (output_limit), each stream on its own. */
          run->stream_bytes = run->output_bytes;
          run->output_bytes = 0;
        }
      break;
    case RC_LIMITS_COMMAND:
    default:
      if (lang)
        *run = lang->default_limits;
      run->memory_bytes = lang_mem;
      run->stream_bytes = cfg->output_max;
      apply_asked (run, asked);
      if (run->wall_ms == 0)
        run->wall_ms = cfg->timeout_default_ms;
      break;
    }

  c->wall_ms = RC_COMPILE_WALL_MS;
  c->cpu_ms = RC_COMPILE_CPU_MS;
  c->memory_bytes = lang_mem > run->memory_bytes ? lang_mem : run->memory_bytes;
  c->output_bytes = RC_COMPILE_OUTPUT_BYTES;
  c->nofile = run->nofile;
  c->fsize_bytes = run->fsize_bytes;
  if (v1)
    {
      apply_asked (c, asked_c);
      if (apply_ceilings (cfg, c, asked_c, compile_name, false, err) < 0)
        return -1;
    }
  finish (cfg, run, cpus);
  finish (cfg, c, cpus);
  return 0;
}
