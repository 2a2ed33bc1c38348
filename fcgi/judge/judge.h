/* judge.h - POST /v1/judge inside: what the files of fcgi/judge/ share.
 *
 *   api_judge.c      the handler: parse, the build directories, the two
 *                    phases, the answer (JSON or Server-Sent Events), and
 *                    the cleaning on every path
 *   judge_pool.c     jobs side by side on claimed slots: one poll over
 *                    every run (rc_run_pollfds / rc_run_handle), the
 *                    client's connection and the caller's own clocks
 *   judge_jobs.c     the spec of each kind of job: a compile (its /tmp the
 *                    build directory), a test's program (its /tmp an
 *                    overlay on it), an interactor, a checker
 *   judge_run.c      the phases: every compile at once, then the tests in
 *                    parallel, each from its program to its verdict
 *   judge_render.c   a test, the compile steps and the whole answer
 *   judge_request.c  the body; compare.c and verdict.c, pure functions
 *
 * Lifetimes: the request owns everything; a test's jobs live from their
 * start to their verdict, and keep of their output only what the answer
 * echoes (RUN_JUDGE_ECHO_KB), so a thousand tests do not hold a thousand
 * outputs.
 */
#ifndef RUNCELL_FCGI_JUDGE_JUDGE_H
#define RUNCELL_FCGI_JUDGE_JUDGE_H

#include "common/job_build.h"
#include "fcgi/app.h"
#include "fcgi/judge/judge_request.h"
#include "fcgi/judge/verdict.h"
#include "sandbox/build_dir.h"
#include "sandbox/sandbox.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- judge_pool.c ---- */

enum rc_jjob_kind
{
  RC_JJOB_COMPILE = 0,
  RC_JJOB_PROGRAM,
  RC_JJOB_INTERACTOR,
  RC_JJOB_CHECKER,
};

/* One job of the judge: built by judge_jobs.c, run by the pool. */
struct rc_jjob
{
  enum rc_jjob_kind kind;
  size_t test;           /* its test's index (not for a compile) */
  struct rc_job job;     /* the spec and its storage */
  struct rc_file *files; /* the files the spec points to */
  struct rc_run_io io;
  struct rc_run *run; /* while it runs */
  int slot;
  struct rc_job_result res;
  bool started, done;
};

#define RC_JPOOL_MAX 64

struct rc_jpool
{
  struct rc_app *app;
  struct rc_http_response *res; /* the client's connection: gone ends the request */
  struct rc_jjob *running[RC_JPOOL_MAX];
  size_t n_running;
};

/* A slot for the next job, at once (-1: none; *pending says one is being
 * cleaned, so trying again soon pays). */
struct rc_slot_claim rc_jpool_claim_now (bool *pending);
/* Starts j on claim (the claim is the job's from here, even on failure). */
int rc_jpool_start (struct rc_jpool *p, struct rc_jjob *j, struct rc_slot_claim claim,
                    rc_err_t *err);
/* One round: polls every running job for at most timeout_ms (-1: as long
 * as their clocks allow), handles what came; each job that ended is
 * finished (its result in j->res, its claim parked for
 * rc_sandbox_end_claim) and put in done (room for every running job).
 * *gone: the client went away.  -1 on a sandbox failure. */
int rc_jpool_round (struct rc_jpool *p, int timeout_ms, struct rc_jjob **done, size_t *n_done,
                    bool *gone, rc_err_t *err);
/* Kills every running job; their ends still come through rounds. */
void rc_jpool_stop_all (struct rc_jpool *p);
/* Waits for every running job to end and drops them (a request giving up). */
void rc_jpool_drain (struct rc_jpool *p);
void rc_jjob_free (struct rc_jjob *j);

/* ---- judge_jobs.c ---- */

struct rc_judge;

/* The compile of prog into dir. */
int rc_jjob_compile (struct rc_judge *jg, const struct rc_judge_program *prog,
                     const struct rc_build_dir *dir, struct rc_jjob **out, rc_err_t *err);
/* Test i's program: its stdin, or (interactive) the pipe ends in io. */
int rc_jjob_program (struct rc_judge *jg, size_t i, struct rc_jjob **out, rc_err_t *err);
/* Test i's interactor ("input output [answer]"). */
int rc_jjob_interactor (struct rc_judge *jg, size_t i, struct rc_jjob **out, rc_err_t *err);
/* Test i's checker on the program's output ("input output answer"). */
int rc_jjob_checker (struct rc_judge *jg, size_t i, const char *output, size_t output_len,
                     struct rc_jjob **out, rc_err_t *err);

/* ---- judge_run.c ---- */

enum rc_test_phase
{
  RC_TEST_PENDING = 0,
  RC_TEST_RUNNING,  /* its program (and interactor) */
  RC_TEST_CHECKING, /* waiting for, or running, its checker */
  RC_TEST_DONE,
};

struct rc_test_state
{
  enum rc_test_phase phase;
  enum rc_verdict verdict;
  double score;
  struct rc_step_result prog; /* the program's step, output cut to the echo */
  bool out_cut, err_cut;
  char *output; /* the program's whole stdout until its checker ran */
  size_t output_len;
  struct rc_buf message;   /* the checker's or interactor's stderr, first 1 KiB */
  struct rc_jjob *jobs[2]; /* running: program (+ interactor), or checker */
  size_t n_jobs;
  /* The idle clock of a program and its interactor together. */
  uint64_t cpu_seen_us, progress_at_us, next_idle_check_us;
  bool reported; /* its `test` event was sent */
};

/* A compile's outcome, rendered as "compile", "checkerCompile",
 * "interactorCompile". */
struct rc_judge_compile
{
  bool needed, ran, ok;
  struct rc_step_result step;
};

struct rc_judge
{
  struct rc_app *app;
  const struct rc_config *cfg;
  struct rc_http_response *res;
  struct rc_judge_request req;
  struct rc_jpool pool;
  struct rc_build_dir dirs[3]; /* program, checker, interactor */
  struct rc_judge_compile compiles[3];
  unsigned n_compiles;
  struct rc_test_state *tests;
  size_t first_failed;       /* request order; n_tests: none yet */
  unsigned parallel;         /* slots the request may hold at once */
  struct rc_slot_claim held; /* a slot claimed for the next job (slot -1: none) */
  int first_slot;            /* for the request log */
  uint64_t deadline_ms;      /* RUN_JUDGE_WALL_MAX */
  bool streaming;
  uint64_t events;
  bool gone;                        /* the client left */
  bool timed_out;                   /* RUN_JUDGE_WALL_MAX passed */
  uint64_t wall_ms, cpu_ms, mem_kb; /* for the request log */
};

enum
{
  RC_JUDGE_PROGRAM = 0,
  RC_JUDGE_CHECKER,
  RC_JUDGE_INTERACTOR,
};

/* The program of index k (RC_JUDGE_*), NULL when the request has none. */
const struct rc_judge_program *rc_judge_program_of (const struct rc_judge *jg, int k);
/* Compiles every program that has a compile step, side by side.  0 when
 * each ran (compile errors included: jg->compiles says), -1 when the
 * request ends (err set, or jg->gone / jg->timed_out). */
int rc_judge_compile_all (struct rc_judge *jg, rc_err_t *err);
/* Runs every test to its verdict (or skipped). */
int rc_judge_run_tests (struct rc_judge *jg, rc_err_t *err);
/* Marks every test not done as skipped (a compile error). */
void rc_judge_skip_all (struct rc_judge *jg);

/* ---- judge_render.c ---- */

/* The submission's verdict, passed count and score. */
enum rc_verdict rc_judge_verdict (const struct rc_judge *jg, size_t *passed, double *score);
/* Test i as its JSON object (with "index" for an event). */
void rc_judge_render_test (const struct rc_judge *jg, size_t i, bool index, struct rc_buf *b);
/* The whole answer. */
void rc_judge_render (const struct rc_judge *jg, struct rc_buf *b);
/* Sends test i's `test` event when streaming (once). */
void rc_judge_report_test (struct rc_judge *jg, size_t i);

#endif
