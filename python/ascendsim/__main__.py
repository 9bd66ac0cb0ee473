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
    summary = commands.add_parser("prof-summary", help="print the summary of the newest profiling session under a "
                                                       "directory (see docs/profiling.md)")
    summary.add_argument("directory", help="the profiler's output directory, or one PROF_* session in it")
    args = parser.parse_args(argv)
    if args.command == "env":
        return print_env()
    if args.command == "demo":
        from .inference_demo import run

        return 0 if run(args.image, args.repeats) else 1
    if args.command == "runtime-demo":
        from .runtime_demo import run as run_runtime

        return 0 if run_runtime(args.device, args.megabytes) else 1
    if args.command == "prof-summary":
        from .profiling import latest_session, profile_summary

        try:
            session = latest_session(args.directory)
        except FileNotFoundError as error:
            print(f"ascendsim prof-summary: {error}", file=sys.stderr)
            return 1
        print(f"{session / 'trace.json'}: open it in https://ui.perfetto.dev or chrome://tracing\n")
        print(profile_summary(session), end="")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
