"""The `ascendsim` command line."""

from __future__ import annotations

import argparse
import shlex
import sys

from . import toolkit_root


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
    """Path lists the toolkit is put in front of: the loader's and CMake's (for find_package(ascendcl))."""
    root = toolkit_root()
    return {"LD_LIBRARY_PATH": str(root / "lib64"), "CMAKE_PREFIX_PATH": str(root)}


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
    demo.add_argument("--repeats", type=int, default=20)
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
    bench = commands.add_parser("bench", help="the microbenchmark suite: copies, malloc, launches, events, callbacks, "
                                              "model execution vs onnxruntime (see ascendsim bench --help)")
    from .bench.cli import add_arguments

    add_arguments(bench)
    args = parser.parse_args(argv)
    if args.command == "bench":
        from .bench.cli import run as run_bench

        return run_bench(args)
    if args.command == "memory":
        from .memory_snapshot import print_snapshot_file

        return print_snapshot_file(args.snapshot)
    if args.command == "show":
        from .show import show_model

        return show_model(args.om, as_json=args.json)
    if args.command == "env":
        return print_env()
    if args.command == "demo":
        from .inference_demo import run

        return 0 if run(args.image, args.repeats) else 1
    from .runtime_demo import run as run_runtime  # runtime-demo: the last command

    return 0 if run_runtime(args.device, args.megabytes) else 1


if __name__ == "__main__":
    sys.exit(main())
