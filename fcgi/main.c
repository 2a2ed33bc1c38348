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

int
main (int argc, char **argv)
{
  struct rc_config cfg;
  struct rc_lang_table langs;
  struct rc_worker_ctx ctx;
  enum rc_sandbox_mode mode;
  rc_err_t err = NULL;
  const char *listen_override = NULL;
  int i, ret, instance_fd = -1;

  for (i = 1; i < argc; i++)
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
  if (rc_config_load_env (&cfg, &err) < 0)
    {
      fprintf (stderr, "runcell-fcgi: configuration: %s\n", rc_error_text (err));
      return 78;
    }
  if (listen_override)
    {
      free (cfg.listen);
      cfg.listen = strdup (listen_override);
    }
  rc_log_set_debug (cfg.debug);
  if (rc_lang_table_load (&langs, &cfg, &err) < 0)
    {
      fprintf (stderr, "runcell-fcgi: languages: %s\n", rc_error_text (err));
      return 78;
    }
  for (size_t l = 0; l < langs.n; l++)
    rc_log (RC_LOG_INFO, "language", "%s: %s", langs.langs[l].slug,
            langs.langs[l].available ? "available" : langs.langs[l].unavailable_reason);
  /* What would make every job fail stops the start here, naming what to
   * change (docs/design.md, "Fail at start, not per job"); and a uid range
   * or cgroup subtree another runcell holds is left alone before the
   * host setup below touches either. */
  if (cfg.sandbox && geteuid () == 0)
    {
      if (rc_sandbox_check_langs (&langs, &err) < 0 || rc_sandbox_check_uids (&cfg, false, &err) < 0
          || rc_sandbox_instance_lock (&cfg, &instance_fd, &err) < 0)
        {
          fprintf (stderr, "runcell-fcgi: %s\n", rc_error_text (err));
          return 78;
        }
    }
  if (rc_sandbox_host_setup (&cfg, &mode, &err) < 0)
    {
      fprintf (stderr, "runcell-fcgi: sandbox: %s\n", rc_error_text (err));
      rc_sandbox_instance_unlock (instance_fd);
      return 71;
    }
  /* After the setup emptied our own slots: a process of a slot uid now is
   * a stranger's. */
  if (mode == RC_SANDBOX_ISOLATED
      && (rc_sandbox_check_uids (&cfg, true, &err) < 0
          || rc_sandbox_workers_setup (&cfg, &err) < 0))
    {
      fprintf (stderr, "runcell-fcgi: %s\n", rc_error_text (err));
      rc_sandbox_host_teardown (&cfg);
      rc_sandbox_instance_unlock (instance_fd);
      return 78;
    }
  if (cfg.sessions.quota == RC_SESSION_QUOTA_NONE)
    rc_log (RC_LOG_WARN, "sessions_unbounded",
            "SESSION_QUOTA=none: MAX_SESSION_SIZE and MAX_SESSION_ENTRIES are not enforced");
  /* Sessions' tmpfs mounts live in a private mount namespace of the
   * service, so they vanish with it even after SIGKILL. */
  if (rc_sessions_host_setup (&cfg, &err) < 0)
    {
      fprintf (stderr, "runcell-fcgi: sessions: %s\n", rc_error_text (err));
      rc_sandbox_host_teardown (&cfg);
      rc_sandbox_instance_unlock (instance_fd);
      return 71;
    }
  /* The judge's build directories: in the same private namespace. */
  if (mode == RC_SANDBOX_ISOLATED
      && rc_build_dirs_host_setup (&cfg, cfg.sessions.quota == RC_SESSION_QUOTA_TMPFS, &err) < 0)
    {
      fprintf (stderr, "runcell-fcgi: judge: %s\n", rc_error_text (err));
      rc_sessions_host_teardown (&cfg);
      rc_sandbox_host_teardown (&cfg);
      return 71;
    }
  if (mode == RC_SANDBOX_UNSANDBOXED)
    rc_log (RC_LOG_WARN, "unsandboxed",
            "running WITHOUT the sandbox (not root or RUN_SANDBOX=off): unsafe, development only");
  if (rc_processes_setup (&cfg, &err) < 0)
    {
      fprintf (stderr, "runcell-fcgi: processes: %s\n", rc_error_text (err));
      rc_sandbox_host_teardown (&cfg);
      return 71;
    }
  if (rc_metrics_create (&langs) < 0)
    {
      fprintf (stderr, "runcell-fcgi: slot table: %s\n", strerror (errno));
      rc_sandbox_host_teardown (&cfg);
      rc_sandbox_instance_unlock (instance_fd);
      return 71;
    }
  memset (&ctx, 0, sizeof ctx);
  ctx.listen_fd = open_listen_socket (cfg.listen);
  if (ctx.listen_fd < 0)
    {
      rc_sandbox_host_teardown (&cfg);
      rc_sandbox_instance_unlock (instance_fd);
      return 71;
    }
  ctx.cfg = &cfg;
  ctx.langs = &langs;
  ctx.mode = mode;
  ctx.master = getpid ();
  ret = rc_master_run (&ctx, listen_override);
  if (ret < 0)
    fprintf (stderr, "runcell-fcgi: no job could run here, so runcell did not start (the log "
                     "says why)\n");
  if (cfg.listen && strncmp (cfg.listen, "unix:", 5) == 0)
    unlink (cfg.listen + 5);
  rc_sessions_host_teardown (&cfg);
  rc_build_dirs_sweep (&cfg, 0);
  rc_sandbox_host_teardown (&cfg);
  rc_sandbox_instance_unlock (instance_fd);
  rc_lang_table_free (&langs);
  rc_config_free (&cfg);
  return ret == 0 ? 0 : 71;
}
