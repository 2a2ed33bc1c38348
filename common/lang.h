/* lang.h - the language table, loaded from langs/<slug>/manifest.json.
 *
 * langs/ is data: a directory per language with a Makefile whose `test`
 * target runs a job, the runner/checker files, and a manifest.  The loader
 * reads the manifests, applies RUN_OVERLAY_PATHS_<SLUG>, and resolves each
 * language's command once with `make -n -s test` so requests never run make.
 *
 * manifest.json fields:
 *   slug            "python"
 *   aliases         ["py"]                   other names (/v1/execute, sessions)
 *   inputDir        "check" ("lib" for dart)
 *   solutionFile    "solution.py"
 *   checkerFile     "checker.cpp" or null
 *   checkerRequired true/false
 *   tmpSize         "256m"       per-job tmpfs size=
 *   overlayPaths    ["/opt/go/cache", ...]   copy-on-write cache dirs
 *   hostPaths       ["/etc/mono", ...]       host paths outside /usr the job needs
 *   env             {"GOCACHE": "/opt/go/cache"}   always set for the job
 *   requires        ["python3"]  programs that must be on PATH, else unavailable
 *   version         ["python3", "--version"]   prints the toolchain version
 *   defaultLimits   {wallTimeMs, idleMs, cpuMs, memoryMb, pids, outputKb}
 *                   (memoryMb is the language's memory: /run's cgroup limit
 *                   and a compile step's too; rc_limits_resolve applies
 *                   the operator's overrides)
 *   execute         {"compile": "...sh...", "run": "...sh...", "main": "main.py"}
 *                   (optional: how /v1/execute and sessions compile and run
 *                   files; rc_job_build turns them into steps).  Run as
 *                   `sh -c CMD sh ARGS...` with cwd /sandbox: $MAIN is the
 *                   entry file (the request's first file; for a session the
 *                   code staged as /tmp/.runcell-exec/<main>), "$@" the
 *                   request's args (appended to a run command that does not
 *                   name them), $RUNCELL_LANG_DIR the language directory.
 *                   Compile output goes under /tmp (e.g. /tmp/a.out) so
 *                   nothing is left in a session directory.
 *                   Example: {"compile": "g++ -O2 -o /tmp/a.out \"$MAIN\"",
 *                             "run": "/tmp/a.out"}
 *   unavailableReason  "Dart is not packaged by Debian 12" (optional)
 */
#ifndef RUNCELL_COMMON_LANG_H
#define RUNCELL_COMMON_LANG_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "common/strv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where every job sees the language directories: /lang/<slug>
 * ($RUNCELL_LANG_DIR), read-only, in every slot's root. */
#define RC_JOB_LANG_DIR "/lang"

struct rc_lang
{
  char *slug;
  char **aliases;  /* NULL-terminated */
  char *dir;       /* absolute path of langs/<slug> */
  char *input_dir; /* "check" or "lib" */
  char *solution_file;
  char *checker_file; /* NULL when the language has none */
  bool checker_required;
  char *command;        /* resolved `make -n -s test`, run with sh -c */
  uint64_t tmp_size;    /* the manifest's (rc_limits_resolve applies overrides) */
  char **overlay_paths; /* after RUN_OVERLAY_PATHS_<SLUG>; NULL-terminated */
  size_t n_overlay_paths;
  char **host_paths; /* bound read-only into the job's root; NULL-terminated */
  size_t n_host_paths;
  char **env; /* "KEY=value", NULL-terminated */
  struct rc_limits default_limits;
  char *version;         /* first line printed by the version command, or NULL */
  char **version_cmd;    /* manifest "version" argv, NULL-terminated, may be NULL */
  char *execute_compile; /* optional sh command for /v1/execute */
  char *execute_run;
  char *execute_main; /* default entry file name, may be NULL */
  bool available;     /* toolchain present */
  char *unavailable_reason;
};

struct rc_lang_table
{
  struct rc_lang *langs;
  size_t n;
};

/* Loads every langs_dir/<slug>/manifest.json (or only cfg->languages). */
int rc_lang_table_load (struct rc_lang_table *t, const struct rc_config *cfg, rc_err_t *err);
/* Parses one manifest from a string (unit tests); dir may be NULL. */
int rc_lang_parse_manifest (struct rc_lang *lang, const char *json, size_t len, const char *dir,
                            rc_err_t *err);
const struct rc_lang *rc_lang_find (const struct rc_lang_table *t, const char *slug_or_alias);

/* What an API needs of a language. */
enum rc_lang_need
{
  RC_LANG_NEED_TEST,    /* /run: its `make test` command */
  RC_LANG_NEED_EXECUTE, /* the /v1 API and sessions: its "execute" commands */
};
/* The one lookup of a request's language, with the one wording of its
 * errors: 400 `unsupported <field> "<name>"` (field: the request's own
 * name for it, "lang_slug" or "language"), 501 `language "<slug>" is not
 * installed on this host` (and the manifest's reason), 501 when the
 * language has no "execute" commands.  /run takes slugs only (aliases is
 * false); the other APIs take aliases too. */
int rc_lang_lookup (const struct rc_lang_table *t, const char *field, const char *name,
                    bool aliases, enum rc_lang_need need, const struct rc_lang **out,
                    rc_err_t *err);
void rc_lang_table_free (struct rc_lang_table *t);
void rc_lang_free (struct rc_lang *lang);

/* A hostPaths entry a job's root can hold: absolute, without "." or ".."
 * components, and not at or below the job's own mounts and links (/tmp,
 * /var/tmp, /dev, /proc, /sys, /sandbox, /lang, /etc/passwd, /etc/group),
 * which would cover it.  The manifest loader refuses any other, and the
 * root builder checks again. */
bool rc_lang_host_path_ok (const char *p);

/* Builds the job environment: cfg->job_env (fixed at start), the
 * language's env, then HOME=/sandbox.  Returns a NULL-terminated array the caller frees with
 * rc_strv_free. */
char **rc_job_env_build (const struct rc_config *cfg, const struct rc_lang *lang);

/* Runs argv in dir (stdin /dev/null, stderr discarded) and returns what it
 * printed on stdout (at most 64 KiB) when it exits 0 within timeout_ms. */
int rc_capture_command (const char *dir, char *const argv[], unsigned timeout_ms, char **out,
                        rc_err_t *err);

#endif
