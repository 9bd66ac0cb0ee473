"""The `ascendsim` command line."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable

from . import toolkit_root
from .bench import cli as bench_cli


def environment() -> dict[str, str]:
    """The variables CANN's set_env.sh sets that sample build files and programs read."""
    root = toolkit_root()
    return {
        "ASCEND_TOOLKIT_HOME": str(root),
        "ASCEND_HOME_PATH": str(root),
        "DDK_PATH": str(root),
        "INSTALL_DIR": str(root),
        "NPU_HOST_LIB": str(root / "runtime" / "lib64" / "stub"),
    }


def search_paths() -> dict[str, str]:
    """Path lists the toolkit is put in front of: the loader's, CMake's (for find_package(ascendcl) and
    find_package(ASC)) and the shell's (bisheng and ccec, in compiler/ccec_compiler/bin as in CANN)."""
    root = toolkit_root()
    return {"LD_LIBRARY_PATH": str(root / "lib64"), "CMAKE_PREFIX_PATH": str(root),
            "PATH": str(root / "compiler" / "ccec_compiler" / "bin")}


def print_env() -> int:
    for name, value in environment().items():
        print(f"export {name}={shlex.quote(value)}")
    for name, value in search_paths().items():
        print(f"export {name}={shlex.quote(value)}${{{name}:+:${name}}}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ascendsim", description="CPU emulator of Huawei's CANN stack")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("env", help="print shell exports for building and running AscendCL programs "
                                    '(use: eval "$(ascendsim env)")')
    demo = commands.add_parser("demo", help="compile the embedded default model with atc, run it through pyACL, "
                                            "print top-5, latency and whether it matches the reference")
    demo.add_argument("--image", type=int, default=224, help="input image size (default 224)")
    demo.add_argument("--repeats", type=int, default=100, help="timed executions on each side (default 100)")
    runtime = commands.add_parser("runtime-demo", help="copies, events and callbacks on the emulated device")
    runtime.add_argument("--device", type=int, default=0)
    runtime.add_argument("--megabytes", type=int, default=64)
    memory = commands.add_parser("memory", help="print a device memory snapshot saved by "
                                                "ascendsim.save_memory_snapshot (segments, blocks, totals)")
    memory.add_argument("snapshot", help="the snapshot's JSON file")
    show = commands.add_parser("show", help="print an .om model: inputs, outputs, gears, AIPP, streams, events, "
                                            "planned memory, weights, nodes")
    show.add_argument("om", help="the .om file")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    summary = commands.add_parser("prof-summary", help="print the summary of the newest profiling session under a "
                                                       "directory (see docs/profiling.md)")
    summary.add_argument("directory", help="the profiler's output directory, or one PROF_* session in it")
    bench = commands.add_parser("bench", help="the microbenchmark suite: copies, malloc, launches, events, callbacks, "
                                              "model execution vs onnxruntime (see ascendsim bench --help)")
    bench_cli.add_arguments(bench)
    args = parser.parse_args(argv)
    return ACTIONS[args.command](args)


def run_memory(args: argparse.Namespace) -> int:
    from .memory_snapshot import print_snapshot_file

    return print_snapshot_file(args.snapshot)


def run_show(args: argparse.Namespace) -> int:
    from .show import show_model

    return show_model(args.om, as_json=args.json)


def run_demo(args: argparse.Namespace) -> int:
    from .inference_demo import run

    return 0 if run(args.image, args.repeats) else 1


def run_runtime_demo(args: argparse.Namespace) -> int:
    from .runtime_demo import run

    return 0 if run(args.device, args.megabytes) else 1


def run_prof_summary(args: argparse.Namespace) -> int:
    from .profiling import print_summary

    return print_summary(args.directory)


# What each command does (argparse refuses unknown commands); the modules load only for their command.
ACTIONS: dict[str, Callable[[argparse.Namespace], int]] = {
    "env": lambda args: print_env(), "demo": run_demo, "runtime-demo": run_runtime_demo, "memory": run_memory,
    "show": run_show, "prof-summary": run_prof_summary, "bench": bench_cli.run,
}


if __name__ == "__main__":
    sys.exit(main())
