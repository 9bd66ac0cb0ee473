"""`atc --singleop=list.json --output=<dir>`: one single-operator `.om` per entry of ATC's JSON list.

Each model (docs/om-format.md §10) is one plan with one node in the "cann" domain carrying the CANN op type and
the entry's attributes; the op's regular inputs and its outputs are the model's inputs and outputs (with their
dynamic dims and shape ranges), constant inputs are weights. As ATC: the whole file is parsed and checked
first (any error and no model is written); then every entry is built, an op type the runtime does not know
(csrc/op/cann_ops.def, through the generated `_cann_ops`) failing its entry with EZ3003 while the others are
still written, and the run fails if any entry did. Each written model is then checked by the runtime itself
(`ascendsimCheckOpModel`: parsed as aclopLoad parses it, its signature built as an execution builds it), so that
what the runtime would refuse — a layout or dtype no kernel runs, attributes the operator rejects, an output
description it does not produce — fails its entry here with EZ3002 and the runtime's reason, as ATC reports an
operator its kernels do not support, instead of failing at execution; such a model is not kept.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

from . import om_format as F
from ._cann_ops import CANN_OPS
from .errors import CompileError
from .ir import Graph, Value
from .memory import MemoryPlan, plan_weights
from .om_writer import OmModel, OmPlan, write_om
from .singleop_json import SingleOp, TensorSpec, parse_single_op_list
from .streams import StreamPlan


def compile_single_ops(json_path: str, output_dir: str, soc_version: str) -> list[Path]:
    """Writes the models of `json_path` into `output_dir`; returns their paths. Raises CompileError (ATC's
    codes) for a bad file, or after building the others when some entries failed."""
    ops = parse_single_op_list(json_path)
    for op in ops:
        _check_ir_counts(op)
    written: list[Path] = []
    failures: list[str] = []
    for op in ops:
        try:
            written.append(write_single_op(op, Path(output_dir) / op.file_name, soc_version))
        except CompileError as error:
            failures.append(str(error))
    if failures:
        raise CompileError("\n".join(failures))
    return written


def _check_ir_counts(op: SingleOp) -> None:
    """GE VerifyOpInputOutputSizeByIr: at least the inputs and outputs the operator requires."""
    if op.op_type not in CANN_OPS:
        return  # refused when built (EZ3003), as GE finds no kernel for it
    required_inputs, required_outputs = CANN_OPS[op.op_type]
    for role, count, required in (("input", len(op.inputs), required_inputs),
                                  ("output", len(op.outputs), required_outputs)):
        if count < required:
            raise CompileError(f"E13014: Value {count} of parameter {role} size for Op {op.name} is invalid. Reason: "
                               f"The number of actual {role} in operator is less than the required number of "
                               f"{role}s ({required}).")


def write_single_op(op: SingleOp, path: Path, soc_version: str) -> Path:
    if op.op_type not in CANN_OPS:
        raise CompileError(f"EZ3003: No supported Ops kernel and engine are found for [{op.name}], optype "
                           f"[{op.op_type}].")
    graph = Graph(path.stem)
    inputs = [_value(graph, spec) for spec in op.inputs]
    graph.inputs = [v for v, spec in zip(inputs, op.inputs) if spec.const is None]
    graph.outputs = [_value(graph, spec) for spec in op.outputs]
    graph.add_node(op.op_type, inputs, graph.outputs, attrs=dict(op.attrs), name=op.name, domain=F.CANN_DOMAIN)
    ranges = {v.name: spec.shape_range for v, spec in zip(inputs + graph.outputs, op.inputs + op.outputs)
              if spec.shape_range}
    plan = OmPlan(graph, StreamPlan(1, [], 0, 0), MemoryPlan(0, {}, "none", 0, 0))
    model = OmModel(path.stem, soc_version, [plan], plan_weights(graph), F.Precision.FORCE_FP32,
                    single_op=True, shape_ranges=ranges)
    try:
        write_om(path, model)
        image = path.read_bytes()
    except OSError as error:
        raise CompileError(f"E19999: cannot write {path}: {error.strerror}") from None
    reason = runtime_refusal(image)
    if reason is not None:
        path.unlink(missing_ok=True)
        raise CompileError(f"EZ3002: Optype [{op.op_type}] of Ops kernel [AIcoreEngine] is unsupported. Reason: "
                           f"{reason}.")
    return path


def runtime_refusal(image: bytes) -> str | None:
    """The runtime's reason for refusing a single-operator model image, None when it would run it."""
    from .. import _core  # the runtime's own check (csrc/op/op_check.h), the compiler's one use of the runtime

    buffer = ctypes.create_string_buffer(image, len(image))
    ret = _core.ascendsimCheckOpModel(ctypes.addressof(buffer), len(image))
    if ret == 0:
        return None
    message = re.sub(r"^\w+: ascendsimCheckOpModel: ", "", _core.aclGetRecentErrMsg())
    return f"{message} (the runtime's code {ret})"


def _value(graph: Graph, spec: TensorSpec) -> Value:
    value = graph.constant(spec.name, spec.const) if spec.const is not None else \
        graph.value(spec.name, spec.dtype, spec.shape)
    value.format = spec.format
    return value
