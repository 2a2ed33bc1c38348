/* fds.h - descriptors a forked process must not keep. */
#ifndef RUNCELL_COMMON_FDS_H
#define RUNCELL_COMMON_FDS_H

#include <stddef.h>

/* Closes every descriptor from 3 up except those in keep[0..n) (sorted
 * in place), with close_range, so that nothing of the parent (a
 * listening socket, another slot's files) survives into a child that
 * outlives it. */
void rc_close_fds_except (int *keep, size_t n);

#endif
