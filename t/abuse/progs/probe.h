/* probe.h - helpers shared by the hostile C programs of t/abuse.
 *
 * Each escape attempt runs in a forked child, so a seccomp kill (the
 * sandbox kills rather than fails some calls) ends only that attempt and
 * the program can go on to the next one.  One line per attempt on stdout,
 * read by t/abuse/abuse.py:
 *     denied <name>: <errno name | killed by SIG...>
 *     ESCAPED <name>: <what worked>
 * and a last line "probe-done attempts=N escaped=M".  An attempt function
 * returns >= 0 when the forbidden thing WORKED and -1 (errno set) when it
 * was refused.  Sent as a second file beside every C program; valid C and
 * C++ so it builds whichever compiler the language entry uses.
 */
#ifndef RC_ABUSE_PROBE_H
#define RC_ABUSE_PROBE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int probe_attempts;
static int probe_escaped;

static const char *
probe_errname (int e)
{
  const char *n = strerrorname_np (e);
  return n ? n : "E?";
}

/* Records one outcome decided by the caller (no fork). */
static void
probe_report (const char *name, int escaped, const char *fmt, ...)
{
  char detail[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (detail, sizeof detail, fmt, ap);
  va_end (ap);
  probe_attempts++;
  if (escaped)
    probe_escaped++;
  printf ("%s %s: %s\n", escaped ? "ESCAPED" : "denied", name, detail);
  fflush (stdout);
}

/* Runs fn(arg) in a child; a success exit (200), an errno exit or a
 * signal tells the parent what happened. */
static void
probe (const char *name, long (*fn) (void *), void *arg)
{
  pid_t pid;
  int st = 0;
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    {
      probe_report (name, 1, "fork failed (%s), attempt not made", probe_errname (errno));
      return;
    }
  if (pid == 0)
    {
      long r;
      errno = 0;
      r = fn (arg);
      if (r >= 0)
        _exit (200);
      _exit (errno > 0 && errno < 200 ? errno : 199);
    }
  while (waitpid (pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED (st) && WEXITSTATUS (st) == 200)
    probe_report (name, 1, "call succeeded");
  else if (WIFEXITED (st))
    probe_report (name, 0, "%s", probe_errname (WEXITSTATUS (st)));
  else if (WIFSIGNALED (st))
    probe_report (name, 0, "killed by SIG%s", sigabbrev_np (WTERMSIG (st)));
  else
    probe_report (name, 1, "odd wait status %d", st);
}

/* True when pid is one of our ancestors inside the job (the language's
 * `sh -c` wrapper runs the program as its child): those are the job's own.
 * The chain is read from /proc once and cached. */
static int
probe_is_ancestor (pid_t pid)
{
  static pid_t chain[16];
  static int n_chain = -1;
  if (n_chain < 0)
    {
      pid_t p = getppid ();
      n_chain = 0;
      while (p > 1 && n_chain < 16)
        {
          char path[64], buf[512], *rp;
          FILE *f;
          int pp = 0;
          size_t n;
          chain[n_chain++] = p;
          snprintf (path, sizeof path, "/proc/%d/stat", (int) p);
          f = fopen (path, "r");
          if (f == NULL)
            break;
          n = fread (buf, 1, sizeof buf - 1, f);
          fclose (f);
          buf[n] = 0;
          rp = strrchr (buf, ')');
          if (rp == NULL || sscanf (rp + 1, " %*c %d", &pp) != 1)
            break;
          p = (pid_t) pp;
        }
    }
  for (int i = 0; i < n_chain; i++)
    if (chain[i] == pid)
      return 1;
  return 0;
}

static int
probe_done (void)
{
  printf ("probe-done attempts=%d escaped=%d\n", probe_attempts, probe_escaped);
  fflush (stdout);
  return probe_escaped ? 1 : 0;
}

#endif
