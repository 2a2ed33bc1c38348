/* metrics.h - counters shared by all workers, rendered as Prometheus text
 * by GET /metrics.
 *
 * The counters live in an anonymous MAP_SHARED mapping made by the master
 * before it forks, and are updated with relaxed atomics: a worker never
 * waits on another to count a request.
 */
#ifndef RUNCELL_FCGI_METRICS_H
#define RUNCELL_FCGI_METRICS_H

#include "common/job.h"
#include "common/lang.h"

#include <stdint.h>

int rc_metrics_create (const struct rc_lang_table *langs);
/* One finished request: lang may be NULL, outcome a short word ("ok",
 * "wall", "memory", "busy", ...); durations in microseconds (0 = none). */
void rc_metrics_record_request (const char *lang, const char *outcome, uint64_t setup_us,
                                uint64_t run_us, uint64_t total_us);
void rc_metrics_count_oom (void);
void rc_metrics_count_clock_kill (enum rc_outcome kind);
void rc_metrics_count_sandbox_failure (void);
void rc_metrics_count_worker_restart (void);
void rc_metrics_count_rejection (void);
void rc_metrics_render (struct rc_buf *out, unsigned busy_slots, unsigned slots);

#endif
