/* clock.h - the one monotonic clock reader.
 *
 * Deadlines, timeouts and durations are measured on CLOCK_MONOTONIC so that
 * a wall-clock step (NTP, an operator's date) can neither end a job early
 * nor keep it alive.  Every layer reads the clock through these, so that
 * there is one place that decides the clock and the units.
 */
#ifndef RUNCELL_COMMON_CLOCK_H
#define RUNCELL_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
rc_now_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static inline uint64_t
rc_now_ms (void)
{
  return rc_now_us () / 1000u;
}

static inline time_t
rc_now_s (void)
{
  return (time_t)(rc_now_us () / 1000000u);
}

#endif
