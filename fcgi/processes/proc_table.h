/* proc_table.h - the processes of /v1/processes, in memory the master maps
 * before it forks: the workers that create them, their supervisors and the
 * master that reaps those share it.
 *
 * Each process has an entry: its state, the pid that answers for it (the
 * worker creating it, then its supervisor) and its id.  A process is
 * ALIVE while its program runs (RUN_MAX_PROCESSES of them at most, the
 * count kept exactly by compare-and-swap), KEPT while its supervisor only
 * keeps its events and result (RUN_PROCESS_KEEP_S), LEAVING when it was
 * asked to go early.  When a supervisor dies, however it died, the master
 * frees its entry (rc_proc_table_reaped), so a crash never leaks a count.
 */
#ifndef RUNCELL_FCGI_PROCESSES_PROC_TABLE_H
#define RUNCELL_FCGI_PROCESSES_PROC_TABLE_H

#include <stdbool.h>
#include <sys/types.h>

/* The longest id: a session's process names its session (64 hex). */
#define RC_PROC_ID_MAX 64

/* Maps the table (MAP_SHARED, before any fork): max_alive alive at once,
 * as many kept, and room for those leaving. */
int rc_proc_table_create (unsigned max_alive);
/* A new process held by owner: its entry, counted alive; -1 when
 * max_alive are alive already. */
int rc_proc_table_reserve (pid_t owner, const char *id);
/* The entry changes hands (worker -> supervisor). */
bool rc_proc_table_transfer (int e, pid_t from, pid_t to);
/* Its program ended: KEPT, no longer counted.  When more are kept than
 * may be, the one kept longest is asked to leave (SIGTERM). */
void rc_proc_table_exited (int e, pid_t pid);
/* Gone: FREE (and uncounted if it was alive). */
void rc_proc_table_release (int e, pid_t pid);
/* The master reaped pid: frees the entries it held and calls gone with
 * each one's id.  True when it held one (it was a supervisor). */
bool rc_proc_table_reaped (pid_t pid, void (*gone) (const char *id, void *ud), void *ud);
unsigned rc_proc_table_alive (void);
/* Supervisors that exist (any state but FREE). */
unsigned rc_proc_table_supervisors (void);
/* sig to every supervisor (the master's drain). */
void rc_proc_table_signal (int sig);

#endif
