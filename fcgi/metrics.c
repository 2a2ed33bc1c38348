/* metrics.c - shared counters and their Prometheus rendering. */
#include "config.h"

#include "fcgi/metrics.h"
#include "common/json_out.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_LANGS 40
/* Index MAX_LANGS counts requests with no language (bad requests, 429s
 * before parsing finished, /health ...). */
#define LANG_SLOTS (MAX_LANGS + 1)

static const char *const outcomes[] = {
  "ok",     "wall",          "idle",        "cpu",  "memory",          "output",
  "output_too_large", "compile_error", "bad_request", "busy", "sandbox_failure", "other",
};
#define N_OUTCOMES (sizeof outcomes / sizeof outcomes[0])

/* Upper bounds of the duration buckets, in seconds. */
static const double buckets_s[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                    0.25,  0.5,    1,     2.5,  5,     10,   30 };
#define N_BUCKETS (sizeof buckets_s / sizeof buckets_s[0])

struct histogram
{
  _Atomic uint64_t count[N_BUCKETS + 1];
  _Atomic uint64_t sum_us;
  _Atomic uint64_t total;
};

struct metrics
{
  _Atomic uint64_t jobs[LANG_SLOTS][N_OUTCOMES];
  struct histogram setup, run, request;
  _Atomic uint64_t oom_kills;
  _Atomic uint64_t clock_kills[RC_OUTCOME_COUNT];
  _Atomic uint64_t sandbox_failures;
  _Atomic uint64_t worker_restarts;
  _Atomic uint64_t busy_rejections;
};

static struct metrics *m;
static const char *lang_names[MAX_LANGS];
static size_t n_lang_names;

int
rc_metrics_create (const struct rc_lang_table *langs)
{
  void *p = mmap (NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  m = p;
  for (size_t i = 0; i < langs->n && i < MAX_LANGS; i++)
    lang_names[n_lang_names++] = langs->langs[i].slug;
  return 0;
}

static size_t
lang_index (const char *lang)
{
  for (size_t i = 0; lang && i < n_lang_names; i++)
    if (strcmp (lang_names[i], lang) == 0)
      return i;
  return MAX_LANGS;
}

static size_t
outcome_index (const char *outcome)
{
  for (size_t i = 0; outcome && i < N_OUTCOMES; i++)
    if (strcmp (outcomes[i], outcome) == 0)
      return i;
  return N_OUTCOMES - 1;
}

static void
observe (struct histogram *h, uint64_t us)
{
  size_t b;
  for (b = 0; b < N_BUCKETS && (double) us / 1e6 > buckets_s[b]; b++)
    ;
  atomic_fetch_add_explicit (&h->count[b], 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&h->sum_us, us, memory_order_relaxed);
  atomic_fetch_add_explicit (&h->total, 1, memory_order_relaxed);
}

void
rc_metrics_record_request (const char *lang, const char *outcome, uint64_t setup_us,
                           uint64_t run_us, uint64_t total_us)
{
  if (m == NULL || outcome == NULL)
    return;
  atomic_fetch_add_explicit (&m->jobs[lang_index (lang)][outcome_index (outcome)], 1,
                             memory_order_relaxed);
  if (setup_us)
    observe (&m->setup, setup_us);
  if (run_us)
    observe (&m->run, run_us);
  observe (&m->request, total_us);
}

void
rc_metrics_count_oom (void)
{
  if (m)
    atomic_fetch_add_explicit (&m->oom_kills, 1, memory_order_relaxed);
}

void
rc_metrics_count_clock_kill (enum rc_outcome kind)
{
  if (m && (unsigned) kind < RC_OUTCOME_COUNT)
    atomic_fetch_add_explicit (&m->clock_kills[kind], 1, memory_order_relaxed);
}

void
rc_metrics_count_sandbox_failure (void)
{
  if (m)
    atomic_fetch_add_explicit (&m->sandbox_failures, 1, memory_order_relaxed);
}

void
rc_metrics_count_worker_restart (void)
{
  if (m)
    atomic_fetch_add_explicit (&m->worker_restarts, 1, memory_order_relaxed);
}

static void
render_histogram (struct rc_buf *out, const char *name, const char *help, struct histogram *h)
{
  uint64_t cumulative = 0;
  rc_buf_printf (out, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
  for (size_t b = 0; b < N_BUCKETS; b++)
    {
      cumulative += atomic_load_explicit (&h->count[b], memory_order_relaxed);
      rc_buf_printf (out, "%s_bucket{le=\"%g\"} %llu\n", name, buckets_s[b],
                     (unsigned long long) cumulative);
    }
  cumulative += atomic_load_explicit (&h->count[N_BUCKETS], memory_order_relaxed);
  rc_buf_printf (out, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
                 (unsigned long long) cumulative, name,
                 (double) atomic_load_explicit (&h->sum_us, memory_order_relaxed) / 1e6, name,
                 (unsigned long long) atomic_load_explicit (&h->total, memory_order_relaxed));
}

void
rc_metrics_count_rejection (void)
{
  atomic_fetch_add_explicit (&m->busy_rejections, 1, memory_order_relaxed);
}

void
rc_metrics_render (struct rc_buf *out, unsigned busy_slots, unsigned slots)
{
  uint64_t busy_rejections = atomic_load (&m->busy_rejections);
  if (m == NULL)
    return;
  rc_buf_append_str (out, "# HELP runcell_jobs_total Requests that reached a handler, by "
                          "language and outcome.\n# TYPE runcell_jobs_total counter\n");
  for (size_t l = 0; l < LANG_SLOTS; l++)
    for (size_t o = 0; o < N_OUTCOMES; o++)
      {
        uint64_t v = atomic_load_explicit (&m->jobs[l][o], memory_order_relaxed);
        if (v == 0)
          continue;
        rc_buf_printf (out, "runcell_jobs_total{language=\"%s\",outcome=\"%s\"} %llu\n",
                       l < n_lang_names ? lang_names[l] : "", outcomes[o],
                       (unsigned long long) v);
      }
  render_histogram (out, "runcell_job_setup_seconds",
                    "Sandbox setup time from fork to the first exec.", &m->setup);
  render_histogram (out, "runcell_job_run_seconds", "Wall time of the job's last step.", &m->run);
  render_histogram (out, "runcell_request_seconds",
                    "Time from the request's arrival at a worker to its response.", &m->request);
  rc_buf_printf (out,
                 "# HELP runcell_slots Job slots.\n# TYPE runcell_slots gauge\nruncell_slots %u\n"
                 "# HELP runcell_busy_slots Slots running a job now.\n"
                 "# TYPE runcell_busy_slots gauge\nruncell_busy_slots %u\n"
                 "# HELP runcell_busy_rejections_total Requests answered 429.\n"
                 "# TYPE runcell_busy_rejections_total counter\n"
                 "runcell_busy_rejections_total %llu\n"
                 "# HELP runcell_oom_kills_total Jobs killed by their memory limit.\n"
                 "# TYPE runcell_oom_kills_total counter\nruncell_oom_kills_total %llu\n"
                 "# HELP runcell_sandbox_failures_total Jobs whose sandbox could not be built.\n"
                 "# TYPE runcell_sandbox_failures_total counter\n"
                 "runcell_sandbox_failures_total %llu\n"
                 "# HELP runcell_worker_restarts_total Workers respawned after dying.\n"
                 "# TYPE runcell_worker_restarts_total counter\n"
                 "runcell_worker_restarts_total %llu\n"
                 "# HELP runcell_clock_kills_total Jobs ended by a limit, by limit.\n"
                 "# TYPE runcell_clock_kills_total counter\n",
                 slots, busy_slots, (unsigned long long) busy_rejections,
                 (unsigned long long) atomic_load (&m->oom_kills),
                 (unsigned long long) atomic_load (&m->sandbox_failures),
                 (unsigned long long) atomic_load (&m->worker_restarts));
  for (int k = RC_OUTCOME_WALL; k <= RC_OUTCOME_OUTPUT; k++)
    rc_buf_printf (out, "runcell_clock_kills_total{limit=\"%s\"} %llu\n",
                   rc_outcome_limit ((enum rc_outcome) k),
                   (unsigned long long) atomic_load (&m->clock_kills[k]));
}
