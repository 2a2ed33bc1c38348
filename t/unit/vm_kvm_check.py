"""vm_kvm_check.py - t/vm/run-vm's KVM verdict, the one ./quickstart asks
before it installs or builds anything for the cgroup v2 guest.

kvm_state() is fed made-up hosts (a /dev/kvm that opens or not, CPU flags
with or without vmx/svm, a kvm_pvm module or none), so each verdict is
checked on this machine whatever its own KVM is; then `run-vm --kvm-check`
on the real host must print the marker and exit with the status that
matches kvm_state() there.  Needs no root.
"""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

import tap

t = tap.Tap()
SRC = os.environ.get("RC_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
RUN_VM = os.path.join(SRC, "t", "vm", "run-vm")
# run-vm has no .py suffix: load it by its path.
loader = importlib.machinery.SourceFileLoader("run_vm", RUN_VM)
spec = importlib.util.spec_from_loader("run_vm", loader)
run_vm = importlib.util.module_from_spec(spec)
loader.exec_module(run_vm)

tmp = tempfile.TemporaryDirectory(prefix="rc-kvmcheck-")
dev = os.path.join(tmp.name, "kvm")
with open(dev, "w"):
    pass
closed = os.path.join(tmp.name, "no-such-kvm")
modules = os.path.join(tmp.name, "module")
os.makedirs(modules)


def cpuinfo(name, flags):
    """A cpuinfo with two CPUs, as the kernel lists them."""
    path = os.path.join(tmp.name, name)
    with open(path, "w") as f:
        for cpu in (0, 1):
            f.write("processor\t: %d\nvendor_id\t: AuthenticAMD\n"
                    "flags\t\t: %s\n\n" % (cpu, flags))
    return path


svm = cpuinfo("svm", "fpu vme de pse tsc msr pae cx8 apic sep svm npt lm")
vmx = cpuinfo("vmx", "fpu vme de pse tsc msr pae vmx ept lm")
# This machine's flags: a hypervisor bit but neither vmx nor svm.
soft = cpuinfo("soft", "fpu vme de pse tsc msr pae hypervisor lm cx16 xsave")
noflags = os.path.join(tmp.name, "noflags")
with open(noflags, "w") as f:
    f.write("processor\t: 0\n")

state, why = run_vm.kvm_state(closed, svm, modules)
t.eq(state, "closed", "a /dev/kvm that does not open is KVM-CLOSED")
t.ok("does not open" in why, "the reason says it does not open", why)

t.eq(run_vm.kvm_state(dev, svm, modules)[0], "kvm", "svm: KVM-OK")
t.eq(run_vm.kvm_state(dev, vmx, modules)[0], "kvm", "vmx: KVM-OK")

state, why = run_vm.kvm_state(dev, soft, modules)
t.eq(state, "soft", "no vmx/svm: KVM-NO-BOOT, the hypervisor flag does not count")
t.ok("software backend" in why and "kvm_pvm" not in why,
     "without kvm_pvm loaded the reason names no module", why)
os.makedirs(os.path.join(modules, "kvm_pvm"))
state, why = run_vm.kvm_state(dev, soft, modules)
t.eq(state, "soft", "no vmx/svm with kvm_pvm: KVM-NO-BOOT")
t.ok("kvm_pvm" in why, "the reason names kvm_pvm", why)
t.eq(run_vm.kvm_state(dev, svm, modules)[0], "kvm",
     "svm wins over a kvm_pvm module (hardware KVM is there)")

t.eq(run_vm.kvm_state(dev, noflags, modules)[0], "kvm",
     "no flags to read: left to the boot probe (KVM tried)")
t.eq(run_vm.kvm_state(dev, os.path.join(tmp.name, "missing"), modules)[0], "kvm",
     "no cpuinfo at all: left to the boot probe")

# The real host, through the command line ./quickstart uses.
want_state, want_why = run_vm.kvm_state()
want = {"kvm": (0, "KVM-OK"), "closed": (2, "KVM-CLOSED"), "soft": (3, "KVM-NO-BOOT")}
rc, mark = want[want_state]
p = subprocess.run([sys.executable, RUN_VM, "--kvm-check"], capture_output=True,
                   text=True, timeout=60)
t.eq(p.returncode, rc, "run-vm --kvm-check exits %d on this host (%s)" % (rc, want_why))
t.eq(p.stdout.strip(), "# vm: %s: %s" % (mark, want_why),
     "and prints one line: the marker and the reason", p.stderr)
t.exit()
