"""Runtime microbenchmarks: `ascendsim bench` restricted to its runtime rows (ascendsim/bench/runtime.py).

    python benchmarks/bench_runtime.py [--json] [--quick] [NAME...]
"""

import sys

from ascendsim.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["bench", *(sys.argv[1:] if any(not a.startswith("-") for a in sys.argv[1:]) else
                              ["call", "malloc", "copy", "launch", "event", "callback", *sys.argv[1:]])]))
