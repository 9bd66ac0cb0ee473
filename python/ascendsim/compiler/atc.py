"""The `atc` command line (ATC's flags, messages and exit codes).

As ATC: prints "ATC start working now, please wait for a moment.", a progress display while compiling (dots
on a terminal, like ATC; one line per stage with --log=info/debug), and "ATC run success, welcome to the next
use." on success (exit 0); on failure "ATC run failed, Please check the detail log, Try 'atc --help' for more
information" followed by the error (E10001-style for bad parameter values), exit 255 (ATC's main returns -1).
--mode=1 --om=x.om --json=x.json dumps an .om as JSON. Only --framework=5 (ONNX) is supported.
--singleop=list.json --output=<dir> compiles ATC's single-operator JSON list, one .om per entry (singleop.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import CompileError

START = "ATC start working now, please wait for a moment."
SUCCESS = "ATC run success, welcome to the next use."
FAILED = "ATC run failed, Please check the detail log, Try 'atc --help' for more information"
FRAMEWORKS = {0: "Caffe", 1: "MindSpore", 3: "TensorFlow", 5: "Onnx"}
LOG_LEVELS = ("debug", "info", "warning", "error", "null")
ERROR_CODE = re.compile(r"E[0-9A-Z]\d{4}: ")  # ATC's error codes: E10001, E13014, EZ3003, ...


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CompileError(f"E10001: {message}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="atc", add_help=False, usage="atc <args>")
    p.add_argument("--help", "--h", "-h", action="store_true")
    for flag in ("model", "output", "soc_version", "input_shape", "input_format", "out_nodes", "om", "json",
                 "precision_mode", "dynamic_batch_size", "dynamic_image_size", "dynamic_dims", "insert_op_conf",
                 "input_fp16_nodes", "output_type", "weight", "enable_single_stream", "singleop", "dump_graph",
                 "disable_optimizations"):
        p.add_argument(f"--{flag}", default="")
    p.add_argument("--framework", default="-1")
    p.add_argument("--mode", default="0")
    p.add_argument("--log", default="null")
    p.add_argument("--disable_reuse_memory", default="0")
    return p


HELP = """usage: atc <args>
generate offline model example:
atc --model=./resnet50.onnx --framework=5 --output=./resnet50 --soc_version=Ascend910B
  --mode              0: generate offline model (default); 1: convert an .om model to JSON
  --model             Model file (ONNX)
  --framework         Framework type. 5:Onnx (0:Caffe, 1:MindSpore, 3:Tensorflow are not supported by ascendsim)
  --om                The model file to be converted to json (--mode=1)
  --json              The output json file path&name (--mode=1)
  --output            Output file path&name (.om is appended); with --singleop, the output directory
  --singleop          Single-operator JSON list (one .om per operator, named as ATC names them)
  --soc_version       The soc version, e.g. Ascend910B
  --input_shape       "input_name1:n1,c1,h1,w1;input_name2:n2,c2,h2,w2" (-1 for dynamic dims; without a gear
                      option -1, ranges "1~512" and -2 (unknown rank) make a dynamic-shape model)
  --input_format      NCHW (default for 4-D inputs), ND or NCDHW
  --out_nodes         "node_name1:0;node_name2:1"
  --precision_mode    force_fp16(default), force_fp32, cube_fp16in_fp32out, allow_fp32_to_fp16, must_keep_origin_dtype
  --dynamic_batch_size  "1,2,4,8"
  --dynamic_image_size  "224,224;448,448"
  --dynamic_dims      "1,224;2,448"
  --input_fp16_nodes  "input_name1;input_name2"
  --output_type       FP32, FP16, INT8, UINT8, ... or "node:index:FP16;..."
  --insert_op_conf    static AIPP config file (aipp_op { aipp_mode: static input_format: RGB888_U8 ... })
  --enable_single_stream  true/false
  --disable_reuse_memory  0 (default) or 1
  --log               debug, info, warning, error, null(default): info and debug show every stage
ascendsim extensions:
  --dump_graph        directory: the graph after each optimisation stage as ONNX (also $ASCENDSIM_DUMP_GRAPH)
  --disable_optimizations  "pass_name1,pass_name2": passes to skip (like GE's ge.disableOptimizations)"""


def main(argv: Sequence[str] | None = None) -> int:
    print(START, flush=True)
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.help:
            print(HELP)
            return 0
        _run(args)
    except CompileError as error:
        print(FAILED, flush=True)
        print(str(error) if ERROR_CODE.match(str(error)) else f"E19999: {error}", flush=True)
        return 255
    except KeyboardInterrupt:
        print(FAILED)
        return 255
    except Exception as error:  # noqa: BLE001 -- a compiler bug must still end as ATC fails: failure line, exit 255, no .om
        print(FAILED, flush=True)
        print(f"E19999: internal error: {type(error).__name__}: {error}", flush=True)
        return 255
    print(SUCCESS, flush=True)
    return 0


def _invalid(flag: str, value: str, reason: str) -> CompileError:
    return CompileError(f"E10001: Value [{value}] for parameter [--{flag}] is invalid. Reason: {reason}")


def _run(args: argparse.Namespace) -> None:
    if args.log not in LOG_LEVELS:
        raise _invalid("log", args.log, f"The value must be one of {', '.join(LOG_LEVELS)}.")
    if args.singleop:
        _single_op(args)
        return
    if args.mode not in ("0", "1"):
        raise _invalid("mode", args.mode, "ascendsim supports 0 (generate offline model) and 1 (model to json).")
    if args.mode == "1":
        _to_json(args)
        return
    for flag in ("soc_version", "output", "model"):
        if not getattr(args, flag):
            raise CompileError(f"E10054: The required parameter [--{flag}] for ATC is empty.")
    if args.framework != "5":
        known = FRAMEWORKS.get(int(args.framework)) if args.framework.lstrip("-").isdigit() else None
        what = f"{known} is not supported" if known else "unknown framework"
        raise _invalid("framework", args.framework, f"{what}; ascendsim supports only 5 (Onnx).")
    if not Path(args.model).is_file() or not os.access(args.model, os.R_OK):
        raise _invalid("model", args.model, "The file does not exist or cannot be read.")
    if args.enable_single_stream not in ("", "true", "false"):
        raise _invalid("enable_single_stream", args.enable_single_stream, "The value must be true or false.")
    if args.disable_reuse_memory not in ("0", "1"):
        raise _invalid("disable_reuse_memory", args.disable_reuse_memory, "The value must be 0 or 1.")
    _check_output(args.output)
    if args.insert_op_conf and args.input_format not in ("", "NCHW", "NHWC"):
        raise _invalid("input_format", args.input_format, "With --insert_op_conf it must be NCHW or NHWC.")
    from .build import compile

    verbose = args.log in ("debug", "info")
    result = compile(
        args.model, args.output, soc_version=args.soc_version, input_shape=args.input_shape or None,
        input_format=args.input_format or None, out_nodes=args.out_nodes or None,
        precision_mode=args.precision_mode or None, input_fp16_nodes=args.input_fp16_nodes or None,
        output_type=args.output_type or None, dynamic_batch_size=args.dynamic_batch_size or None,
        dynamic_image_size=args.dynamic_image_size or None, dynamic_dims=args.dynamic_dims or None,
        insert_op_conf=args.insert_op_conf or None, single_stream=args.enable_single_stream == "true",
        disable_reuse_memory=args.disable_reuse_memory == "1", progress=_Progress(verbose),
        dump_graph=args.dump_graph or None,
        disabled_passes=[name.strip() for name in args.disable_optimizations.split(",") if name.strip()])
    if sys.stdout.isatty() and not verbose:
        print()
    # What the compiler did, as GE's log lines; every stage's detail with --log=info.
    print(result.summary() if verbose else result.brief(), flush=True)


def _single_op(args: argparse.Namespace) -> None:
    """ATC's CheckAndRunSingleOp / GenerateSingleOp: --output is a directory (created if missing)."""
    if args.framework != "-1" or args.insert_op_conf or args.mode != "0":
        raise _invalid("singleop", args.singleop, "When --singleop is specified, only one of the following "
                       "parameters can be used: {--display_model_info, --mode, --framework, --insert_op_conf}.")
    if args.model:
        raise CompileError("E10047: --singleop and --model are mutually exclusive.")
    if not args.soc_version:
        raise CompileError("E10054: The required parameter [--soc_version] for ATC is empty.")
    output = Path(args.output or ".")
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _invalid("output", args.output, f"The directory cannot be created: {error.strerror}.") from None
    if not os.access(output, os.W_OK):
        raise _invalid("output", args.output, "The directory is not writable.")
    from .singleop import compile_single_ops

    written = compile_single_ops(args.singleop, os.fspath(output), args.soc_version)
    print(f"{len(written)} single-operator model(s) in {os.fspath(output)}: "
          f"{', '.join(path.name for path in written)}", flush=True)


def _check_output(output: str) -> None:
    if Path(output).name in ("", ".", "..") or Path(output).is_dir():
        raise _invalid("output", output, "It names a directory; give a file name (.om is appended).")
    out_dir = Path(output).parent
    if not out_dir.is_dir() or not os.access(out_dir, os.W_OK):
        raise _invalid("output", output, f"The directory {os.fspath(out_dir) or '.'} does not exist or is not "
                                         "writable.")


class _Progress:
    """ATC prints dots while it works; with --log=info or debug each stage gets its own line."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose

    def __call__(self, stage: str) -> None:
        if self.verbose:
            print(f"[Build] {stage} ...", flush=True)
        elif sys.stdout.isatty():
            print(".", end="", flush=True)


def _to_json(args: argparse.Namespace) -> None:
    from .om_reader import OmFormatError, read_om

    if not args.om:
        raise CompileError("E10054: The required parameter [--om] for ATC is empty.")
    if not args.json:
        raise CompileError("E10054: The required parameter [--json] for ATC is empty.")
    if args.framework not in ("-1", "0", "3", "5"):
        raise _invalid("framework", args.framework, "The framework must be selected from {0(Caffe), 3(TensorFlow), "
                                                    "5(Onnx)} when model is set to 1(JSON).")
    try:
        parsed = read_om(args.om)
    except OmFormatError as error:
        raise _invalid("om", args.om, str(error)) from None
    tmp = Path(f"{args.json}.tmp{os.getpid()}")
    try:
        tmp.write_text(json.dumps(parsed.to_json(), indent=2))
        os.replace(tmp, args.json)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise _invalid("json", args.json, f"cannot be written: {error.strerror}") from None


if __name__ == "__main__":
    sys.exit(main())
