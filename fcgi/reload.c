/* reload.c - what a reload (SIGHUP, `systemctl reload runcell`) reads:
 * the configuration again (RUN_CONFIG_FILE, then the environment) and the
 * language registry, whose toolchains are probed afresh, so a language
 * installed since the start becomes available.
 *
 * What only a restart can change (the slots, their uids and cgroups, the
 * socket, the state directory: rc_config_keep_restart_only) keeps its
 * value and is named in the log.  A configuration that does not load, or
 * languages whose paths no job's root could hold, leave everything as it
 * was.  The master applies the rest (fcgi/master.c): the slots' roots,
 * then the workers, one by one.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/master.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void
log_language_changes (const struct rc_lang_table *old, const struct rc_lang_table *fresh)
{
  for (size_t i = 0; i < fresh->n; i++)
    {
      const struct rc_lang *l = &fresh->langs[i];
      const struct rc_lang *was = rc_lang_find (old, l->slug);
      if (was == NULL || was->available != l->available)
        rc_log (RC_LOG_INFO, "language", "%s: %s%s", l->slug,
                l->available ? "available" : l->unavailable_reason,
                was == NULL ? " (new)" : " (changed at reload)");
    }
}

int
rc_reload_load (const struct rc_config *old, const struct rc_lang_table *old_langs,
                const char *listen_override, enum rc_sandbox_mode mode, struct rc_config **cfg_out,
                struct rc_lang_table **langs_out, rc_err_t *err)
{
  struct rc_config *cfg = calloc (1, sizeof *cfg);
  struct rc_lang_table *langs = calloc (1, sizeof *langs);
  char *changed = NULL;

  if (cfg == NULL || langs == NULL)
    {
      free (cfg);
      free (langs);
      return rc_error_set (err, ENOMEM, "reload");
    }
  if (rc_config_reload_env (old, cfg, err) < 0)
    {
      free (cfg);
      free (langs);
      return rc_error_wrap (err, "reload: configuration");
    }
  if (listen_override)
    {
      free (cfg->listen);
      cfg->listen = strdup (listen_override);
    }
  if (rc_config_keep_restart_only (old, cfg, &changed) < 0)
    {
      rc_error_set (err, ENOMEM, "reload");
      goto fail;
    }
  if (changed)
    rc_log (RC_LOG_WARN, "reload_restart_only",
            "%s changed: only a restart applies %s; the running value is kept", changed,
            strchr (changed, ',') ? "them" : "it");
  free (changed);
  if (rc_lang_table_load (langs, cfg, err) < 0)
    {
      rc_error_wrap (err, "reload: languages");
      goto fail;
    }
  if (mode == RC_SANDBOX_ISOLATED && rc_sandbox_check_langs (langs, err) < 0)
    {
      rc_lang_table_free (langs);
      rc_error_wrap (err, "reload");
      goto fail;
    }
  log_language_changes (old_langs, langs);
  *cfg_out = cfg;
  *langs_out = langs;
  return 0;
fail:
  rc_config_free (cfg);
  free (cfg);
  free (langs);
  return -1;
}
