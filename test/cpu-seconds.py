#!/usr/bin/env python3
"""
Runs a command and prints the CPU time of it and of every process it started, when all have ended
(docs/testing.md#cpu-per-file):  python3 test/cpu-seconds.py npx vitest run test/browser/console.test.ts

`/usr/bin/time` misses most of Chromium's CPU (a page's 3 CPU-s loop showed as 1.1 in all): Chromium's processes
are not all waited for by their parents, and the CPU of a process no one waits for counts for no one. This script
is the subreaper of the command's processes (prctl PR_SET_CHILD_SUBREAPER): each orphan becomes its child, it
waits for each, and the kernel adds their CPU to its own children's.
"""

import ctypes
import os
import resource
import sys
import time

PR_SET_CHILD_SUBREAPER = 36

if len(sys.argv) < 2:
    sys.exit(__doc__)
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
started = time.monotonic()
command = os.fork()
if command == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
exit_code = 1
while True:
    try:
        pid, status = os.waitpid(-1, 0)
    except ChildProcessError:  # none left, orphans included
        break
    if pid == command:
        exit_code = os.waitstatus_to_exitcode(status)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(
    f"{time.monotonic() - started:.2f} s wall, {usage.ru_utime + usage.ru_stime:.2f} CPU-s "
    f"({usage.ru_utime:.2f} user, {usage.ru_stime:.2f} sys)",
    file=sys.stderr,
)
sys.exit(exit_code)
