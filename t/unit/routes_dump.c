/* routes_dump.c - prints every route the router serves, one "METHOD PATH"
 * a line, for t/unit/openapi.py (the router's own table, not a copy). */
#include <config.h>

#include "fcgi/app.h"

#include <stdio.h>

static void
print_route (const struct rc_route_info *r, void *ud)
{
  (void)ud;
  printf ("%s %s\n", r->method, r->path);
}

int
main (void)
{
  rc_route_list (print_route, NULL);
  return fflush (stdout) == 0 ? 0 : 1;
}
