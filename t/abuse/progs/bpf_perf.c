/* abuse: P14 bpf(BPF_PROG_LOAD), bpf(BPF_MAP_CREATE) and perf_event_open */
/* expect: probe */
#include "probe.h"
#include <linux/bpf.h>
#include <linux/perf_event.h>

static long
try_prog_load (void *arg)
{
  struct bpf_insn insns[2];
  union bpf_attr a;
  (void) arg;
  memset (insns, 0, sizeof insns);
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
  insns[1].code = BPF_JMP | BPF_EXIT;
  memset (&a, 0, sizeof a);
  a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  a.insn_cnt = 2;
  a.insns = (unsigned long) insns;
  a.license = (unsigned long) "GPL";
  return syscall (__NR_bpf, BPF_PROG_LOAD, &a, sizeof a);
}

static long
try_map (void *arg)
{
  union bpf_attr a;
  (void) arg;
  memset (&a, 0, sizeof a);
  a.map_type = BPF_MAP_TYPE_ARRAY;
  a.key_size = 4;
  a.value_size = 4;
  a.max_entries = 1;
  return syscall (__NR_bpf, BPF_MAP_CREATE, &a, sizeof a);
}

static long
try_perf (void *arg)
{
  struct perf_event_attr pe;
  (void) arg;
  memset (&pe, 0, sizeof pe);
  pe.type = PERF_TYPE_SOFTWARE;
  pe.size = sizeof pe;
  pe.config = PERF_COUNT_SW_CPU_CLOCK;
  return syscall (__NR_perf_event_open, &pe, 0, -1, -1, 0);
}

int
main (void)
{
  probe ("bpf(BPF_PROG_LOAD)", try_prog_load, 0);
  probe ("bpf(BPF_MAP_CREATE)", try_map, 0);
  probe ("perf_event_open", try_perf, 0);
  return probe_done ();
}
