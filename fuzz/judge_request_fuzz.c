/* judge_request_fuzz.c - libFuzzer target for the POST /v1/judge body
 * parser (fcgi/judge/judge_request.c, rc_judge_request_parse).
 *
 * The input is the request body, parsed against a small language table
 * (cpp with a compile step, python without, zig not installed).  Promises
 * checked:
 *  - a refusal is a 400 or a 501 with a message, and frees what it read;
 *  - an accepted request holds 1..max_tests tests, each named (a string
 *    without NUL), its stdin and expected output held with their lengths,
 *    a NULL-terminated args vector without NUL, run limits positive
 *    within the ceilings where the ceilings apply, outputKb as a per-stream
 *    cap and no combined budget (the judge's origin);
 *  - the program's language is installed with a run command, and so are a
 *    checker's or an interactor's, never both; their files avoid the names
 *    their input, output and answer take;
 *  - a comparison mode that exists, a float tolerance finite and >= 0.
 */
#include "config.h"

#include "fcgi/judge/judge_request.h"
#include "fuzz/fuzz.h"

#include <math.h>
#include <string.h>

#define MAX_FILES 8
#define MAX_TESTS 16

static const int refused[] = { 400, 501, 0 };

static struct rc_lang langs[] = {
  { .slug = (char *)"cpp",
    .available = true,
    .execute_compile = (char *)"g++ -o /tmp/a.out *.cpp",
    .execute_run = (char *)"/tmp/a.out",
    .default_limits = { .wall_ms = 2000,
                        .idle_ms = 2000,
                        .cpu_ms = 2000,
                        .memory_bytes = 256ULL << 20,
                        .pids = 32,
                        .output_bytes = 64 << 10 } },
  { .slug = (char *)"python",
    .available = true,
    .execute_run = (char *)"python3 \"$MAIN\"",
    .default_limits = { .wall_ms = 5000,
                        .idle_ms = 5000,
                        .cpu_ms = 5000,
                        .memory_bytes = 128ULL << 20,
                        .pids = 16,
                        .output_bytes = 1 << 20 } },
  { .slug = (char *)"zig", .available = false, .execute_run = (char *)"zig run \"$MAIN\"" },
};
static const struct rc_lang_table table = { langs, sizeof langs / sizeof langs[0] };

static void
config (struct rc_config *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->max_files = MAX_FILES;
  cfg->judge.max_tests = MAX_TESTS;
  cfg->limit_max.wall_ms = cfg->limit_max.idle_ms = cfg->limit_max.cpu_ms = 60000;
  cfg->limit_max.memory_bytes = 1ULL << 30;
  cfg->limit_max.pids = 64;
  cfg->limit_max.output_bytes = 1 << 20;
}

static void
check_program (const struct rc_judge_program *p, bool helper)
{
  FUZZ_CHECK (p->lang->available && p->lang->execute_run, "an installed language that runs");
  FUZZ_CHECK (p->n_files >= 1 && p->n_files <= MAX_FILES, "1..max_files files");
  for (size_t i = 0; i < p->n_files; i++)
    {
      FUZZ_CHECK (rc_exec_path_is_safe (p->files[i].name, strlen (p->files[i].name)),
                  "a file name is a safe relative path");
      FUZZ_CHECK (p->files[i].content[p->files[i].len] == '\0', "content held with its length");
      if (helper)
        FUZZ_CHECK (strcmp (p->files[i].name, RC_JUDGE_INPUT) != 0
                        && strcmp (p->files[i].name, RC_JUDGE_OUTPUT) != 0
                        && strcmp (p->files[i].name, RC_JUDGE_ANSWER) != 0,
                    "a checker's file never takes the name of its input, output or answer");
    }
}

static void
check_test (const struct rc_config *cfg, const struct rc_judge_test *t)
{
  size_t n;
  FUZZ_CHECK (t->name != NULL, "every test has a name");
  if (t->stdin_data)
    FUZZ_CHECK (t->stdin_data[t->stdin_len] == '\0', "stdin held with its length");
  if (t->expected)
    FUZZ_CHECK (t->expected[t->expected_len] == '\0', "expected held with its length");
  FUZZ_CHECK (t->args != NULL, "args is never NULL");
  for (n = 0; t->args[n]; n++)
    ;
  FUZZ_CHECK (n <= RC_EXEC_ARGS_MAX, "args are bounded");
  FUZZ_CHECK (t->run.wall_ms > 0 && t->run.wall_ms <= cfg->limit_max.wall_ms && t->run.cpu_ms > 0
                  && t->run.cpu_ms <= cfg->limit_max.cpu_ms && t->run.memory_bytes > 0
                  && t->run.memory_bytes <= cfg->limit_max.memory_bytes,
              "a test's clocks and memory are set within the ceilings");
  FUZZ_CHECK (t->run.output_bytes == 0 && t->run.stream_bytes > 0
                  && t->run.stream_bytes <= cfg->limit_max.output_bytes,
              "outputKb caps each stream; nothing is cut");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct rc_judge_request r;
  struct rc_config cfg;
  rc_err_t err = NULL;

  config (&cfg);
  if (rc_judge_request_parse ((const char *)data, size, &cfg, &table, &r, &err) < 0)
    {
      fuzz_check_refusal (&err, refused);
      FUZZ_CHECK (r.tests == NULL && r.program.files == NULL && r.checker.files == NULL,
                  "a refusal frees");
      return 0;
    }
  FUZZ_CHECK (err == NULL, "an accepted request leaves the error empty");
  check_program (&r.program, false);
  FUZZ_CHECK (!(r.checker.lang && r.interactor.lang), "a checker or an interactor, not both");
  if (r.checker.lang)
    check_program (&r.checker, true);
  if (r.interactor.lang)
    check_program (&r.interactor, true);
  FUZZ_CHECK (r.compare.mode == RC_COMPARE_LINES || r.compare.mode == RC_COMPARE_EXACT
                  || r.compare.mode == RC_COMPARE_TOKENS || r.compare.mode == RC_COMPARE_FLOAT,
              "a comparison mode that exists");
  FUZZ_CHECK (isfinite (r.compare.eps) && r.compare.eps >= 0, "a tolerance finite and >= 0");
  FUZZ_CHECK (r.n_tests >= 1 && r.n_tests <= MAX_TESTS, "1..max_tests tests");
  for (size_t i = 0; i < r.n_tests; i++)
    check_test (&cfg, &r.tests[i]);
  rc_judge_request_free (&r);
  return 0;
}
