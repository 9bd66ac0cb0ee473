"""Model execution benchmarks: `ascendsim bench` restricted to its model rows (ascendsim/bench/models.py).

    python benchmarks/bench_models.py [--json] [--quick] [NAME...]
"""

import sys

from ascendsim.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["bench", *(sys.argv[1:] if any(not a.startswith("-") for a in sys.argv[1:]) else
                              ["overhead", "chain", "sink", "concurrency", "resnet50", "mobilenet_v2", "bert_base",
                               *sys.argv[1:]])]))
