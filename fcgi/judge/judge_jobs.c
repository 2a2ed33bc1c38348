/* judge_jobs.c - the spec of each kind of judge job, built by the one
 * builder (rc_job_build) from the request's programs and tests:
 *
 *   compile     the program's files, its compile step alone under its
 *               compile limits; its /tmp is the build directory
 *               (RC_TMP_BIND), where the manifest's command leaves the
 *               artifact (/tmp/a.out, /tmp/classes, ...)
 *   program     a test's run: the same files in a fresh workspace, the run
 *               step alone under the test's limits; its /tmp an overlay
 *               whose read-only lower is the build directory
 *               (RC_TMP_OVERLAY), so it runs the artifact and none of its
 *               writes outlive it
 *   interactor  the interactor's run with "input" (the test's stdin) and
 *               "answer" (its expected output, when given) beside its own
 *               files, argv "input output [answer]"
 *   checker     the checker's run with "input", "output" (the program's
 *               stdout) and "answer", argv "input output answer"
 *
 * A language without a compile step runs its files with a fresh /tmp.
 */
#include "config.h"

#include "fcgi/judge/judge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct rc_jjob *
jjob_new (enum rc_jjob_kind kind, size_t test)
{
  struct rc_jjob *j = calloc (1, sizeof *j);
  if (j == NULL)
    return NULL;
  j->kind = kind;
  j->test = test;
  j->slot = -1;
  j->io.stdin_fd = j->io.stdout_fd = -1;
  return j;
}

/* The program's files, then extra (NULL-terminated pairs of name and
 * bytes) after them. */
static struct rc_file *
files_of (const struct rc_judge_program *prog, const struct rc_file *extra, size_t n_extra)
{
  struct rc_file *f = calloc (prog->n_files + n_extra + 1, sizeof *f);
  if (f == NULL)
    return NULL;
  for (size_t i = 0; i < prog->n_files; i++)
    f[i]
        = (struct rc_file){ prog->files[i].name, prog->files[i].content, prog->files[i].len, 0644 };
  for (size_t i = 0; i < n_extra; i++)
    f[prog->n_files + i] = extra[i];
  return f;
}

/* The request every run of prog starts from: a run step alone, its /tmp
 * over prog's build directory when it was compiled. */
static void
run_request (struct rc_judge *jg, int k, struct rc_job_request *jr)
{
  const struct rc_judge_program *prog = rc_judge_program_of (jg, k);
  memset (jr, 0, sizeof *jr);
  jr->kind = RC_JOB_EXECUTE;
  jr->workspace = RC_WORKSPACE_TEMPLATE;
  jr->limits = prog->limits;
  jr->stage = RC_JOB_STAGE_RUN;
  jr->tmp = jg->compiles[k].needed ? RC_TMP_OVERLAY : RC_TMP_FRESH;
  jr->tmp_dirfd = jg->dirs[k].fd;
}

static int
build (struct rc_judge *jg, struct rc_jjob *j, const struct rc_lang *lang,
       struct rc_job_request *jr, size_t n_files, struct rc_jjob **out, rc_err_t *err)
{
  jr->files = j->files;
  jr->n_files = n_files;
  if (j->files == NULL)
    {
      rc_jjob_free (j);
      return rc_error_set (err, ENOMEM, "judge: out of memory");
    }
  if (rc_job_build (&j->job, lang, jr, jg->cfg, err) < 0)
    {
      rc_jjob_free (j);
      return -1;
    }
  *out = j;
  return 0;
}

int
rc_jjob_compile (struct rc_judge *jg, const struct rc_judge_program *prog,
                 const struct rc_build_dir *dir, struct rc_jjob **out, rc_err_t *err)
{
  struct rc_jjob *j = jjob_new (RC_JJOB_COMPILE, 0);
  struct rc_job_request jr = { 0 };
  if (j == NULL)
    return rc_error_set (err, ENOMEM, "judge: out of memory");
  jr.kind = RC_JOB_EXECUTE;
  jr.workspace = RC_WORKSPACE_TEMPLATE;
  jr.limits = prog->limits;
  jr.stage = RC_JOB_STAGE_COMPILE;
  jr.tmp = RC_TMP_BIND;
  jr.tmp_dirfd = dir->fd;
  j->files = files_of (prog, NULL, 0);
  return build (jg, j, prog->lang, &jr, prog->n_files, out, err);
}

int
rc_jjob_program (struct rc_judge *jg, size_t i, struct rc_jjob **out, rc_err_t *err)
{
  const struct rc_judge_test *t = &jg->req.tests[i];
  struct rc_jjob *j = jjob_new (RC_JJOB_PROGRAM, i);
  struct rc_job_request jr;
  if (j == NULL)
    return rc_error_set (err, ENOMEM, "judge: out of memory");
  run_request (jg, RC_JUDGE_PROGRAM, &jr);
  jr.limits.run = t->run;
  jr.args = (const char *const *)t->args;
  if (jg->req.interactor.lang)
    /* Its stdin and stdout are the interactor's pipes; the idle clock is
     * the pair's (judge_run.c), its own would see only stderr. */
    jr.limits.run.idle_ms = 0;
  else
    {
      jr.stdin_data = t->stdin_data;
      jr.stdin_len = t->stdin_len;
    }
  j->files = files_of (&jg->req.program, NULL, 0);
  return build (jg, j, jg->req.program.lang, &jr, jg->req.program.n_files, out, err);
}

int
rc_jjob_interactor (struct rc_judge *jg, size_t i, struct rc_jjob **out, rc_err_t *err)
{
  static const char *const with_answer[]
      = { RC_JUDGE_INPUT, RC_JUDGE_OUTPUT, RC_JUDGE_ANSWER, NULL };
  static const char *const without[] = { RC_JUDGE_INPUT, RC_JUDGE_OUTPUT, NULL };
  const struct rc_judge_test *t = &jg->req.tests[i];
  const struct rc_judge_program *inter = &jg->req.interactor;
  struct rc_file extra[2] = {
    { RC_JUDGE_INPUT, t->stdin_data ? t->stdin_data : "", t->stdin_len, 0644 },
    { RC_JUDGE_ANSWER, t->expected, t->expected_len, 0644 },
  };
  struct rc_jjob *j = jjob_new (RC_JJOB_INTERACTOR, i);
  struct rc_job_request jr;
  size_t n_extra = t->expected ? 2 : 1;
  if (j == NULL)
    return rc_error_set (err, ENOMEM, "judge: out of memory");
  run_request (jg, RC_JUDGE_INTERACTOR, &jr);
  jr.limits.run.idle_ms = 0; /* the pair's, as the program's */
  jr.args = t->expected ? with_answer : without;
  j->files = files_of (inter, extra, n_extra);
  return build (jg, j, inter->lang, &jr, inter->n_files + n_extra, out, err);
}

int
rc_jjob_checker (struct rc_judge *jg, size_t i, const char *output, size_t output_len,
                 struct rc_jjob **out, rc_err_t *err)
{
  static const char *const args[] = { RC_JUDGE_INPUT, RC_JUDGE_OUTPUT, RC_JUDGE_ANSWER, NULL };
  const struct rc_judge_test *t = &jg->req.tests[i];
  const struct rc_judge_program *checker = &jg->req.checker;
  struct rc_file extra[3] = {
    { RC_JUDGE_INPUT, t->stdin_data ? t->stdin_data : "", t->stdin_len, 0644 },
    { RC_JUDGE_OUTPUT, output ? output : "", output_len, 0644 },
    { RC_JUDGE_ANSWER, t->expected ? t->expected : "", t->expected_len, 0644 },
  };
  struct rc_jjob *j = jjob_new (RC_JJOB_CHECKER, i);
  struct rc_job_request jr;
  if (j == NULL)
    return rc_error_set (err, ENOMEM, "judge: out of memory");
  run_request (jg, RC_JUDGE_CHECKER, &jr);
  jr.args = args;
  j->files = files_of (checker, extra, 3);
  return build (jg, j, checker->lang, &jr, checker->n_files + 3, out, err);
}
