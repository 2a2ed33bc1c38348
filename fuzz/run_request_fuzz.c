/* run_request_fuzz.c - libFuzzer target for the POST /run and
 * POST /v1/execute body parsers.  Build: CC=clang ./configure
 * --enable-fuzzers && make fuzz/run_request_fuzz; run:
 * fuzz/run_request_fuzz -max_total_time=60 fuzz/corpus/run_request. */
#include <config.h>

#include "fcgi/execute/execute_request.h"
#include "fcgi/run/run_request.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct rc_run_request run;
  struct rc_execute_request ex;
  struct rc_config cfg;
  struct rc_lang lang;
  struct rc_lang_table langs = { &lang, 1 };
  rc_err_t err = NULL;

  if (rc_run_request_parse ((const char *) data, size, 30000, 600000, &run, &err) == 0)
    rc_run_request_free (&run);
  rc_error_free (&err);

  memset (&cfg, 0, sizeof cfg);
  cfg.max_files = 8;
  cfg.limit_max.wall_ms = cfg.limit_max.idle_ms = cfg.limit_max.cpu_ms = 60000;
  cfg.limit_max.memory_bytes = 1ULL << 30;
  cfg.limit_max.pids = 64;
  cfg.limit_max.output_bytes = 1 << 20;
  memset (&lang, 0, sizeof lang);
  lang.slug = (char *) "python";
  lang.available = true;
  lang.execute_run = (char *) "python3 \"$MAIN\"";
  if (rc_execute_request_parse ((const char *) data, size, &cfg, &langs, &ex, &err) == 0)
    rc_execute_request_free (&ex);
  rc_error_free (&err);
  return 0;
}
