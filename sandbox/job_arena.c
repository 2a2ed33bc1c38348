/* job_arena.c - a job spec copied into memory a pre-started init shares.
 *
 * A pre-started init (spawn.c) was forked before the request existed, so
 * the job's spec is not in its copy of the worker's memory.  Instead of
 * serialising it over the control socket, the worker deep-copies it into an
 * anonymous MAP_SHARED mapping made before that fork: the mapping sits at
 * the same address in both processes, so the copied pointers are valid in
 * the init as they are.  One job at a time uses the arena; the control
 * message that hands the job over orders the writes before the reads.
 *
 * Only what the init reads is copied: argv, environment, limits, the input
 * files, the template, skeleton and state paths and the cache list.  stdin
 * never goes through the init (the worker writes it into the pipe), so a
 * step's stdin_data becomes an empty marker that only says "has stdin".
 */
#include "config.h"

#include "sandbox/sandbox_internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct rc_job_arena
{
  size_t size;
  size_t used;
  struct rc_job_spec spec;
  struct rc_mount_plan plan;
  _Alignas(16) unsigned char data[];
};

struct rc_job_arena *
rc_job_arena_new (size_t size)
{
  struct rc_job_arena *a;
  /* MAP_NORESERVE: only the pages a job's files touch are ever backed. */
  a = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (a == MAP_FAILED)
    return NULL;
  a->size = size - offsetof (struct rc_job_arena, data);
  a->used = 0;
  return a;
}

void
rc_job_arena_free (struct rc_job_arena *a)
{
  if (a)
    munmap (a, a->size + offsetof (struct rc_job_arena, data));
}

static void *
arena_alloc (struct rc_job_arena *a, size_t n)
{
  size_t at = (a->used + 15) & ~(size_t)15;
  if (at > a->size || n > a->size - at)
    return NULL;
  a->used = at + n;
  return a->data + at;
}

static const char *
arena_bytes (struct rc_job_arena *a, const char *s, size_t n)
{
  char *d;
  if (s == NULL)
    return NULL;
  d = arena_alloc (a, n + 1);
  if (d == NULL)
    return NULL;
  memcpy (d, s, n);
  d[n] = '\0';
  return d;
}

static const char *
arena_str (struct rc_job_arena *a, const char *s)
{
  return s ? arena_bytes (a, s, strlen (s)) : NULL;
}

/* A copy of a NULL-terminated vector (n < 0) or of n entries. */
static const char *const *
arena_strv (struct rc_job_arena *a, const char *const *v, long n, bool *ok)
{
  const char **d;
  size_t count = 0, i;
  if (v == NULL)
    return NULL;
  if (n < 0)
    while (v[count])
      count++;
  else
    count = (size_t)n;
  d = arena_alloc (a, (count + 1) * sizeof (*d));
  if (d == NULL)
    {
      *ok = false;
      return NULL;
    }
  for (i = 0; i < count; i++)
    {
      d[i] = arena_str (a, v[i]);
      if (v[i] && d[i] == NULL)
        *ok = false;
    }
  d[count] = NULL;
  return d;
}

int
rc_job_arena_fill (struct rc_job_arena *a, const struct rc_job_spec *spec,
                   const struct rc_mount_plan *plan)
{
  struct rc_step *steps;
  struct rc_file *files = NULL;
  bool ok = true;
  size_t i;

  a->used = 0;
  a->spec = *spec;
  a->plan = *plan;
  a->plan.spec = &a->spec;
  a->spec.template_dir = arena_str (a, spec->template_dir);
  a->plan.skel_dir = arena_str (a, plan->skel_dir);
  if ((spec->template_dir && !a->spec.template_dir) || (plan->skel_dir && !a->plan.skel_dir))
    ok = false;
  a->spec.envp = arena_strv (a, spec->envp, -1, &ok);
  a->spec.overlay_paths = arena_strv (a, spec->overlay_paths, (long)spec->n_overlay_paths, &ok);
  a->spec.host_paths = arena_strv (a, spec->host_paths, (long)spec->n_host_paths, &ok);

  steps = arena_alloc (a, spec->n_steps * sizeof (*steps));
  if (steps == NULL)
    ok = false;
  for (i = 0; ok && i < spec->n_steps; i++)
    {
      steps[i] = spec->steps[i];
      steps[i].argv = arena_strv (a, spec->steps[i].argv, -1, &ok);
      steps[i].stdin_data = spec->steps[i].stdin_data ? "" : NULL;
      steps[i].stdin_len = 0;
    }
  a->spec.steps = steps;

  if (ok && spec->n_files)
    {
      files = arena_alloc (a, spec->n_files * sizeof (*files));
      if (files == NULL)
        ok = false;
      for (i = 0; ok && i < spec->n_files; i++)
        {
          files[i] = spec->files[i];
          files[i].path = arena_str (a, spec->files[i].path);
          files[i].data
              = arena_bytes (a, spec->files[i].data ? spec->files[i].data : "", spec->files[i].len);
          if (files[i].path == NULL || files[i].data == NULL)
            ok = false;
        }
    }
  a->spec.files = files;
  if (!ok)
    {
      errno = ENOSPC;
      return -1;
    }
  return 0;
}

const struct rc_mount_plan *
rc_job_arena_plan (const struct rc_job_arena *a)
{
  return &a->plan;
}

void
rc_job_arena_trim (struct rc_job_arena *a)
{
  /* A big job's files would otherwise stay resident (shared memory) until
   * a bigger one reuses the pages: give them back past the first 64 KiB. */
  uintptr_t from = ((uintptr_t)a->data + 64 * 1024 + 4095) & ~(uintptr_t)4095;
  uintptr_t to = ((uintptr_t)a->data + a->used + 4095) & ~(uintptr_t)4095;
  if (to > from)
    (void)madvise ((void *)from, to - from, MADV_REMOVE);
  a->used = 0;
}
