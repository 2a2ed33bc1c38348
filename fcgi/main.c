/* main.c - runcell-fcgi: configuration, language table, host setup, the
 * listen socket, then the pre-fork master.
 *
 *   runcell-fcgi [--listen unix:/path | host:port | :port]
 *
 * Without --listen or RUN_LISTEN the FastCGI socket is inherited on fd 0, as
 * spawn-fcgi and systemd socket activation pass it.  Every configuration
 * variable is parsed before anything starts; a malformed one refuses to
 * start with a message naming it.
 */
#include "config.h"

#include "common/config.h"
#include "common/lang.h"
#include "common/log.h"
#include "fcgi/master.h"
#include "fcgi/metrics.h"
#include "fcgi/processes/processes.h"
#include "fcgi/sessions/sessions.h"
#include "sandbox/sandbox.h"
#include "sandbox/build_dir.h"
#include "sandbox/session_workspace.h"

#include <errno.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void
usage (FILE *out)
{
  fprintf (out, "usage: runcell-fcgi [--listen unix:/path|host:port|:port] [--version]\n"
                "Configuration comes from the environment; see runcell-fcgi(8).\n");
}

static int
open_listen_socket (const char *listen_spec)
{
  int fd;
  if (listen_spec == NULL)
    {
      struct stat st;
      /* Inherited socket on fd 0: move it to a CLOEXEC fd and put
       * /dev/null on fd 0 so that nothing forked later can inherit the
       * listener as its stdin. */
      if (fstat (0, &st) < 0 || !S_ISSOCK (st.st_mode))
        {
          fprintf (stderr, "runcell-fcgi: fd 0 is not a socket; set RUN_LISTEN or --listen "
                           "(or start under spawn-fcgi)\n");
          return -1;
        }
      fd = fcntl (0, F_DUPFD_CLOEXEC, 3);
      if (fd >= 0)
        {
          int devnull = open ("/dev/null", O_RDONLY | O_CLOEXEC);
          if (devnull >= 0)
            {
              dup2 (devnull, 0);
              close (devnull);
            }
        }
      return fd;
    }
  if (strncmp (listen_spec, "unix:", 5) == 0)
    {
      const char *path = listen_spec + 5;
      unlink (path);
      fd = FCGX_OpenSocket (path, 1024);
      if (fd >= 0)
        rc_host_restrict_unix_socket (path);
    }
  else
    fd = FCGX_OpenSocket (listen_spec, 1024);
  if (fd < 0)
    {
      fprintf (stderr, "runcell-fcgi: cannot listen on %s: %s\n", listen_spec, strerror (errno));
      return -1;
    }
  fcntl (fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

/* What main has set up so far; teardown undoes exactly that, in reverse,
 * whichever step failed. */
struct service
{
  struct rc_config cfg;
  struct rc_lang_table langs;
  enum rc_sandbox_mode mode;
  int instance_fd;
  bool host_set_up, sessions_set_up, build_dirs_set_up;
};

static int
fail (const char *what, rc_err_t *err, int code)
{
  fprintf (stderr, "runcell-fcgi: %s%s%s\n", what ? what : "", what ? ": " : "",
           rc_error_text (*err));
  rc_error_free (err);
  return code;
}

static void
teardown (struct service *s)
{
  if (s->cfg.listen && strncmp (s->cfg.listen, "unix:", 5) == 0)
    unlink (s->cfg.listen + 5);
  if (s->sessions_set_up)
    rc_sessions_host_teardown (&s->cfg);
  if (s->build_dirs_set_up)
    rc_build_dirs_sweep (&s->cfg, 0);
  if (s->host_set_up)
    rc_sandbox_host_teardown (&s->cfg);
  rc_sandbox_instance_unlock (s->instance_fd);
}

/* Configuration and languages; 0, or the exit status. */
static int
load (struct service *s, const char *listen_override)
{
  rc_err_t err = NULL;
  if (rc_config_load_env (&s->cfg, &err) < 0)
    return fail ("configuration", &err, 78);
  if (listen_override)
    {
      free (s->cfg.listen);
      s->cfg.listen = strdup (listen_override);
    }
  rc_log_set_debug (s->cfg.debug);
  if (rc_lang_table_load (&s->langs, &s->cfg, &err) < 0)
    return fail ("languages", &err, 78);
  for (size_t l = 0; l < s->langs.n; l++)
    rc_log (RC_LOG_INFO, "language", "%s: %s", s->langs.langs[l].slug,
            s->langs.langs[l].available ? "available" : s->langs.langs[l].unavailable_reason);
  return 0;
}

/* The host below the service: every step recorded in s for teardown; 0,
 * or the exit status. */
static int
set_up_host (struct service *s)
{
  rc_err_t err = NULL;
  /* What would make every job fail stops the start here, naming what to
   * change (docs/design.md, "Fail at start, not per job"); and a uid range
   * or cgroup subtree another runcell holds is left alone before the
   * host setup below touches either. */
  if (s->cfg.sandbox && geteuid () == 0
      && (rc_sandbox_check_langs (&s->langs, &err) < 0
          || rc_sandbox_check_uids (&s->cfg, false, &err) < 0
          || rc_sandbox_instance_lock (&s->cfg, &s->instance_fd, &err) < 0))
    return fail (NULL, &err, 78);
  if (rc_sandbox_host_setup (&s->cfg, &s->mode, &err) < 0)
    return fail ("sandbox", &err, 71);
  s->host_set_up = true;
  /* After the setup emptied our own slots: a process of a slot uid now is
   * a stranger's. */
  if (s->mode == RC_SANDBOX_ISOLATED
      && (rc_sandbox_check_uids (&s->cfg, true, &err) < 0
          || rc_sandbox_workers_setup (&s->cfg, &err) < 0))
    return fail (NULL, &err, 78);
  if (s->cfg.sessions.quota == RC_SESSION_QUOTA_NONE)
    rc_log (RC_LOG_WARN, "sessions_unbounded",
            "SESSION_QUOTA=none: MAX_SESSION_SIZE and MAX_SESSION_ENTRIES are not enforced");
  /* Sessions' tmpfs mounts live in a private mount namespace of the
   * service, so they vanish with it even after SIGKILL. */
  if (rc_sessions_host_setup (&s->cfg, &err) < 0)
    return fail ("sessions", &err, 71);
  s->sessions_set_up = true;
  /* The judge's build directories: in the same private namespace. */
  if (s->mode == RC_SANDBOX_ISOLATED
      && rc_build_dirs_host_setup (&s->cfg, s->cfg.sessions.quota == RC_SESSION_QUOTA_TMPFS, &err)
             < 0)
    return fail ("judge", &err, 71);
  s->build_dirs_set_up = true;
  if (s->mode == RC_SANDBOX_UNSANDBOXED)
    rc_log (RC_LOG_WARN, "unsandboxed",
            "running WITHOUT the sandbox (not root or RUN_SANDBOX=off): unsafe, development only");
  if (rc_processes_setup (&s->cfg, &err) < 0)
    return fail ("processes", &err, 71);
  if (rc_metrics_create (&s->langs) < 0)
    {
      fprintf (stderr, "runcell-fcgi: slot table: %s\n", strerror (errno));
      return 71;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  struct service s = { .instance_fd = -1 };
  struct rc_worker_ctx ctx = { 0 };
  const char *listen_override = NULL;
  int ret;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--listen") == 0 && i + 1 < argc)
        listen_override = argv[++i];
      else if (strcmp (argv[i], "--version") == 0)
        {
          printf ("runcell-fcgi %s\n", PACKAGE_VERSION);
          return 0;
        }
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          usage (stdout);
          return 0;
        }
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if ((ret = load (&s, listen_override)) != 0)
    return ret;
  if ((ret = set_up_host (&s)) == 0)
    {
      ctx.listen_fd = open_listen_socket (s.cfg.listen);
      ret = ctx.listen_fd < 0 ? 71 : 0;
    }
  if (ret == 0)
    {
      ctx.cfg = &s.cfg;
      ctx.langs = &s.langs;
      ctx.mode = s.mode;
      ctx.master = getpid ();
      if (rc_master_run (&ctx, listen_override) < 0)
        {
          fprintf (stderr, "runcell-fcgi: no job could run here, so runcell did not start (the "
                           "log says why)\n");
          ret = 71;
        }
    }
  teardown (&s);
  rc_lang_table_free (&s.langs);
  rc_config_free (&s.cfg);
  return ret;
}
