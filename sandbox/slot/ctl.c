/* ctl.c - the control protocol's messages and the job spec's encoding;
 * see ctl.h. */
#include "config.h"

#include "sandbox/slot/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int
rc_ctl_send (int sock, const struct rc_ctl *m, const int *fds, size_t n_fds)
{
  char cbuf[CMSG_SPACE (RC_CTL_MAX_FDS * sizeof (int))];
  struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof *m };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  ssize_t k;

  if (n_fds > RC_CTL_MAX_FDS)
    {
      errno = EMSGSIZE;
      return -1;
    }
  if (n_fds > 0)
    {
      struct cmsghdr *c;
      memset (cbuf, 0, sizeof cbuf);
      mh.msg_control = cbuf;
      mh.msg_controllen = CMSG_SPACE (n_fds * sizeof (int));
      c = CMSG_FIRSTHDR (&mh);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (n_fds * sizeof (int));
      memcpy (CMSG_DATA (c), fds, n_fds * sizeof (int));
    }
  do
    k = sendmsg (sock, &mh, MSG_NOSIGNAL);
  while (k < 0 && errno == EINTR);
  if (k == (ssize_t)sizeof *m)
    return 0;
  if (k >= 0)
    errno = EPROTO;
  return -1;
}

int
rc_ctl_send_simple (int sock, uint32_t type, uint32_t step, int32_t value, const char *text)
{
  struct rc_ctl m = { .type = type, .step = step, .value = value };
  if (text)
    {
      size_t n = strlen (text);
      if (n >= sizeof m.text)
        n = sizeof m.text - 1;
      memcpy (m.text, text, n);
    }
  return rc_ctl_send (sock, &m, NULL, 0);
}

int
rc_ctl_recv (int sock, struct rc_ctl *m, int *fds, size_t max_fds, size_t *n_fds)
{
  char cbuf[CMSG_SPACE (RC_CTL_MAX_FDS * sizeof (int))];
  struct iovec iov = { .iov_base = m, .iov_len = sizeof *m };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  struct cmsghdr *c;
  ssize_t k;

  if (n_fds)
    *n_fds = 0;
  mh.msg_control = cbuf;
  mh.msg_controllen = sizeof cbuf;
  do
    k = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  while (k < 0 && errno == EINTR);
  if (k == 0)
    return 0;
  if (k < 0)
    return -1;
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        size_t n = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        int *got = (int *)(void *)CMSG_DATA (c);
        for (size_t i = 0; i < n; i++)
          {
            if (fds != NULL && n_fds != NULL && *n_fds < max_fds)
              fds[(*n_fds)++] = got[i];
            else
              close (got[i]); /* more than asked for: never leaked */
          }
      }
  if (k != (ssize_t)sizeof *m || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
    {
      for (size_t i = 0; fds && n_fds && i < *n_fds; i++)
        close (fds[i]);
      if (n_fds)
        *n_fds = 0;
      errno = EPROTO;
      return -1;
    }
  m->text[sizeof m->text - 1] = '\0';
  return 1;
}

/* ---- the meter ---- */

#define METER_V2 1u
#define METER_HAS(i) (1u << (8 + (i)))

void
rc_ctl_put_meter (struct rc_ctl *m, const struct rc_cgroup_meter *meter, int *fds, size_t *n_fds)
{
  m->flags = meter->v2 ? METER_V2 : 0;
  m->flags |= (uint32_t)meter->refault_key << 4;
  m->a = meter->base_bytes;
  m->b = meter->oom_base;
  m->c = meter->limit_bytes;
  for (int i = 0; i < RC_CG_METER_FDS; i++)
    if (meter->fd[i] >= 0)
      {
        m->flags |= METER_HAS (i);
        fds[(*n_fds)++] = meter->fd[i];
      }
}

int
rc_ctl_get_meter (const struct rc_ctl *m, const int *fds, size_t n_fds,
                  struct rc_cgroup_meter *meter)
{
  size_t used = 0;
  rc_cgroup_meter_init (meter);
  meter->v2 = (m->flags & METER_V2) != 0;
  meter->refault_key = (int)((m->flags >> 4) & 0xf);
  meter->base_bytes = m->a;
  meter->oom_base = m->b;
  meter->limit_bytes = m->c;
  for (int i = 0; i < RC_CG_METER_FDS; i++)
    if (m->flags & METER_HAS (i))
      {
        if (used >= n_fds)
          {
            errno = EPROTO;
            return -1;
          }
        meter->fd[i] = fds[used++];
      }
  return 0;
}

/* ---- the spec ---- */

#define SPEC_MAGIC 0x314a4352u /* "RCJ1" */

struct spec_hdr
{
  uint32_t magic;
  uint32_t n_steps, n_files, n_env;
  uint32_t workspace;
  uint32_t pad;
  uint32_t tmp, pad2; /* enum rc_tmp_kind */
  uint64_t tmp_bytes, tmp_inodes;
  uint64_t template_off; /* 0: none */
  uint64_t lang_off;     /* 0: none */
  uint64_t total;
};

struct step_rec
{
  struct rc_limits limits;
  uint64_t argv_off; /* an array of argc string offsets */
  uint32_t argc;
  uint8_t has_stdin, stop_on_failure, tty, pad;
};

struct file_rec
{
  uint64_t path_off, data_off, len;
  uint32_t mode, pad;
};

struct enc
{
  char *p;
  size_t len, cap;
};

static int
enc_reserve (struct enc *e, size_t n)
{
  if (e->len + n <= e->cap)
    return 0;
  size_t cap = e->cap ? e->cap : 4096;
  while (cap < e->len + n)
    cap *= 2;
  char *p = realloc (e->p, cap);
  if (p == NULL)
    return -1;
  e->p = p;
  e->cap = cap;
  return 0;
}

/* Appends n bytes (8-aligned) and returns their offset, 0 on failure
 * (offset 0 is the header's, never data's). */
static uint64_t
enc_put (struct enc *e, const void *data, size_t n)
{
  size_t off = (e->len + 7) & ~(size_t)7;
  if (enc_reserve (e, off - e->len + n + 1) < 0)
    return 0;
  memset (e->p + e->len, 0, off - e->len);
  if (n)
    memcpy (e->p + off, data, n);
  e->p[off + n] = '\0';
  e->len = off + n + 1;
  return off;
}

static uint64_t
enc_str (struct enc *e, const char *s)
{
  return enc_put (e, s, strlen (s));
}

/* The step records and their argv arrays; an errno value, 0 when done. */
static int
enc_steps (struct enc *e, const struct rc_job_spec *spec, uint64_t *steps_off)
{
  struct step_rec recs[16] = { 0 };
  if (spec->n_steps > 16)
    return E2BIG;
  for (size_t i = 0; i < spec->n_steps; i++)
    {
      const struct rc_step *st = &spec->steps[i];
      uint64_t offs[256];
      size_t argc = 0;
      for (; st->argv[argc]; argc++)
        {
          if (argc >= 256)
            return E2BIG;
          if ((offs[argc] = enc_str (e, st->argv[argc])) == 0)
            return ENOMEM;
        }
      recs[i].limits = st->limits;
      recs[i].argc = (uint32_t)argc;
      recs[i].has_stdin = st->stdin_data != NULL;
      recs[i].stop_on_failure = st->stop_on_failure;
      recs[i].tty = st->tty;
      if ((recs[i].argv_off = enc_put (e, offs, argc * sizeof offs[0])) == 0)
        return ENOMEM;
    }
  *steps_off = enc_put (e, recs, spec->n_steps * sizeof recs[0]);
  return *steps_off ? 0 : ENOMEM;
}

static int
enc_files (struct enc *e, const struct rc_job_spec *spec, uint64_t *files_off)
{
  struct file_rec *recs = calloc (spec->n_files + 1, sizeof *recs);
  if (recs == NULL)
    return ENOMEM;
  for (size_t i = 0; i < spec->n_files; i++)
    {
      recs[i].path_off = enc_str (e, spec->files[i].path);
      recs[i].data_off = enc_put (e, spec->files[i].data, spec->files[i].len);
      recs[i].len = spec->files[i].len;
      recs[i].mode = spec->files[i].mode;
      if (recs[i].path_off == 0 || recs[i].data_off == 0)
        {
          free (recs);
          return ENOMEM;
        }
    }
  *files_off = enc_put (e, recs, spec->n_files * sizeof *recs);
  free (recs);
  return *files_off ? 0 : ENOMEM;
}

static int
enc_env (struct enc *e, const struct rc_job_spec *spec, size_t n_env, uint64_t *env_off)
{
  uint64_t *offs = calloc (n_env + 1, sizeof *offs);
  if (offs == NULL)
    return ENOMEM;
  for (size_t i = 0; i < n_env; i++)
    if ((offs[i] = enc_str (e, spec->envp[i])) == 0)
      {
        free (offs);
        return ENOMEM;
      }
  *env_off = enc_put (e, offs, n_env * sizeof *offs);
  free (offs);
  return *env_off ? 0 : ENOMEM;
}

/* The header, then the strings and arrays; its offsets last. */
static int
enc_spec (struct enc *e, const struct rc_job_spec *spec)
{
  struct spec_hdr h = { .magic = SPEC_MAGIC };
  uint64_t tail[3], tail_off; /* the steps', files' and environment's offsets */
  size_t n_env = 0;
  int r;

  while (spec->envp && spec->envp[n_env])
    n_env++;
  h.n_steps = (uint32_t)spec->n_steps;
  h.n_files = (uint32_t)spec->n_files;
  h.n_env = (uint32_t)n_env;
  h.workspace = (uint32_t)spec->workspace;
  h.tmp = (uint32_t)spec->tmp;
  h.tmp_bytes = spec->tmp_bytes;
  h.tmp_inodes = spec->tmp_inodes;
  if (enc_reserve (e, sizeof h) < 0)
    return ENOMEM;
  memset (e->p, 0, sizeof h);
  e->len = sizeof h;
  if (spec->template_dir && (h.template_off = enc_str (e, spec->template_dir)) == 0)
    return ENOMEM;
  if (spec->lang && (h.lang_off = enc_str (e, spec->lang)) == 0)
    return ENOMEM;
  if ((r = enc_steps (e, spec, &tail[0])) != 0 || (r = enc_files (e, spec, &tail[1])) != 0
      || (r = enc_env (e, spec, n_env, &tail[2])) != 0)
    return r;
  if ((tail_off = enc_put (e, tail, sizeof tail)) == 0)
    return ENOMEM;
  if (tail_off >= UINT32_MAX)
    return E2BIG;
  h.total = e->len;
  h.pad = (uint32_t)tail_off; /* the index's offset; the spec is far below 4 GiB */
  memcpy (e->p, &h, sizeof h);
  return 0;
}

int
rc_ctl_spec_encode (const struct rc_job_spec *spec, int *memfd, rc_err_t *err)
{
  struct enc e = { 0 };
  int fd, r = enc_spec (&e, spec);

  if (r != 0)
    {
      free (e.p);
      return rc_error_set (err, r, "sandbox: job spec errno=%d: %s", r,
                           r == E2BIG ? "too many steps, too long an argv or too large" : "no memory");
    }
  fd = memfd_create ("runcell-job", MFD_CLOEXEC);
  if (fd < 0)
    {
      free (e.p);
      return rc_error_sys (err, "sandbox: memfd errno=%d", errno);
    }
  for (size_t off = 0; off < e.len;)
    {
      ssize_t k = write (fd, e.p + off, e.len - off);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        {
          int saved = errno;
          close (fd);
          free (e.p);
          return rc_error_set (err, saved, "sandbox: memfd write errno=%d", saved);
        }
      off += (size_t)k;
    }
  free (e.p);
  *memfd = fd;
  return 0;
}

/* A string at off: inside the map and NUL-terminated there. */
static const char *
dec_str (const char *base, size_t len, uint64_t off)
{
  if (off == 0 || off >= len || memchr (base + off, '\0', len - off) == NULL)
    return NULL;
  return base + off;
}

static const void *
dec_arr (const char *base, size_t len, uint64_t off, size_t count, size_t size)
{
  if (off == 0 || off > len || (off & 7) || (size && count > (len - off) / size))
    return NULL;
  return base + off;
}

int
rc_ctl_spec_decode (int memfd, struct rc_ctl_decoded *out)
{
  struct stat st;
  const struct spec_hdr *h;
  const uint64_t *tail;
  const struct step_rec *steps;
  const struct file_rec *files = NULL;
  const uint64_t *env = NULL;
  struct rc_step *osteps;
  struct rc_file *ofiles;
  const char **oenv;
  const char **argvs;
  size_t len, n_argv = 0;
  const char *base;
  char *alloc;

  memset (out, 0, sizeof *out);
  if (fstat (memfd, &st) < 0 || st.st_size < (off_t)sizeof *h)
    goto bad;
  len = (size_t)st.st_size;
  base = mmap (NULL, len, PROT_READ, MAP_PRIVATE, memfd, 0);
  if (base == MAP_FAILED)
    return -1;
  out->map = (void *)base;
  out->map_len = len;
  h = (const void *)base;
  if (h->magic != SPEC_MAGIC || h->total != len || h->n_steps == 0 || h->n_steps > 16
      || (tail = dec_arr (base, len, h->pad, 3, sizeof *tail)) == NULL
      || (steps = dec_arr (base, len, tail[0], h->n_steps, sizeof *steps)) == NULL
      || (h->n_files && (files = dec_arr (base, len, tail[1], h->n_files, sizeof *files)) == NULL)
      || (h->n_env && (env = dec_arr (base, len, tail[2], h->n_env, sizeof *env)) == NULL))
    goto bad;
  if (h->n_files == 0)
    files = NULL;
  if (h->n_env == 0)
    env = NULL;
  for (uint32_t i = 0; i < h->n_steps; i++)
    n_argv += steps[i].argc + 1;
  alloc = calloc (1, h->n_steps * sizeof *osteps + (h->n_files + 1) * sizeof *ofiles
                         + (h->n_env + 1) * sizeof *oenv + n_argv * sizeof *argvs);
  if (alloc == NULL)
    goto bad;
  out->alloc = alloc;
  osteps = (void *)alloc;
  ofiles = (void *)(osteps + h->n_steps);
  oenv = (void *)(ofiles + h->n_files + 1);
  argvs = oenv + h->n_env + 1;
  for (uint32_t i = 0; i < h->n_steps; i++)
    {
      const uint64_t *a = dec_arr (base, len, steps[i].argv_off, steps[i].argc, sizeof (uint64_t));
      if (a == NULL || steps[i].argc == 0)
        goto bad;
      osteps[i].argv = argvs;
      for (uint32_t j = 0; j < steps[i].argc; j++)
        if ((*argvs++ = dec_str (base, len, a[j])) == NULL)
          goto bad;
      *argvs++ = NULL;
      osteps[i].limits = steps[i].limits;
      /* The init only needs to know a step has stdin; the bytes are the
       * claimer's to write. */
      osteps[i].stdin_data = steps[i].has_stdin ? "" : NULL;
      osteps[i].stop_on_failure = steps[i].stop_on_failure;
      osteps[i].tty = steps[i].tty != 0;
    }
  for (uint32_t i = 0; i < h->n_files; i++)
    {
      ofiles[i].path = dec_str (base, len, files[i].path_off);
      if (ofiles[i].path == NULL || files[i].data_off == 0 || files[i].data_off > len
          || files[i].len > len - files[i].data_off)
        goto bad;
      ofiles[i].data = base + files[i].data_off;
      ofiles[i].len = files[i].len;
      ofiles[i].mode = files[i].mode;
    }
  for (uint32_t i = 0; i < h->n_env; i++)
    if ((oenv[i] = dec_str (base, len, env[i])) == NULL)
      goto bad;
  out->spec.steps = osteps;
  out->spec.n_steps = h->n_steps;
  out->spec.files = ofiles;
  out->spec.n_files = h->n_files;
  out->spec.envp = oenv;
  out->spec.workspace = (enum rc_workspace_kind)h->workspace;
  out->spec.tmp_bytes = h->tmp_bytes;
  out->spec.tmp_inodes = h->tmp_inodes;
  out->spec.bind_dirfd = -1;
  out->spec.tmp = (enum rc_tmp_kind)h->tmp;
  out->spec.tmp_dirfd = -1;
  if (h->template_off && (out->spec.template_dir = dec_str (base, len, h->template_off)) == NULL)
    goto bad;
  if (h->lang_off && (out->spec.lang = dec_str (base, len, h->lang_off)) == NULL)
    goto bad;
  if (out->spec.workspace != RC_WORKSPACE_TEMPLATE && out->spec.workspace != RC_WORKSPACE_BIND)
    goto bad;
  if (h->tmp > RC_TMP_OVERLAY)
    goto bad;
  return 0;
bad:
  rc_ctl_spec_free (out);
  errno = EPROTO;
  return -1;
}

void
rc_ctl_spec_free (struct rc_ctl_decoded *d)
{
  if (d->map)
    munmap (d->map, d->map_len);
  free (d->alloc);
  memset (d, 0, sizeof *d);
}
