"""prestarted.py - the abuse suite (abuse.py) again with RUN_PRESTART=1:
every hostile program runs in a namespace init that was cloned and half
built before its job existed (sandbox/spawn.c, "the pre-started init"),
with the same safe outcome and the same slot, host and next-job checks,
and the request log must show that each job did run so.
"""

import os
import runpy

os.environ["RC_ABUSE_PRESTART"] = "1"
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "abuse.py"),
               run_name="__main__")
