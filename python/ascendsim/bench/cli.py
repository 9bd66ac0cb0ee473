"""The `ascendsim bench` command line (kept free of the suite's imports: numpy, onnx, onnxruntime load only when
it runs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .groups import ALL as GROUPS

DESCRIPTION = ("ascendsim bench: the microbenchmark suite, every figure beside its peer or physical limit measured "
               "in the same run.")
FAIRNESS = f"""\
rows (select with NAME patterns or --only: a group, a row name, a name prefix or a glob such as 'copy.c.*.1MiB'):
  groups: {", ".join(GROUPS)}
  call/malloc/copy/launch/event/callback: the runtime against glibc malloc, memcpy, a spinning-thread handoff and an
  uncontended mutex; ascendc: an Ascend C kernel's launch vs the empty task, its vector add vs memcpy; overhead/chain: aclmdlExecute per call and per node vs onnxruntime; sink: one model of N small
  ops (aclmdlExecute) vs the same ops one by one (aclopExecuteV2); concurrency: two streams vs one; kernels: each
  convolution and MatMul class vs OpenBLAS and onnxruntime in GFLOP/s; resnet50, mobilenet_v2, bert_base,
  efficientnet_b0, shufflenet_v1, densenet121, convnext_tiny, vit_b16: latency vs onnxruntime at 1 and 2 threads.
  docs/benchmarks.md describes every row.

figures: the median of 7 repeats (--quick: 3) after a warm-up and [min-max]; ours and the peer take turns within each repeat.
ratio: of times (< 1: ascendsim faster), and of the minima (steadier on a busy machine); copies as bandwidth.

to measure fairly:
  - an idle machine: the header prints the load average at start and end (about 0 when idle; with 2 CPUs one busy
    process elsewhere halves the 2-thread figures). Compare ratios from one run, not figures across runs.
  - threads: the measuring processes set ASCENDSIM_NUM_THREADS (1 for the micro rows, 1 and 2 for the models) and
    onnxruntime gets intra_op_num_threads equal to it; leave OPENBLAS_NUM_THREADS / OMP_NUM_THREADS unset (the
    header lists any it saw).
  - BLAS variables: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, if set, are removed from the measuring processes only
    (they pin OpenBLAS to a slower kernel); the header says so and names the core OpenBLAS picked.
  - pinning: `taskset -c 0,1 ascendsim bench` keeps the run on chosen CPUs (the header shows the usable CPUs);
    pin nothing else there.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = DESCRIPTION
    parser.epilog = FAIRNESS
    parser.add_argument("names", nargs="*", metavar="NAME", help="rows to run (default: all); see below")
    parser.add_argument("--only", default="", help="comma-separated NAMEs, as the positional ones")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats: seconds (for tests)")
    parser.add_argument("--json", action="store_true", help="print the header, rows and raw figures as JSON")
    parser.add_argument("--plot", type=Path, metavar="DIR", help="write PNG charts to DIR (needs matplotlib)")
    parser.add_argument("--progress", action="store_true", help="draw the progress bar on stderr even when it "
                                                                "is not a terminal")


def run(args: argparse.Namespace) -> int:
    try:
        from .suite import main
    except ImportError as error:  # onnxruntime is a test dependency, not a runtime one
        raise SystemExit(f"ascendsim bench needs {error.name} (pip install onnxruntime matplotlib): {error}") from None
    return main(args)
