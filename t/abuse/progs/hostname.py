# abuse: I8 the UTS name is the sandbox's, not the host's; sethostname is refused
# expect: exit=0 !stdout~@HOST_NAME@ stdout~denied\ssethostname
import ctypes
import os
import socket
print("nodename:", os.uname().nodename)
print("gethostname:", socket.gethostname())
libc = ctypes.CDLL(None, use_errno=True)
name = b"pwned"
if libc.sethostname(name, len(name)) == 0:
    print("ESCAPED sethostname")
else:
    print("denied sethostname:", ctypes.get_errno())
