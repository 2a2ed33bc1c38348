/* config_front.c - the front's variables: the wait queue, the worker pool
 * and its memory, who may read /metrics, the per-client share of the
 * sessions.  Read by rc_config_load after the service's and the sessions'
 * own (their defaults derive from RUN_CONCURRENCY and MAX_SESSIONS).
 */
#include <config.h>

#include "common/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bounds of the pool: the queue ring of the slot table holds twice
 * RC_QUEUE_MAX_LIMIT tickets (sandbox/slot/slot_table.c). */
#define QUEUE_MAX_LIMIT 4096
#define WORKERS_MAX_LIMIT 8192

/* RUN_QUEUE_ROUTES: "run,v1,sessions" in any order, or "none". */
static int
load_queue_routes (rc_getenv_fn get, void *ud, unsigned *routes, rc_err_t *err)
{
  static const struct
  {
    const char *name;
    enum rc_route_family family;
  } names[]
      = { { "run", RC_FAMILY_RUN }, { "v1", RC_FAMILY_V1 }, { "sessions", RC_FAMILY_SESSIONS } };
  const char *v = get ("RUN_QUEUE_ROUTES", ud), *p;
  unsigned bits = 0;

  if (v == NULL || *v == '\0')
    return 0;
  if (strcasecmp (v, "none") == 0)
    {
      *routes = 0;
      return 0;
    }
  for (p = v; *p;)
    {
      size_t len, i;
      while (*p == ' ' || *p == ',')
        p++;
      len = strcspn (p, ", ");
      if (len == 0)
        break;
      for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen (names[i].name) == len && strncasecmp (p, names[i].name, len) == 0)
          break;
      if (i == sizeof names / sizeof names[0])
        return rc_error_set (err, 0,
                             "RUN_QUEUE_ROUTES: '%.*s' is not one of run, v1, sessions (or none)",
                             (int)len, p);
      bits |= RC_FAMILY_BIT (names[i].family);
      p += len;
    }
  *routes = bits;
  return 0;
}

int
rc_config_load_front (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err)
{
  struct rc_session_config *sc = &cfg->sessions;
  uint64_t n, floor;
  const char *v;

  n = 4ULL * cfg->concurrency < QUEUE_MAX_LIMIT ? 4ULL * cfg->concurrency : QUEUE_MAX_LIMIT;
  if (rc_config_env_u64 (get, ud, "RUN_QUEUE_MAX", 0, QUEUE_MAX_LIMIT, &n, err) < 0)
    return -1;
  cfg->queue_max = (unsigned)n;
  cfg->queue_wait_ms = 30000;
  if (rc_config_env_u64 (get, ud, "RUN_QUEUE_WAIT_MS", 0, 3600000, &cfg->queue_wait_ms, err) < 0)
    return -1;
  cfg->queue_routes = RC_FAMILY_BIT (RC_FAMILY_V1) | RC_FAMILY_BIT (RC_FAMILY_SESSIONS);
  if (load_queue_routes (get, ud, &cfg->queue_routes, err) < 0)
    return -1;

  /* Every waiting request holds a worker, and /health must still find an
   * idle one: the pool may grow past slots + queue + spares. */
  floor = (uint64_t)cfg->concurrency + cfg->queue_max + cfg->spare_workers;
  n = floor + 32;
  if (rc_config_env_u64 (get, ud, "RUN_WORKERS_MAX", 1, WORKERS_MAX_LIMIT, &n, err) < 0)
    return -1;
  if (n < floor)
    return rc_error_set (err, 0,
                         "RUN_WORKERS_MAX: %llu is below RUN_CONCURRENCY + RUN_QUEUE_MAX + "
                         "RUN_SPARE_WORKERS (%llu): a full queue would leave no worker for "
                         "/health",
                         (unsigned long long)n, (unsigned long long)floor);
  cfg->workers_max = (unsigned)n;
  cfg->workers_memory_max = 1ULL << 30;
  if (rc_config_env_size (get, ud, "RUN_WORKERS_MEMORY_MAX", 0, &cfg->workers_memory_max, err) < 0)
    return -1;
  if (cfg->workers_memory_max != 0 && cfg->workers_memory_max < (64ULL << 20))
    return rc_error_set (err, 0, "RUN_WORKERS_MEMORY_MAX: at least 64m (or 0 for no limit)");

  v = get ("RUN_METRICS_ALLOW", ud);
  if (rc_cidr_parse_list ("RUN_METRICS_ALLOW", v && *v ? v : "127.0.0.0/8,::1", &cfg->metrics_allow,
                          &cfg->n_metrics_allow, err)
      < 0)
    return -1;

  sc->max_per_client = sc->max_sessions / 4 ? sc->max_sessions / 4 : 1;
  if (rc_config_env_u64 (get, ud, "MAX_SESSIONS_PER_CLIENT", 1, sc->max_sessions,
                         &sc->max_per_client, err)
      < 0)
    return -1;
  sc->max_result_bytes = sc->max_session_size;
  if (rc_config_env_size (get, ud, "MAX_RESULT_BYTES", 1, &sc->max_result_bytes, err) < 0)
    return -1;
  return 0;
}

void
rc_config_free_front (struct rc_config *cfg)
{
  free (cfg->metrics_allow);
  cfg->metrics_allow = NULL;
  cfg->n_metrics_allow = 0;
}
