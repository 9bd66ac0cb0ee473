"""`bisheng` (and the older `ccec`) for the emulator: compiles Ascend C sources with the host C++ compiler.

Each C++ or Ascend C input (`.asc`, `.cce`, `.cpp`, ...; `-x asc` / `-x cce` / `-x c++` decide for the files after
them) is translated (ascendc/source.py: `<<<>>>` launches, exported kernels), compiled with kernel_operator.h
pre-included and the toolkit's include directory, then everything is linked with libascendcl (an executable, or a
kernel shared object with -shared for aclrtBinaryLoad). CANN's options are accepted: those without meaning on a
CPU (--npu-arch, --npu-soc, --cce-aicore-arch, --cce-auto-sync, --sanitizer, -mllvm X) are checked and ignored, the
rest pass to the host compiler; an unknown option is refused. docs/ascendc.md."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import toolkit_root
from .source import launch_header, translate

NPU_ARCHES = {"dav-2201", "dav-3510", "dav-c100", "dav-m200", "dav-m200-vec", "dav-c220", "dav-c220-vec",
              "dav-c220-cube", "dav-3002"}
CXX_SUFFIXES = {".asc", ".cce", ".cpp", ".cc", ".cxx", ".c++", ".C"}
LINK_SUFFIXES = {".o", ".a", ".so"}
LANGUAGES = {"asc": "asc", "cce": "asc", "c++": "c++", "c": "c", "none": None}
# Options passed to the host compiler as they are: flags, and flags whose value follows as the next argument.
PASS_FLAGS = ("-O", "-g", "-f", "-W", "-D", "-U", "-I", "-L", "-l", "-m", "-std=", "-pthread", "-rdynamic", "-w",
              "-M", "-pipe", "-s", "-v", "-E", "-S")
PASS_WITH_VALUE = {"-I", "-L", "-l", "-D", "-U", "-include", "-isystem", "-iquote", "-MF", "-MT", "-MQ", "-Xlinker"}
IGNORED_WITH_VALUE = {"-mllvm"}
IGNORED_PREFIXES = ("--npu-soc=", "--cce-auto-sync", "--sanitizer", "--cce-enable-print", "-march=dav-")


class UsageError(Exception):
    pass


@dataclass
class Invocation:
    sources: list[tuple[Path, str]] = field(default_factory=list)  # (file, language)
    link_inputs: list[str] = field(default_factory=list)
    compile_flags: list[str] = field(default_factory=list)
    link_flags: list[str] = field(default_factory=list)
    output: str | None = None
    compile_only: bool = False
    shared: bool = False
    npu_arch: str = "dav-2201"


def _language_of(path: Path, forced: str | None) -> str | None:
    if forced is not None:
        return forced
    if path.suffix in (".asc", ".cce"):
        return "asc"
    if path.suffix in CXX_SUFFIXES:
        return "c++"
    if path.suffix == ".c":
        return "c"
    return None


def _take_value(args: list[str], i: int, option: str) -> str:
    if i + 1 >= len(args):
        raise UsageError(f"option '{option}' needs a value")
    return args[i + 1]


def _npu_arch(option: str, value: str) -> str:
    if value not in NPU_ARCHES:
        raise UsageError(f"{option}: unknown NPU architecture '{value}' (one of {', '.join(sorted(NPU_ARCHES))})")
    return value


def _option(inv: Invocation, args: list[str], i: int) -> int:
    """Takes the option args[i] (and its value); returns how many arguments it used."""
    arg = args[i]
    if arg == "-o":
        inv.output = _take_value(args, i, arg)
        return 2
    if arg == "-c":
        inv.compile_only = True
    elif arg == "-shared":
        inv.shared = True
        inv.link_flags.append(arg)
    elif arg.startswith(("--npu-arch=", "--cce-aicore-arch=")):
        inv.npu_arch = _npu_arch(arg.split("=", 1)[0], arg.split("=", 1)[1])
    elif arg.startswith("--std="):
        inv.compile_flags.append("-std=" + arg.split("=", 1)[1])
    elif arg.startswith(IGNORED_PREFIXES):
        pass
    elif arg in IGNORED_WITH_VALUE:
        _take_value(args, i, arg)
        return 2
    elif arg in PASS_WITH_VALUE:
        value = _take_value(args, i, arg)
        (inv.link_flags if arg in ("-L", "-l", "-Xlinker") else inv.compile_flags).extend([arg, value])
        return 2
    elif arg.startswith(("-Wl,", "-L", "-l")) or arg in ("-pthread", "-rdynamic", "-s"):
        inv.link_flags.append(arg)
    elif arg.startswith(PASS_FLAGS):
        inv.compile_flags.append(arg)
        if arg.startswith(("-f", "-m", "-O", "-g")):
            inv.link_flags.append(arg)  # -fPIC, -fsanitize=..., -O2 matter to the link as well
    else:
        raise UsageError(f"unknown option '{arg}'")
    return 1


def parse(args: list[str]) -> Invocation:
    inv = Invocation()
    language: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-x" or (arg.startswith("-x") and len(arg) > 2):
            value = _take_value(args, i, arg) if arg == "-x" else arg[2:]
            if value not in LANGUAGES:
                raise UsageError(f"-x: unknown language '{value}' (asc, cce, c++, c or none)")
            language = LANGUAGES[value]
            i += 2 if arg == "-x" else 1
        elif arg.startswith("-") and arg != "-":
            i += _option(inv, args, i)
        else:
            path = Path(arg)
            lang = _language_of(path, language)
            if path.suffix in LINK_SUFFIXES and language is None:
                inv.link_inputs.append(arg)
            elif lang is None:
                raise UsageError(f"{arg}: unknown file type (use -x asc, -x cce or -x c++)")
            else:
                inv.sources.append((path, lang))
            i += 1
    if not inv.sources and not inv.link_inputs:
        raise UsageError("no input files")
    if inv.compile_only and inv.output and len(inv.sources) > 1:
        raise UsageError("-o with -c and several inputs")
    return inv


def _arch_number(npu_arch: str) -> str:
    return {"dav-c100": "1001", "dav-m200": "2002", "dav-m200-vec": "2002", "dav-3510": "3510",
            "dav-3002": "3002"}.get(npu_arch, "2201")


def _compile(inv: Invocation, source: Path, language: str, output: str) -> int:
    """Compiles one input. A C++ or Ascend C source is translated and fed to g++ on stdin (#line keeps the
    diagnostics and __FILE__ in the user's file; a dependency file lists the headers, not a temporary file)."""
    root = toolkit_root()
    if language == "c":
        return _run(["gcc", *inv.compile_flags, f"-I{root / 'include'}", "-c", str(source), "-o", output])
    text = translate(source, source.read_text(encoding="utf-8", errors="replace"))
    standard = [] if any(f.startswith("-std=") for f in inv.compile_flags) else ["-std=c++17"]
    # Vector instructions are loops over runtime counts: GCC's -O2 cost model would leave them scalar.
    return _run(["g++", *standard, "-fno-math-errno", "-fvect-cost-model=dynamic", f"-D__NPU_ARCH__={_arch_number(inv.npu_arch)}", "-DASCENDSIM=1",
                 "-include", "kernel_operator.h", f"-I{root / 'include'}", f"-I{source.resolve().parent}",
                 *inv.compile_flags, "-c", "-x", "c++", "-", "-o", output], stdin=text)


def _run(command: list[str], stdin: str | None = None) -> int:
    if os.environ.get("ASCENDSIM_BISHENG_VERBOSE"):
        print(shlex.join(command), file=sys.stderr)
    return subprocess.run(command, input=stdin, text=True, check=False).returncode


def build(inv: Invocation) -> int:
    root = toolkit_root()
    with tempfile.TemporaryDirectory(prefix="bisheng-") as tmp:
        objects = []
        for index, (source, language) in enumerate(inv.sources):
            if inv.compile_only:
                output = inv.output or str(Path(source.name).with_suffix(".o"))
            else:
                output = str(Path(tmp) / f"{index}_{source.stem}.o")
            if rc := _compile(inv, source, language, output):
                return rc
            objects.append(output)
        if inv.compile_only:
            return 0
        lib = root / "lib64"
        return _run(["g++", *objects, *inv.link_inputs, "-o", inv.output or "a.out", *inv.link_flags, f"-L{lib}",
                     "-lascendcl", f"-Wl,-rpath,{lib}"])


HEADERS_OPTION = "--ascendsim-launch-headers="


def write_launch_headers(directory: str, sources: list[str]) -> int:
    """ascendc_library's step (cmake/asc/ascendc.cmake): aclrtlaunch_<kernel>.h for every kernel of the sources."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for source in sources:
        for name, text in launch_header(Path(source).read_text(encoding="utf-8", errors="replace")).items():
            (out / name).write_text(text, encoding="utf-8")
    return 0


def main(argv: list[str] | None = None, program: str = "bisheng") -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0].startswith(HEADERS_OPTION):
        return write_launch_headers(args[0][len(HEADERS_OPTION):], args[1:])
    if args in (["--version"], ["-v"]):
        print(f"{program} (ascendsim's Ascend C driver for the emulator; host compiler: g++)")
        return 0
    try:
        return build(parse(args))
    except UsageError as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        return 2


def ccec_main() -> int:
    return main(program="ccec")


if __name__ == "__main__":
    sys.exit(main(program=os.environ.get("ASCENDSIM_DRIVER_NAME", "bisheng")))
