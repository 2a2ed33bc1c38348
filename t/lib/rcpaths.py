"""rcpaths.py - where the source tree and the build tree are, for every
test: RC_TOP_SRCDIR / RC_TOP_BUILDDIR when `make check` sets them, else
found from here, so a single test file runs alone (t/run FILE, or
`PYTHONPATH=t/lib python3 FILE` from the source tree).

The build tree is the first of: the current directory, <src>/_build,
<src> itself (an in-tree build), that holds a built runcell-fcgi."""

import os

SRCDIR = os.environ.get("RC_TOP_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..")
)


def _find_build():
    if os.environ.get("RC_TOP_BUILDDIR"):
        return os.environ["RC_TOP_BUILDDIR"]
    for d in (os.getcwd(), os.path.join(SRCDIR, "_build"), SRCDIR):
        if os.access(os.path.join(d, "runcell-fcgi"), os.X_OK):
            return os.path.abspath(d)
    return SRCDIR


BUILDDIR = _find_build()
