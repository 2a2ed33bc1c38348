/* job_build.h - the one job builder: manifest + request + limits -> spec.
 *
 * Every entry point (/run, /v1/execute, sessions, `runcell exec`) describes
 * what it was asked in an rc_job_request, and rc_job_build turns that, the
 * language's manifest (struct rc_lang) and the operator's configuration
 * (struct rc_config) into an rc_job_spec: steps with their argv and limits,
 * environment, files, tmpfs size, cache overlays.  Nothing else builds a
 * spec, so every command line has one origin; every limit has its own
 * (common/limits.h), which the request carries resolved.
 *
 * The kinds of request:
 *   RC_JOB_CONTRACT  /run: the solution (and checker, asserts) are written
 *                    into the manifest's inputDir of the language template,
 *                    and the language's resolved `make test` command runs
 *                    once under the request's timeout.
 *   RC_JOB_EXECUTE   /v1/execute and sessions: the manifest's "execute"
 *                    commands.  In a template workspace the request's files
 *                    are the workspace and the first one is $MAIN; the
 *                    compile command (if any) is its own step with compile
 *                    limits.  In a bound workspace (a session) the code is
 *                    staged under the job's private /tmp, never in the
 *                    session, compiled there, and run with cwd /sandbox,
 *                    stderr merged into stdout, in one step.
 *   RC_JOB_COMMAND   `runcell exec CMD...`: argv as given (no shell).
 *
 * Every slot's root holds /usr, a few /etc files, every language's
 * hostPaths and every language directory at /lang/<slug> (the job's
 * $RUNCELL_LANG_DIR), all read-only (sandbox/root/root.c); the spec names
 * its language so its cache directories get their overlays.
 *
 * Args reach the run command byte-exact and in order as "$@" of
 * `sh -c RUN sh ARGS...`: the builder appends "$@" to a run command that
 * does not name it, and prefixes `exec` to a simple one, so a signal that
 * kills the program is reported as that signal.
 */
#ifndef RUNCELL_COMMON_JOB_BUILD_H
#define RUNCELL_COMMON_JOB_BUILD_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "common/lang.h"
#include "common/limits.h"

enum rc_job_kind
{
  RC_JOB_CONTRACT = 0,
  RC_JOB_EXECUTE,
  RC_JOB_COMMAND,
};

/* Which steps of an RC_JOB_EXECUTE job in a template workspace are built:
 * both (/v1/execute), or the judge's split of them into a compile job
 * (whose /tmp is the build directory) and one run job per test (whose /tmp
 * shows it). */
enum rc_job_stage
{
  RC_JOB_STAGE_ALL = 0,
  RC_JOB_STAGE_COMPILE, /* the compile step alone (the language must have one) */
  RC_JOB_STAGE_RUN,     /* the run step alone */
};

/* A request, whatever the entry point.  Pointers are borrowed and must
 * outlive the built job. */
struct rc_job_request
{
  enum rc_job_kind kind;
  enum rc_workspace_kind workspace;
  int bind_dirfd; /* RC_WORKSPACE_BIND: the session directory */
  /* RC_JOB_CONTRACT: written to inputDir/solutionFile, inputDir/checkerFile
   * (only when the language has one) and inputDir/asserts.json. */
  const char *solution, *checker, *asserts;
  size_t solution_len, checker_len, asserts_len;
  /* Files of the workspace, paths relative to /sandbox (RC_JOB_EXECUTE in
   * a template workspace: files[0] is $MAIN; RC_JOB_COMMAND: as given). */
  const struct rc_file *files;
  size_t n_files;
  /* RC_JOB_EXECUTE in a bound workspace: the source, staged as
   * /tmp/.runcell-exec/<execute.main>. */
  const char *code;
  size_t code_len;
  const char *const *args; /* NULL-terminated, may be NULL */
  const char *const *argv; /* RC_JOB_COMMAND; NULL: the language's command */
  const char *stdin_data;  /* NULL: /dev/null */
  size_t stdin_len;
  /* The job's limits, from rc_limits_resolve: the builder only copies them
   * into the steps. */
  struct rc_job_limits limits;
  const char *template_dir; /* overrides the language directory (runcell exec) */
  enum rc_job_stage stage;
  enum rc_tmp_kind tmp; /* the job's /tmp (job.h) */
  int tmp_dirfd;        /* RC_TMP_BIND, RC_TMP_OVERLAY */
};

/* Where a bound workspace's code is staged and compiled. */
#define RC_EXEC_STAGE_DIR "/tmp/.runcell-exec"

/* A built job: the spec and the storage it points into. */
struct rc_job
{
  struct rc_job_spec spec;
  struct rc_step steps[2];
  size_t run_step;  /* index of the run step in steps */
  bool has_compile; /* steps[0] is a compile step */
  struct rc_file *files;
  char **env;
  char **strings; /* owned strings the argv and files point to */
  size_t n_strings;
  const char **argv[2];
};

/* Fills job from lang (may be NULL for RC_JOB_COMMAND), req and cfg.
 * Returns < 0 with err set (ENOMEM, or EINVAL for a request the language
 * cannot serve, e.g. no "execute" section); rc_job_free in every case. */
int rc_job_build (struct rc_job *job, const struct rc_lang *lang, const struct rc_job_request *req,
                  const struct rc_config *cfg, rc_err_t *err);
void rc_job_free (struct rc_job *job);

/* True when `exec ` may prefix a run command (one external command, no
 * shell syntax, not a builtin or an assignment). */
bool rc_exec_run_command_is_simple (const char *cmd);

#endif
