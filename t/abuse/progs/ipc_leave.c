/* abuse: R27/R28 leave SysV shm, msg, sem and a POSIX mqueue behind for the next request */
/* expect: exit=0 stdout~left */
/* next: clean_check.py */
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

int
main (void)
{
  int shm = shmget (0x5a5a, 1 << 20, IPC_CREAT | 0666);
  int msg = msgget (0x5a5b, IPC_CREAT | 0666);
  int sem = semget (0x5a5c, 4, IPC_CREAT | 0666);
  mqd_t mq = mq_open ("/rc-abuse", O_CREAT | O_RDWR, 0666, 0);
  if (shm >= 0)
    {
      char *p = (char *) shmat (shm, 0, 0);
      if (p != (char *) -1)
        memset (p, 's', 1 << 20);
    }
  if (msg >= 0)
    {
      struct
      {
        long type;
        char text[64];
      } m = { 1, "left for the next request" };
      msgsnd (msg, &m, sizeof m.text, IPC_NOWAIT);
    }
  printf ("shm=%d msg=%d sem=%d mq=%d left\n", shm, msg, sem, (int) mq);
  return 0;
}
