/* version.h - what GET /version and runcell_build_info say about the
 * build (fcgi/version.c; the commit comes from the generated
 * build_info.h, fcgi/Makefile.inc). */
#ifndef RUNCELL_FCGI_VERSION_H
#define RUNCELL_FCGI_VERSION_H

#include "common/job.h"

/* {"name":"runcell","version":...,"commit":...,"compiler":...} */
void rc_version_json (struct rc_buf *out);
/* The runcell_build_info gauge (always 1), its labels the same. */
void rc_version_metric (struct rc_buf *out);

#endif
