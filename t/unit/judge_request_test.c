/* judge_request_test.c - POST /v1/judge parsing: the fields it shares with
 * /v1/execute, tests and their limits over the request's, compare modes,
 * checker and interactor, strict fields at every depth, base64, the
 * bounds of RUN_JUDGE_MAX_TESTS. */
#include <config.h>

#include "fcgi/judge/judge_request.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <string.h>

static struct rc_config cfg;
static struct rc_lang langs_arr[2];
static struct rc_lang_table langs = { langs_arr, 2 };

#define PROG "\"language\":\"cpp\",\"files\":[{\"name\":\"main.cpp\",\"content\":\"int main(){}\"}]"

static int
parse (const char *body, struct rc_judge_request *jr, char *msg)
{
  rc_err_t err = NULL;
  int ret = rc_judge_request_parse (body, strlen (body), &cfg, &langs, jr, &err);
  msg[0] = '\0';
  if (ret < 0)
    {
      snprintf (msg, 256, "%d %s", err->http_status ? err->http_status : 500,
                err->msg ? err->msg : "");
      rc_error_free (&err);
    }
  return ret;
}

static void
reject (const char *body, const char *needle)
{
  struct rc_judge_request jr;
  char msg[256];
  int r = parse (body, &jr, msg);
  tap_ok (r < 0 && strncmp (msg, "400 ", 4) == 0 && strstr (msg, needle) != NULL, "'%s' for %s",
          msg, body);
}

int
main (void)
{
  struct rc_judge_request jr;
  char msg[256];

  cfg.max_files = 4;
  cfg.judge.max_tests = 3;
  cfg.limit_max = (struct rc_limits){ .wall_ms = 60000,
                                      .idle_ms = 60000,
                                      .cpu_ms = 60000,
                                      .memory_bytes = 1024ULL << 20,
                                      .pids = 256,
                                      .output_bytes = 1 << 20 };
  langs_arr[0].slug = (char *)"cpp";
  langs_arr[0].available = true;
  langs_arr[0].execute_run = (char *)"/tmp/a.out";
  langs_arr[0].execute_compile = (char *)"g++ -o /tmp/a.out *.cpp";
  langs_arr[0].default_limits = (struct rc_limits){ .wall_ms = 20000,
                                                    .idle_ms = 20000,
                                                    .cpu_ms = 20000,
                                                    .memory_bytes = 256 << 20,
                                                    .pids = 64,
                                                    .output_bytes = 64 * 1024 };
  langs_arr[1].slug = (char *)"python";
  langs_arr[1].available = true;
  langs_arr[1].execute_run = (char *)"python3 \"$MAIN\"";
  langs_arr[1].default_limits = langs_arr[0].default_limits;

  tap_ok (parse ("{" PROG ",\"limits\":{\"wallTimeMs\":2000,\"cpuMs\":1000},"
                 "\"compileLimits\":{\"wallTimeMs\":30000},"
                 "\"tests\":[{\"name\":\"a\",\"stdin\":\"1 2\\n\",\"expected\":\"3\\n\"},"
                 "{\"stdin\":{\"base64\":\"AP8=\"},\"args\":[\"-v\"],\"limits\":{\"cpuMs\":500}}]}",
                 &jr, msg)
              == 0,
          "a request parses (%s)", msg);
  tap_ok (jr.n_tests == 2 && strcmp (jr.tests[0].name, "a") == 0
              && strcmp (jr.tests[1].name, "2") == 0,
          "tests keep their names; an unnamed one is numbered from 1");
  tap_ok (jr.tests[1].stdin_len == 2 && (unsigned char)jr.tests[1].stdin_data[0] == 0
              && (unsigned char)jr.tests[1].stdin_data[1] == 0xff && jr.tests[1].expected == NULL,
          "base64 stdin decodes to its bytes; no expected is NULL");
  tap_ok (jr.tests[0].run.wall_ms == 2000 && jr.tests[0].run.cpu_ms == 1000
              && jr.tests[1].run.cpu_ms == 500 && jr.tests[1].run.wall_ms == 2000
              && jr.tests[1].run.idle_ms == 20000,
          "a test's limits lie over the request's, field by field, over the language's");
  tap_ok (jr.tests[0].run.stream_bytes == 64 * 1024 && jr.tests[0].run.output_bytes == 0,
          "outputKb caps each stream (past it: output_limit), nothing is cut");
  tap_ok (jr.program.limits.compile.wall_ms == 30000
              && jr.program.limits.compile.cpu_ms == RC_COMPILE_CPU_MS,
          "compileLimits over the compile step's own clocks");
  tap_ok (jr.compare.mode == RC_COMPARE_LINES && !jr.stop_on_failure && jr.checker.lang == NULL,
          "defaults: lines, no stopOnFailure, no checker");
  tap_ok (strcmp (jr.tests[1].args[0], "-v") == 0 && jr.tests[1].args[1] == NULL
              && jr.tests[0].args[0] == NULL,
          "args per test");
  rc_judge_request_free (&jr);

  tap_ok (parse ("{" PROG ",\"compare\":{\"float\":1e-6},\"stopOnFailure\":true,"
                 "\"encoding\":\"base64\",\"checker\":{\"language\":\"python\",\"files\":"
                 "[{\"name\":\"check.py\",\"content\":\"\"}],\"limits\":{\"wallTimeMs\":5000}},"
                 "\"tests\":[{}]}",
                 &jr, msg)
              == 0,
          "float, stopOnFailure, encoding and a checker parse (%s)", msg);
  tap_ok (jr.compare.mode == RC_COMPARE_FLOAT && jr.compare.eps == 1e-6 && jr.stop_on_failure
              && jr.base64_out,
          "their values");
  tap_ok (jr.checker.lang == &langs_arr[1] && jr.checker.n_files == 1
              && jr.checker.limits.run.wall_ms == 5000 && jr.checker.limits.run.stream_bytes == 0,
          "the checker has its own language and limits");
  rc_judge_request_free (&jr);

  tap_ok (parse ("{" PROG ",\"compare\":\"exact\",\"interactor\":{\"language\":\"cpp\",\"files\":"
                 "[{\"name\":\"i.cpp\",\"content\":\"\"}]},\"checker\":null,\"tests\":[{}]}",
                 &jr, msg)
                  == 0
              && jr.interactor.lang == &langs_arr[0] && jr.compare.mode == RC_COMPARE_EXACT,
          "an interactor, and checker null (%s)", msg);
  rc_judge_request_free (&jr);

  reject ("{" PROG "}", "tests is required");
  reject ("{" PROG ",\"tests\":[]}", "at least one");
  reject ("{" PROG ",\"tests\":[{},{},{},{}]}", "RUN_JUDGE_MAX_TESTS");
  reject ("{" PROG ",\"tests\":[{\"stdn\":\"1\"}]}", "tests[0].stdn is not a known field");
  reject ("{" PROG ",\"tset\":[{}]}", "tset is not a known field");
  reject ("{" PROG ",\"tests\":[{\"limits\":{\"cpuMS\":5}}]}", "tests[0].limits.cpuMS");
  reject ("{\"language\":\"cpp\",\"files\":[{\"name\":\"a\",\"content\":\"\",\"mode\":1}],"
          "\"tests\":[{}]}",
          "files[0].mode is not a known field");
  reject ("{" PROG ",\"tests\":[{\"limits\":{\"cpuMs\":999999}}]}",
          "tests[0].limits.cpuMs: 999999 is above");
  reject ("{" PROG ",\"limits\":{\"memoryMb\":4096},\"tests\":[{}]}", "limits.memoryMb");
  reject ("{" PROG ",\"compileLimits\":{\"wallTimeMs\":600000},\"tests\":[{}]}",
          "compileLimits.wallTimeMs");
  reject ("{" PROG ",\"tests\":[{\"stdin\":{\"base64\":\"*\"}}]}",
          "tests[0].stdin.base64 is not valid base64");
  reject ("{" PROG ",\"tests\":[{\"stdin\":{\"base64\":\"AA==\",\"x\":1}}]}",
          "tests[0].stdin.x is not a known field");
  reject ("{" PROG ",\"tests\":[{\"expected\":5}]}", "tests[0].expected must be a string");
  reject ("{" PROG ",\"tests\":[{\"args\":[{\"base64\":\"AA==\"}]}]}",
          "tests[0].args[0] must not contain NUL");
  reject ("{" PROG ",\"tests\":[{\"name\":7}]}", "tests[0].name");
  reject ("{" PROG ",\"tests\":[1]}", "tests[0] must be an object");
  reject ("{" PROG ",\"compare\":\"fuzzy\",\"tests\":[{}]}", "compare must be");
  reject ("{" PROG ",\"compare\":{\"float\":-1},\"tests\":[{}]}", "compare.float");
  reject ("{" PROG ",\"compare\":{\"float\":1,\"x\":2},\"tests\":[{}]}",
          "compare.x is not a known field");
  reject ("{" PROG ",\"stopOnFailure\":1,\"tests\":[{}]}", "stopOnFailure");
  reject ("{" PROG ",\"encoding\":\"latin1\",\"tests\":[{}]}", "encoding");
  reject ("{" PROG ",\"checker\":{\"language\":\"python\"},\"tests\":[{}]}", "checker.files");
  reject ("{" PROG ",\"checker\":{\"files\":[]},\"tests\":[{}]}", "checker.language");
  reject ("{" PROG ",\"checker\":{\"language\":\"cobol\",\"files\":[{\"name\":\"c\","
          "\"content\":\"\"}]},\"tests\":[{}]}",
          "checker.language");
  reject ("{" PROG ",\"checker\":{\"language\":\"python\",\"files\":[{\"name\":\"input\","
          "\"content\":\"\"}]},\"tests\":[{}]}",
          "checker.files[0].name");
  reject ("{" PROG ",\"checker\":{\"language\":\"python\",\"files\":[{\"name\":\"c\","
          "\"content\":\"\"}],\"tmeout\":1},\"tests\":[{}]}",
          "checker.tmeout is not a known field");
  reject ("{" PROG ",\"checker\":{\"language\":\"python\",\"files\":[{\"name\":\"c\","
          "\"content\":\"\"}]},\"interactor\":{\"language\":\"python\",\"files\":[{\"name\":"
          "\"i\",\"content\":\"\"}]},\"tests\":[{}]}",
          "give one");
  reject ("{\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"tests\":[{}]}", "language");
  reject ("[1]", "JSON object");
  return tap_done ();
}
