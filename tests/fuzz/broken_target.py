"""A target that fails on purpose, one way per case, so that the tests can prove the harness sees each failure.

Case i runs `PLAN[i % len(PLAN)]`: "ok" is accepted, "refuse" is refused with code 7, "crash" kills the worker
with SIGSEGV, "hang" sleeps past the timeout, "raise" lets an exception out, "sanitizer" writes a UBSan-style
report to stderr and carries on (as UBSan does without halt_on_error). The harness must attribute each failure
to its case and go on with the next one in a fresh worker.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time

import harness

PLAN = ["ok", "crash", "refuse", "hang", "raise", "ok", "sanitizer", "ok"]


class Broken:
    name = "broken"
    suffix = ".bin"
    timeout = 2.0

    def setup(self) -> None:
        pass

    def generate(self, rng: random.Random, index: int) -> bytes:
        return PLAN[index % len(PLAN)].encode()

    def run(self, data: bytes) -> harness.Outcome:
        action = data.decode()
        if action == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif action == "hang":
            time.sleep(3600)
        elif action == "raise":
            raise KeyError("a binding that lets an exception out")
        elif action == "sanitizer":
            sys.stderr.write("csrc/x.cpp:1:2: runtime error: signed integer overflow\n")
            sys.stderr.flush()
        return harness.Outcome("refused", 7) if action == "refuse" else harness.Outcome("accepted")


if __name__ == "__main__":
    sys.exit(harness.main(Broken(), __file__))
