/* judge_request_fuzz.c - libFuzzer target for the POST /v1/judge body
 * parser (tests, compare modes, checker, interactor, base64, limits).
 * Build: CC=clang ./configure --enable-fuzzers && make
 * fuzz/judge_request_fuzz; run: fuzz/judge_request_fuzz
 * -max_total_time=60 fuzz/corpus/judge_request. */
#include <config.h>

#include "fcgi/judge/judge_request.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct rc_judge_request jr;
  struct rc_config cfg;
  struct rc_lang langs_arr[2];
  struct rc_lang_table langs = { langs_arr, 2 };
  rc_err_t err = NULL;

  memset (&cfg, 0, sizeof cfg);
  cfg.max_files = 8;
  cfg.judge.max_tests = 64;
  cfg.limit_max.wall_ms = cfg.limit_max.idle_ms = cfg.limit_max.cpu_ms = 60000;
  cfg.limit_max.memory_bytes = 1ULL << 30;
  cfg.limit_max.pids = 64;
  cfg.limit_max.output_bytes = 1 << 20;
  memset (langs_arr, 0, sizeof langs_arr);
  langs_arr[0].slug = (char *)"cpp";
  langs_arr[0].available = true;
  langs_arr[0].execute_run = (char *)"/tmp/a.out";
  langs_arr[0].execute_compile = (char *)"g++ -o /tmp/a.out *.cpp";
  langs_arr[1].slug = (char *)"python";
  langs_arr[1].available = true;
  langs_arr[1].execute_run = (char *)"python3 \"$MAIN\"";
  if (rc_judge_request_parse ((const char *)data, size, &cfg, &langs, &jr, &err) == 0)
    rc_judge_request_free (&jr);
  rc_error_free (&err);
  return 0;
}
