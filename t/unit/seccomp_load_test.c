/* seccomp_load_test.c - loads the real filter into the kernel and runs the
 * syscall probe (t/isolation/syscall_probe) under it, without the rest of
 * the sandbox: a forked child sets no_new_privs, calls rc_seccomp_load()
 * and execs the probe (the filter survives exec, as in the sandbox).
 *
 * The probe is run twice:
 *   - under the filter: every probe line must pass;
 *   - without it (a control): every [deny] line must fail and every [allow]
 *     line pass, which shows each denied outcome comes from the filter and
 *     not from the kernel or the probe.  The probe's arguments make every
 *     call fail harmlessly when nothing blocks it, so this is safe as root.
 * Needs no privilege: no_new_privs lets any user load a filter.
 * t/isolation/seccomp_probe.sh runs the same probe inside the full sandbox.
 */
#include "config.h"

#include "t/unit/tap.h"

#include "sandbox/seccomp/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>


struct run
{
  char *out;
  size_t len;
  int status;
};

static int
run_probe (const char *probe, const struct rc_seccomp_program *prog, struct run *r)
{
  int p[2];
  pid_t pid;
  size_t cap = 65536;

  r->out = malloc (cap);
  r->len = 0;
  r->status = -1;
  if (r->out == NULL || pipe2 (p, O_CLOEXEC) < 0)
    return -1;
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      char *argv[] = { (char *)probe, NULL };
      if (dup2 (p[1], 1) < 0)
        _exit (120);
      if (prog != NULL)
        {
          int e;
          if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            _exit (121);
          e = rc_seccomp_load (prog);
          if (e < 0)
            {
              dprintf (1, "Bail out! rc_seccomp_load: %s\n", strerror (-e));
              _exit (122);
            }
        }
      execv (probe, argv);
      dprintf (1, "Bail out! exec %s: %s\n", probe, strerror (errno));
      _exit (123);
    }
  close (p[1]);
  for (;;)
    {
      ssize_t n;
      if (r->len + 1 >= cap)
        {
          char *nb = realloc (r->out, cap * 2);
          if (nb == NULL)
            break;
          r->out = nb;
          cap *= 2;
        }
      n = read (p[0], r->out + r->len, cap - 1 - r->len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      r->len += (size_t)n;
    }
  r->out[r->len] = '\0';
  close (p[0]);
  waitpid (pid, &r->status, 0);
  return 0;
}

/* Calls fn for each "ok N - desc" / "not ok N - desc" line. */
static int
each_line (struct run *r, void (*fn) (bool pass, const char *desc, void *ud), void *ud)
{
  int count = 0;
  char *save = NULL;

  for (char *line = strtok_r (r->out, "\n", &save); line != NULL;
       line = strtok_r (NULL, "\n", &save))
    {
      bool pass = strncmp (line, "ok ", 3) == 0;
      const char *desc;
      if (!pass && strncmp (line, "not ok ", 7) != 0)
        {
          if (strncmp (line, "Bail out!", 9) == 0)
            printf ("# probe: %s\n", line);
          continue;
        }
      desc = strstr (line, " - ");
      fn (pass, desc ? desc + 3 : line, ud);
      count++;
    }
  return count;
}

static void
filtered_line (bool pass, const char *desc, void *ud)
{
  (void)ud;
  tap_ok (pass, "filtered: %s", desc);
}

static void
control_line (bool pass, const char *desc, void *ud)
{
  bool deny = strstr (desc, "[deny]") != NULL;
  (void)ud;
  /* i386 on a kernel without the i386 entry faults either way (the probe
   * checks the fault is on its own int $0x80). */
  if (deny && strstr (desc, "no i386 entry") != NULL)
    tap_ok (1, "unfiltered control: %s (cannot differ here)", desc);
  else if (deny)
    tap_ok (!pass, "unfiltered control: %s fails without the filter", desc);
  else
    tap_ok (pass, "unfiltered control: %s passes without the filter", desc);
}

int
main (void)
{
  rc_err_t err = NULL;
  struct rc_seccomp_program prog = { NULL, 0 };
  struct run filtered = { 0 }, bare = { 0 };
  const char *top = getenv ("RC_TOP_BUILDDIR");
  char probe[4096];
  int n_filtered, n_bare;

  snprintf (probe, sizeof (probe), "%s/t/isolation/syscall_probe", top ? top : ".");
  tap_ok (rc_seccomp_build (&prog, &err) == 0, "filter built");
  if (err != NULL)
    {
      printf ("Bail out! %s\n", rc_error_text (err));
      return 1;
    }
  tap_ok (access (probe, X_OK) == 0, "probe %s is executable", probe);
  if (run_probe (probe, &prog, &filtered) < 0 || run_probe (probe, NULL, &bare) < 0)
    {
      printf ("Bail out! cannot run the probe\n");
      return 1;
    }

  n_filtered = each_line (&filtered, filtered_line, NULL);
  tap_ok (n_filtered > 80 && WIFEXITED (filtered.status) && WEXITSTATUS (filtered.status) == 0,
      "filtered probe: %d lines, exit status 0", n_filtered);
  n_bare = each_line (&bare, control_line, NULL);
  tap_ok (n_bare == n_filtered && WIFEXITED (bare.status) && WEXITSTATUS (bare.status) == 1,
      "unfiltered probe: %d lines, exit status 1", n_bare);

  free (filtered.out);
  free (bare.out);
  rc_seccomp_free (&prog);
  return tap_done ();
}
