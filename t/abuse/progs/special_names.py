# abuse: F22 files named with a newline, a leading dash, 255 bytes and invalid UTF-8; printed raw to stdout too
# expect: exit=0 stdout~made
import os
names = [b"a\nb", b"-rf", b"x" * 255, b"\xff\xfe\xc0\x80", b"..\\..\\x", b"\x1b[31mred", b"nul\x7f"]
made = 0
for d in (b"/sandbox", b"/tmp"):
    for n in names:
        try:
            with open(os.path.join(d, n), "wb") as f:
                f.write(b"x")
            made += 1
        except OSError:
            pass
os.write(1, b"raw bytes on stdout: \xff\xfe \xc0\x80 \x00 \x1b[2J\n")
print("made %d" % made, flush=True)
