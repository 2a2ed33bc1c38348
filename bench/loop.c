/* loop.c - the "bare" side of the benchmarks: runs a command again and
 * again with plain fork + execv + waitpid, and prints what one run costs.
 *
 *   loop [-n COUNT] [-c CONCURRENCY] [-w WARMUP] [-i INPUT] -- CMD ARGS...
 *
 * Output, one line: "runs=N conc=C p50_ms=.. p99_ms=.. mean_ms=.. jobs_per_s=..
 * cpu_ms_per_run=..".  It is the bare counterpart of `runcell exec
 * --repeat N` (one process starting the command N times, no interpreter or
 * shell in between) and of the end-to-end load at concurrency 1 and 2: C
 * loopers, each running COUNT/C commands back to back, so the figures are
 * latencies under that concurrency and the throughput of the whole.
 *
 * The command's stdio is /dev/null: the benchmarks compare running, not
 * printing; with -i its stdin is INPUT, opened for each run (the judge's
 * bare side: the judged program reading its test).  CPU per run includes
 * the loopers' own forks.  A command that does not exit 0 makes the run
 * fail (exit 1), so a broken setup never passes for a fast one.  bench/run
 * compiles this with the system cc at start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static const char *input; /* -i: each run's stdin */

/* One run: 0 when the command exited 0. */
static int
run_once (char **argv, int devnull)
{
  int st = 0;
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      int in = input ? open (input, O_RDONLY) : devnull;
      if (in < 0)
        _exit (126);
      dup2 (in, 0);
      dup2 (devnull, 1);
      dup2 (devnull, 2);
      execv (argv[0], argv);
      _exit (127);
    }
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED (st) && WEXITSTATUS (st) == 0 ? 0 : -1;
}

int
main (int argc, char **argv)
{
  long count = 100, conc = 1, warmup = 5;
  int opt, devnull;
  double *samples, t0, wall;
  int *failed;
  struct rusage ru;

  while ((opt = getopt (argc, argv, "n:c:w:i:")) != -1)
    switch (opt)
      {
      case 'n':
        count = strtol (optarg, NULL, 10);
        break;
      case 'c':
        conc = strtol (optarg, NULL, 10);
        break;
      case 'w':
        warmup = strtol (optarg, NULL, 10);
        break;
      case 'i':
        input = optarg;
        break;
      default:
        fprintf (stderr,
                 "usage: loop [-n COUNT] [-c CONC] [-w WARMUP] [-i INPUT] -- CMD ARGS...\n");
        return 2;
      }
  /* Bounded: the benchmarks never ask for more, and a typo must not run
   * for hours. */
  if (optind >= argc || count < 1 || count > 1000000 || conc < 1 || conc > 64 || warmup < 0
      || warmup > 1000)
    {
      fprintf (stderr, "loop: bad arguments\n");
      return 2;
    }
  argv += optind;
  devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0)
    return 1;
  for (long i = 0; i < warmup; i++)
    if (run_once (argv, devnull) < 0)
      {
        fprintf (stderr, "loop: %s failed\n", argv[0]);
        return 1;
      }
  /* Shared with the looper children: each writes its own slice. */
  samples = mmap (NULL, (size_t)count * sizeof (double) + (size_t)conc * sizeof (int),
                  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (samples == MAP_FAILED)
    return 1;
  failed = (int *)(samples + count);
  t0 = now_ms ();
  for (long c = 0; c < conc; c++)
    {
      pid_t pid = fork ();
      if (pid < 0)
        return 1;
      if (pid == 0)
        {
          for (long i = c; i < count; i += conc)
            {
              double s = now_ms ();
              if (run_once (argv, devnull) < 0)
                failed[c]++;
              samples[i] = now_ms () - s;
            }
          _exit (0);
        }
    }
  for (long c = 0; c < conc; c++)
    while (wait (NULL) < 0 && errno == EINTR)
      ;
  wall = now_ms () - t0;
  for (long c = 0; c < conc; c++)
    if (failed[c])
      {
        fprintf (stderr, "loop: %s failed %d times\n", argv[0], failed[c]);
        return 1;
      }
  getrusage (RUSAGE_CHILDREN, &ru);
  {
    double sum = 0, cpu;
    long p99 = (count * 99 + 99) / 100 - 1; /* nearest rank */
    for (long i = 0; i < count; i++)
      sum += samples[i];
    cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3
          + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    qsort (samples, (size_t)count, sizeof (double), cmp_double);
    printf ("runs=%ld conc=%ld p50_ms=%.3f p99_ms=%.3f mean_ms=%.3f jobs_per_s=%.1f "
            "cpu_ms_per_run=%.3f\n",
            count, conc, samples[count / 2], samples[p99], sum / (double)count,
            (double)count * 1000.0 / wall, cpu / (double)(count + warmup));
  }
  return 0;
}
