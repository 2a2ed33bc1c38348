/* cgroup_parse_test.c - where sandbox/cgroup/cgroup.c thinks our cgroup lives, on
 * literal /proc/self/cgroup and /proc/self/mountinfo texts of layouts this
 * machine does not have: pure v2 under systemd, co-mounted cpu,cpuacct, a
 * container whose hierarchy mount is rooted below the hierarchy root, an
 * escaped mount point, and a missing controller (the error must name it).
 * No root, no kernel state.  TAP.
 */
#include "config.h"

#include "t/unit/tap.h"

#include "sandbox/cgroup/cgroup_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Expects dir (and, when want_mnt is set, the mount point) or an error
 * whose text contains want_err. */
static void
expect (const char *what, const char *cg, const char *mi, const char *ctl, const char *want_dir,
        const char *want_mnt, const char *want_err)
{
  char *dir = NULL, *mnt = NULL;
  rc_err_t err = NULL;
  int r = rc_cg_dir_from (cg, mi, ctl, &dir, &mnt, &err);

  if (want_err != NULL)
    tap_ok (r < 0 && err != NULL && strstr (err->msg, want_err) != NULL, "%s: error '%s'", what,
        err ? err->msg : "(none)");
  else
    tap_ok (r == 0 && strcmp (dir, want_dir) == 0 && (want_mnt == NULL || strcmp (mnt, want_mnt) == 0),
        "%s: %s", what,
        r == 0 ? dir
        : err  ? err->msg
               : "?");
  if (r == 0)
    {
      free (dir);
      free (mnt);
    }
  rc_error_free (&err);
}

/* This development machine (hybrid, memory cgroup nested). */
static const char hybrid_cg[] = "9:name=systemd:/\n"
                                "8:pids:/\n"
                                "5:devices:/\n"
                                "4:memory:/process_api/94b8\n"
                                "3:cpuset:/\n"
                                "2:cpuacct:/\n"
                                "1:cpu:/\n"
                                "0::/\n";
static const char hybrid_mi[]
    = "30 25 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "31 30 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "32 30 0:28 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
      "33 30 0:29 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
      "34 30 0:30 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "37 30 0:33 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
      "38 30 0:34 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
      "39 30 0:35 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* Debian 12 with systemd: pure v2, the service in its unit's cgroup. */
static const char v2_cg[] = "0::/system.slice/runcell.service\n";
static const char v2_mi[] = "25 30 0:22 / /sys rw,nosuid - sysfs sysfs rw\n"
                            "26 25 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec shared:4 - "
                            "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

/* Older systemd: cpu and cpuacct co-mounted, and a cpuset hierarchy whose
 * name starts with "cpu" (must not be taken for cpu). */
static const char comount_cg[] = "4:cpuset:/\n"
                                 "3:cpu,cpuacct:/system.slice/runcell.service\n"
                                 "2:memory:/system.slice/runcell.service\n"
                                 "1:pids:/system.slice/runcell.service\n";
static const char comount_mi[]
    = "40 30 0:40 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
      "41 30 0:41 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
      "42 30 0:42 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "43 30 0:43 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n";

/* A container without a cgroup namespace: the memory hierarchy is mounted
 * from /docker/abc, a decoy mount of /doc precedes it (a string prefix of
 * the path, not a path prefix), and the mount point has an escaped blank. */
static const char nested_cg[] = "4:memory:/docker/abc/runcell\n"
                                "3:pids:/docker/abc\n";
static const char nested_mi[]
    = "50 30 0:50 /doc /srv/decoy rw - cgroup cgroup rw,memory\n"
      "51 30 0:50 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "52 30 0:51 /docker/abc /sys/fs/cgroup/my\\040pids rw - cgroup cgroup rw,pids\n";

int
main (void)
{
  expect ("hybrid memory", hybrid_cg, hybrid_mi, "memory", "/sys/fs/cgroup/memory/process_api/94b8",
          "/sys/fs/cgroup/memory", NULL);
  expect ("hybrid pids at the root", hybrid_cg, hybrid_mi, "pids", "/sys/fs/cgroup/pids", NULL,
          NULL);
  expect ("hybrid cpu (not cpuset, not cpuacct)", hybrid_cg, hybrid_mi, "cpu", "/sys/fs/cgroup/cpu",
          "/sys/fs/cgroup/cpu", NULL);
  expect ("hybrid cpuacct", hybrid_cg, hybrid_mi, "cpuacct", "/sys/fs/cgroup/cpuacct", NULL, NULL);
  expect ("hybrid cgroup2 (controller-less)", hybrid_cg, hybrid_mi, NULL, "/sys/fs/cgroup/unified",
          NULL, NULL);
  expect ("hybrid: name=systemd is no controller", hybrid_cg, hybrid_mi, "systemd", NULL, NULL,
          "controller systemd not available");

  expect ("v2 under systemd", v2_cg, v2_mi, NULL, "/sys/fs/cgroup/system.slice/runcell.service",
          "/sys/fs/cgroup", NULL);
  expect ("v2 host has no v1 memory", v2_cg, v2_mi, "memory", NULL, NULL,
          "controller memory not available");

  expect ("co-mounted cpu", comount_cg, comount_mi, "cpu",
          "/sys/fs/cgroup/cpu,cpuacct/system.slice/runcell.service", "/sys/fs/cgroup/cpu,cpuacct",
          NULL);
  expect ("co-mounted cpuacct, same mount", comount_cg, comount_mi, "cpuacct",
          "/sys/fs/cgroup/cpu,cpuacct/system.slice/runcell.service", "/sys/fs/cgroup/cpu,cpuacct",
          NULL);
  expect ("cpuset still found by its own name", comount_cg, comount_mi, "cpuset",
          "/sys/fs/cgroup/cpuset", NULL, NULL);

  expect ("mount rooted at /docker/abc, decoy /doc skipped", nested_cg, nested_mi, "memory",
          "/sys/fs/cgroup/memory/runcell", "/sys/fs/cgroup/memory", NULL);
  expect ("own cgroup is the mount root; escaped blank", nested_cg, nested_mi, "pids",
          "/sys/fs/cgroup/my pids", NULL, NULL);
  expect ("missing controller is named", nested_cg, nested_mi, "cpuacct", NULL, NULL,
          "controller cpuacct not available");
  expect ("listed but not mounted is named", "5:cpuacct:/\n", nested_mi, "cpuacct", NULL, NULL,
          "controller cpuacct not available (no mount");

  tap_ok (rc_cg_list_has ("rw,cpu,cpuacct", "cpu") && rc_cg_list_has ("rw,cpu,cpuacct", "cpuacct")
          && !rc_cg_list_has ("rw,cpuset", "cpu") && rc_cg_list_has ("cpu io memory pids", "pids")
          && !rc_cg_list_has ("cpu io memory", "mem"),
      "list matching is by whole word");
  tap_ok (rc_cg_name_ok ("runcell") && !rc_cg_name_ok ("a/b") && !rc_cg_name_ok ("..")
          && !rc_cg_name_ok ("") && !rc_cg_name_ok (NULL),
      "subtree names are single components");

  return tap_done ();
}
