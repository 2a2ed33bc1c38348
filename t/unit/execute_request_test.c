/* execute_request_test.c - POST /v1/execute parsing: files, names, stdin,
 * args, limits against defaults and ceilings, strict fields, base64; and
 * how the /v1 answers write program output (step_render.c). */
#include <config.h>

#include "fcgi/execute/execute_request.h"
#include "fcgi/execute/step_render.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <string.h>

static struct rc_config cfg;
static struct rc_lang langs_arr[2];
static struct rc_lang_table langs = { langs_arr, 2 };

static int
parse (const char *body, struct rc_execute_request *ex, int *status, char *msg)
{
  rc_err_t err = NULL;
  int ret = rc_execute_request_parse (body, strlen (body), &cfg, &langs, ex, &err);
  if (ret < 0)
    {
      /* As rc_http_error_from answers it: 500 for an error without status. */
      *status = err->http_status ? err->http_status : 500;
      snprintf (msg, 256, "%s", err->msg ? err->msg : "");
      rc_error_free (&err);
    }
  return ret;
}

static void
reject (const char *body, int want, const char *needle)
{
  struct rc_execute_request ex;
  int status = 0;
  char msg[256] = "";
  int r = parse (body, &ex, &status, msg);
  tap_ok (r < 0 && status == want && strstr (msg, needle) != NULL, "%d '%s' for %s", status, msg,
          body);
}

int
main (void)
{
  struct rc_execute_request ex;
  int status;
  char msg[256];
  char *aliases[] = { (char *)"py", NULL };

  cfg.max_files = 4;
  cfg.limit_max.wall_ms = 60000;
  cfg.limit_max.idle_ms = 60000;
  cfg.limit_max.cpu_ms = 60000;
  cfg.limit_max.memory_bytes = 1024ULL << 20;
  cfg.limit_max.pids = 256;
  cfg.limit_max.output_bytes = 1024 * 1024;
  langs_arr[0].slug = (char *)"python";
  langs_arr[0].aliases = aliases;
  langs_arr[0].available = true;
  langs_arr[0].execute_run = (char *)"python3 \"$MAIN\"";
  langs_arr[0].default_limits = (struct rc_limits){ .wall_ms = 30000,
                                                    .idle_ms = 10000,
                                                    .cpu_ms = 15000,
                                                    .memory_bytes = 128 << 20,
                                                    .pids = 64,
                                                    .output_bytes = 512 * 1024 };
  langs_arr[1].slug = (char *)"zig";

  tap_ok (
      parse ("{\"language\":\"py\",\"files\":[{\"name\":\"main.py\",\"content\":\"print(1)\"},"
             "{\"name\":\"lib/util.py\",\"content\":\"\"}],\"stdin\":\"4\\n\",\"args\":[\"-v\"],"
             "\"limits\":{\"wallTimeMs\":2000,\"memoryMb\":256}}",
             &ex, &status, msg)
          == 0,
      "valid request parses (%s)", msg);
  tap_ok (ex.lang == &langs_arr[0] && ex.n_files == 2
              && strcmp (ex.files[1].name, "lib/util.py") == 0 && ex.stdin_len == 2
              && strcmp (ex.args[0], "-v") == 0 && ex.args[1] == NULL,
          "alias, files, stdin and args are read");
  tap_ok (ex.limits.run.wall_ms == 2000 && ex.limits.run.memory_bytes == 256ULL << 20
              && ex.limits.run.idle_ms == 10000 && ex.limits.run.pids == 64,
          "limits override defaults field by field");
  rc_execute_request_free (&ex);

  reject ("{\"files\":[]}", 400, "language");
  reject ("{\"language\":\"cobol\",\"files\":[{\"name\":\"a\",\"content\":\"\"}]}", 400,
          "unsupported");
  reject ("{\"language\":\"zig\",\"files\":[{\"name\":\"a\",\"content\":\"\"}]}", 501, "zig");
  reject ("{\"language\":\"python\",\"files\":[]}", 400, "at least one");
  reject ("{\"language\":\"python\"}", 400, "files");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"../x\",\"content\":\"\"}]}", 400,
          "name");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"/etc/x\",\"content\":\"\"}]}", 400,
          "name");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a/./b\",\"content\":\"\"}]}", 400,
          "name");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a//b\",\"content\":\"\"}]}", 400,
          "name");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\\u0000b\",\"content\":\"\"}]}", 400,
          "name");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":1}]}", 400, "content");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"},{\"name\":\"a\","
          "\"content\":\"\"}]}",
          400, "duplicates");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"},{\"name\":\"b\","
          "\"content\":\"\"},{\"name\":\"c\",\"content\":\"\"},{\"name\":\"d\",\"content\":\"\"},"
          "{\"name\":\"e\",\"content\":\"\"}]}",
          400, "at most");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"stdin\":5}",
          400, "stdin");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"args\":[1]}",
          400, "args[0]");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"limits\":{"
          "\"wallTimeMs\":0}}",
          400, "limits.wallTimeMs");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"limits\":{"
          "\"cpuMs\":-5}}",
          400, "limits.cpuMs");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"limits\":{"
          "\"memoryMb\":\"1\"}}",
          400, "limits.memoryMb");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"limits\":{"
          "\"memoryMb\":2048}}",
          400, "ceiling");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"limits\":{"
          "\"pids\":1.5}}",
          400, "limits.pids");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"limits\":{"
          "\"diskMb\":5}}",
          400, "limits.diskMb");

  /* Strict fields at every depth: a typo is named, never ignored. */
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],\"stdn\":\"1\"}",
          400, "stdn is not a known field");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\",\"size\":1}]}", 400,
          "files[0].size is not a known field");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],"
          "\"compileLimits\":{\"wallMs\":1}}",
          400, "compileLimits.wallMs");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],"
          "\"compileLimits\":{\"wallTimeMs\":600000}}",
          400, "compileLimits.wallTimeMs: 600000 is above");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":{\"base64\":\"!\"}}]}",
          400, "files[0].content.base64 is not valid base64");
  reject ("{\"language\":\"python\",\"files\":[{\"name\":\"a\",\"content\":\"\"}],"
          "\"encoding\":\"hex\"}",
          400, "encoding");
  tap_ok (parse ("{\"language\":\"python\",\"files\":[{\"name\":\"main.py\",\"content\":"
                 "{\"base64\":\"cHJpbnQoMSk=\"}}],\"stdin\":{\"base64\":\"AP8K\"},"
                 "\"args\":[{\"base64\":\"/w==\"}],\"compileLimits\":{\"wallTimeMs\":5000,"
                 "\"memoryMb\":64},\"encoding\":\"base64\"}",
                 &ex, &status, msg)
              == 0,
          "base64 content, stdin and args, compileLimits and encoding parse (%s)", msg);
  tap_ok (ex.files[0].len == 8 && memcmp (ex.files[0].content, "print(1)", 8) == 0
              && ex.stdin_len == 3 && (unsigned char)ex.stdin_data[0] == 0
              && (unsigned char)ex.stdin_data[1] == 0xff && (unsigned char)ex.args[0][0] == 0xff
              && ex.args[0][1] == '\0' && ex.base64_out,
          "they decode to their bytes");
  tap_ok (ex.limits.compile.wall_ms == 5000 && ex.limits.compile.memory_bytes == 64ULL << 20
              && ex.limits.compile.cpu_ms == RC_COMPILE_CPU_MS,
          "compileLimits lie over the compile step's own limits");
  rc_execute_request_free (&ex);

  {
    struct rc_buf b = { 0 };
    rc_v1_render_bytes (&b, "h\xc3\xa9\n", 4, false);
    tap_ok (strcmp (b.data, "\"h\xc3\xa9\\n\"") == 0, "UTF-8 output is a string: %s", b.data);
    rc_buf_reset (&b);
    rc_v1_render_bytes (&b, "\x00\xff", 2, false);
    tap_ok (strcmp (b.data, "{\"base64\":\"AP8=\"}") == 0, "other bytes are base64: %s", b.data);
    rc_buf_reset (&b);
    rc_v1_render_bytes (&b, "ok", 2, true);
    tap_ok (strcmp (b.data, "{\"base64\":\"b2s=\"}") == 0, "encoding base64: always: %s", b.data);
    rc_buf_reset (&b);
    rc_v1_render_output (&b, "ab\xc3", 3, false, true);
    tap_ok (strcmp (b.data, "\"ab\"") == 0, "text cut inside a character stays text: %s", b.data);
    rc_buf_reset (&b);
    rc_v1_render_output (&b, "ab\xc3", 3, false, false);
    tap_ok (strcmp (b.data, "{\"base64\":\"YWLD\"}") == 0,
            "the same bytes not cut are not text: %s", b.data);
    rc_buf_reset (&b);
    rc_v1_render_output (&b, "a\xff\xc3", 3, false, true);
    tap_ok (strncmp (b.data, "{\"base64\"", 9) == 0, "a cut does not excuse other bytes: %s",
            b.data);
    rc_buf_free (&b);
  }

  tap_ok (rc_exec_path_is_safe ("src/main.c", 10) && rc_exec_path_is_safe (".hidden", 7)
              && rc_exec_path_is_safe ("a..b", 4),
          "ordinary relative names are safe");
  tap_ok (!rc_exec_path_is_safe ("..", 2) && !rc_exec_path_is_safe ("a/..", 4)
              && !rc_exec_path_is_safe (".", 1) && !rc_exec_path_is_safe ("a/", 2)
              && !rc_exec_path_is_safe ("a\\b", 3) && !rc_exec_path_is_safe ("", 0),
          "dot components, trailing slash, backslash and empty names are not");

  tap_ok (rc_exec_run_command_is_simple ("python3 main.py")
              && rc_exec_run_command_is_simple ("/tmp/a.out")
              && rc_exec_run_command_is_simple ("java -cp /tmp/classes Main"),
          "a plain program with arguments is exec'd");
  tap_ok (!rc_exec_run_command_is_simple (". ./main.sh")
              && !rc_exec_run_command_is_simple ("source main.sh")
              && !rc_exec_run_command_is_simple ("cd /tmp"),
          "a builtin exec cannot run is left to sh");
  tap_ok (!rc_exec_run_command_is_simple ("A=1 prog") && !rc_exec_run_command_is_simple ("$P x")
              && !rc_exec_run_command_is_simple ("\"prog\" x"),
          "an assignment, expansion or quote in the first word is left to sh");
  tap_ok (!rc_exec_run_command_is_simple ("a; b") && !rc_exec_run_command_is_simple ("a | b")
              && !rc_exec_run_command_is_simple ("a > f") && !rc_exec_run_command_is_simple (""),
          "shell syntax and the empty command are left to sh");
  return tap_done ();
}
