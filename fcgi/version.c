/* version.c - the build's identity, for GET /version and /metrics. */
#include "config.h"

#include "fcgi/version.h"
#include "common/json_out.h"
#include "fcgi/build_info.h"

#ifdef __clang__
#define RC_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define RC_COMPILER "gcc " __VERSION__
#else
#define RC_COMPILER "unknown"
#endif

void
rc_version_json (struct rc_buf *out)
{
  bool first = true;
  rc_buf_append (out, "{", 1);
  rc_json_key (out, &first, "name");
  rc_json_cstring (out, PACKAGE_NAME);
  rc_json_key (out, &first, "version");
  rc_json_cstring (out, PACKAGE_VERSION);
  rc_json_key (out, &first, "commit");
  rc_json_cstring (out, RC_BUILD_COMMIT);
  rc_json_key (out, &first, "compiler");
  rc_json_cstring (out, RC_COMPILER);
  rc_buf_append (out, "}", 1);
}

void
rc_version_metric (struct rc_buf *out)
{
  /* Label values are plain: a version, a hex commit, a compiler banner
   * without quotes or backslashes. */
  rc_buf_printf (out,
                 "# HELP runcell_build_info The running build (always 1).\n"
                 "# TYPE runcell_build_info gauge\n"
                 "runcell_build_info{version=\"%s\",commit=\"%s\",compiler=\"%s\"} 1\n",
                 PACKAGE_VERSION, RC_BUILD_COMMIT, RC_COMPILER);
}
