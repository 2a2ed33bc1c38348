/* env_table.h - a made-up environment for the configuration readers'
 * tests: an rc_getenv_fn over a NULL-terminated {name, value, ...} array. */
#ifndef RUNCELL_T_UNIT_ENV_TABLE_H
#define RUNCELL_T_UNIT_ENV_TABLE_H

#include <string.h>

static inline const char *
env_table_lookup (const char *name, void *ud)
{
  const char *const *kv = ud;
  for (; kv[0]; kv += 2)
    if (strcmp (kv[0], name) == 0)
      return kv[1];
  return NULL;
}

#endif
