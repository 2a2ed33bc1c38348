/* execute_request_fuzz.c - libFuzzer target for the POST /v1/execute body
 * parser (fcgi/execute/execute_request.c, rc_execute_request_parse).
 *
 * The input is the request body, parsed against a small language table
 * (python with its alias py, c with a compile step, zig not installed,
 * bash without an execute command).  Promises checked:
 *  - a refusal is a 400 or a 501 with a message;
 *  - an accepted request names an installed language that has a run
 *    command; holds 1..max_files files whose names are distinct, relative,
 *    bounded, free of NUL, control characters, backslashes and of empty,
 *    "." and ".." components (checked here on their own, not only through
 *    rc_exec_path_is_safe); a NULL-terminated args vector of strings
 *    without NUL; and run limits that are the language's defaults (as
 *    rc_limits_resolve lays them for a request that asks nothing) or positive
 *    values within the ceilings;
 *  - it re-validates: written back as JSON (common/json_out.c, program
 *    data through the /v1 renderer: a string, or {"base64": ...} for bytes
 *    that are not UTF-8) and parsed again, it is the same request,
 *    compileLimits, encoding and tty included.
 */
#include "config.h"

#include "common/json_out.h"
#include "common/limits.h"
#include "fcgi/execute/execute_request.h"
#include "fcgi/execute/step_render.h"
#include "fuzz/fuzz.h"

#include <string.h>

#define MAX_FILES 8

static const int refused[] = { 400, 501, 0 };

static char *py_aliases[] = { (char *)"py", NULL };
static struct rc_lang langs[] = {
  { .slug = (char *)"python",
    .aliases = py_aliases,
    .available = true,
    .execute_run = (char *)"python3 \"$MAIN\"",
    .default_limits = { .wall_ms = 5000,
                        .idle_ms = 5000,
                        .cpu_ms = 5000,
                        .memory_bytes = 256ULL << 20,
                        .pids = 32,
                        .output_bytes = 64 << 10 } },
  { .slug = (char *)"c",
    .available = true,
    .execute_compile = (char *)"cc -o /tmp/a.out \"$MAIN\"",
    .execute_run = (char *)"/tmp/a.out",
    .default_limits = { .wall_ms = 1000,
                        .idle_ms = 1000,
                        .cpu_ms = 1000,
                        .memory_bytes = 64ULL << 20,
                        .pids = 8,
                        .output_bytes = 1 << 10 } },
  { .slug = (char *)"zig", .available = false, .execute_run = (char *)"zig run \"$MAIN\"" },
  { .slug = (char *)"bash", .available = true },
};
static const struct rc_lang_table table = { langs, sizeof langs / sizeof langs[0] };

static void
config (struct rc_config *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->max_files = MAX_FILES;
  cfg->limit_max.wall_ms = cfg->limit_max.idle_ms = cfg->limit_max.cpu_ms = 60000;
  cfg->limit_max.memory_bytes = 1ULL << 30;
  cfg->limit_max.pids = 64;
  cfg->limit_max.output_bytes = 1 << 20;
}

static uint64_t
limit_of (const struct rc_limits *l, size_t i)
{
  uint64_t v;
  memcpy (&v, (const char *)l + rc_limit_fields[i].off, sizeof v);
  return v;
}

/* The file name rules, on their own. */
static void
check_name (const char *name, size_t len)
{
  size_t comp_start = 0;
  FUZZ_CHECK (len > 0 && len <= RC_EXEC_PATH_MAX, "a file name is bounded");
  FUZZ_CHECK (strlen (name) == len, "a file name holds no NUL");
  FUZZ_CHECK (name[0] != '/', "a file name is relative");
  for (size_t i = 0; i <= len; i++)
    {
      unsigned char c = (unsigned char)name[i];
      if (i < len && c != '/')
        {
          FUZZ_CHECK (c >= 0x20 && c != 0x7f && c != '\\', "no control character or backslash");
          continue;
        }
      {
        size_t n = i - comp_start;
        const char *comp = name + comp_start;
        FUZZ_CHECK (n > 0, "no empty component");
        FUZZ_CHECK (n <= RC_EXEC_NAME_MAX, "a component is bounded");
        FUZZ_CHECK (!(n == 1 && comp[0] == '.'), "no '.' component");
        FUZZ_CHECK (!(n == 2 && comp[0] == '.' && comp[1] == '.'), "no '..' component");
      }
      comp_start = i + 1;
    }
}

static void
write_back (const struct rc_execute_request *r, struct rc_buf *b)
{
  bool first = true, first_limit = true;
  rc_buf_append (b, "{", 1);
  rc_json_key (b, &first, "language");
  rc_json_cstring (b, r->lang->slug);
  rc_json_key (b, &first, "files");
  rc_buf_append (b, "[", 1);
  for (size_t i = 0; i < r->n_files; i++)
    {
      bool f = true;
      rc_buf_append_str (b, i ? ",{" : "{");
      rc_json_key (b, &f, "name");
      rc_json_cstring (b, r->files[i].name);
      rc_json_key (b, &f, "content");
      rc_v1_render_bytes (b, r->files[i].content, r->files[i].len, false);
      rc_buf_append (b, "}", 1);
    }
  rc_buf_append (b, "]", 1);
  if (r->stdin_data)
    {
      rc_json_key (b, &first, "stdin");
      rc_v1_render_bytes (b, r->stdin_data, r->stdin_len, false);
    }
  rc_json_key (b, &first, "args");
  rc_buf_append (b, "[", 1);
  for (size_t i = 0; r->args[i]; i++)
    {
      if (i)
        rc_buf_append (b, ",", 1);
      rc_v1_render_bytes (b, r->args[i], strlen (r->args[i]), false);
    }
  rc_buf_append (b, "]", 1);
  rc_json_key (b, &first, "limits");
  rc_buf_append (b, "{", 1);
  for (size_t i = 0; i < rc_n_limit_fields; i++)
    {
      rc_json_key (b, &first_limit, rc_limit_fields[i].key);
      rc_json_u64 (b, limit_of (&r->limits.run, i) / rc_limit_fields[i].scale);
    }
  /* The compile step's, asked as they are (each is a default or was asked,
   * within the ceilings): resolved again, the same. */
  rc_buf_append_str (b, "},\"compileLimits\":{");
  first_limit = true;
  for (size_t i = 0; i < rc_n_limit_fields; i++)
    if (limit_of (&r->limits.compile, i) / rc_limit_fields[i].scale > 0)
      {
        rc_json_key (b, &first_limit, rc_limit_fields[i].key);
        rc_json_u64 (b, limit_of (&r->limits.compile, i) / rc_limit_fields[i].scale);
      }
  rc_buf_append_str (b, r->base64_out ? "},\"encoding\":\"base64\"" : "}");
  rc_buf_append_str (b, r->tty ? ",\"tty\":true}" : "}");
}

static void
check_same (const struct rc_execute_request *a, const struct rc_execute_request *b)
{
  size_t i;
  FUZZ_CHECK (a->lang == b->lang, "the language survives the round trip");
  FUZZ_CHECK (a->n_files == b->n_files, "the file count survives the round trip");
  for (i = 0; i < a->n_files; i++)
    {
      FUZZ_CHECK (strcmp (a->files[i].name, b->files[i].name) == 0, "file names survive");
      FUZZ_CHECK (a->files[i].len == b->files[i].len
                      && memcmp (a->files[i].content, b->files[i].content, a->files[i].len) == 0,
                  "file contents survive the round trip");
    }
  FUZZ_CHECK ((a->stdin_data == NULL) == (b->stdin_data == NULL), "stdin presence survives");
  if (a->stdin_data)
    FUZZ_CHECK (a->stdin_len == b->stdin_len
                    && memcmp (a->stdin_data, b->stdin_data, a->stdin_len) == 0,
                "stdin survives the round trip");
  for (i = 0; a->args[i] || b->args[i]; i++)
    FUZZ_CHECK (a->args[i] && b->args[i] && strcmp (a->args[i], b->args[i]) == 0,
                "args survive the round trip");
  FUZZ_CHECK (memcmp (&a->limits, &b->limits, sizeof a->limits) == 0,
              "limits survive the round trip");
  FUZZ_CHECK (a->base64_out == b->base64_out, "the encoding survives the round trip");
  FUZZ_CHECK (a->tty == b->tty, "tty survives the round trip");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct rc_execute_request r, again;
  struct rc_job_limits base;
  struct rc_config cfg;
  struct rc_buf body = { 0 };
  rc_err_t err = NULL;
  size_t i, nargs;

  config (&cfg);
  if (rc_execute_request_parse ((const char *)data, size, &cfg, &table, &r, &err) < 0)
    {
      fuzz_check_refusal (&err, refused);
      FUZZ_CHECK (r.files == NULL && r.args == NULL && r.n_files == 0, "a refusal frees");
      return 0;
    }
  FUZZ_CHECK (err == NULL, "an accepted request leaves the error empty");
  FUZZ_CHECK (r.lang != NULL && r.lang->available && r.lang->execute_run != NULL,
              "an accepted request names an installed language with a run command");
  FUZZ_CHECK (r.n_files >= 1 && r.n_files <= MAX_FILES, "1..max_files files");
  for (i = 0; i < r.n_files; i++)
    {
      FUZZ_CHECK (r.files[i].content && r.files[i].content[r.files[i].len] == '\0',
                  "a file's content is held with its length");
      check_name (r.files[i].name, strlen (r.files[i].name));
      FUZZ_CHECK (rc_exec_path_is_safe (r.files[i].name, strlen (r.files[i].name)),
                  "rc_exec_path_is_safe agrees");
      for (size_t j = 0; j < i; j++)
        FUZZ_CHECK (strcmp (r.files[i].name, r.files[j].name) != 0, "file names are distinct");
    }
  if (r.stdin_data)
    FUZZ_CHECK (r.stdin_data[r.stdin_len] == '\0', "stdin is held with its length");
  FUZZ_CHECK (r.args != NULL, "args is never NULL");
  for (nargs = 0; r.args[nargs]; nargs++)
    ;
  FUZZ_CHECK (nargs <= RC_EXEC_ARGS_MAX, "args are bounded");
  /* What the job gets when the request asks nothing: the language's
   * defaults as the one resolver (common/limits.c) lays them. */
  FUZZ_CHECK (rc_limits_resolve (&cfg, r.lang, RC_LIMITS_EXECUTE, NULL, &base, &err) == 0,
              "the defaults resolve");
  for (i = 0; i < rc_n_limit_fields; i++)
    {
      uint64_t v = limit_of (&r.limits.run, i), dflt = limit_of (&base.run, i);
      uint64_t ceiling = limit_of (&cfg.limit_max, i);
      FUZZ_CHECK (v == dflt || (v > 0 && v <= ceiling && v % rc_limit_fields[i].scale == 0),
                  "a limit is the default or a positive value within the ceiling");
    }

  write_back (&r, &body);
  if (rc_execute_request_parse (body.data, body.len, &cfg, &table, &again, &err) < 0)
    {
      fprintf (stderr, "written back: %.*s\nrefused: %s\n", (int)body.len, body.data, err->msg);
      FUZZ_CHECK (0, "an accepted request, written back, is accepted again");
    }
  check_same (&r, &again);
  rc_execute_request_free (&again);
  rc_execute_request_free (&r);
  rc_buf_free (&body);
  return 0;
}
