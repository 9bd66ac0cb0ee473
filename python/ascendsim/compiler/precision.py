"""Precision modes (ATC's --precision_mode), --input_fp16_nodes and --output_type.

ATC's default is force_fp16 on every SoC (atc --help: "support force_fp16(default), ..."; the CANN ATC/AOE
parameter pages say the same; MindSpore's own default of must_keep_origin_dtype on Atlas A2 is a framework
setting, not ATC's). Modes:
- force_fp32 / cube_fp16in_fp32out / must_keep_origin_dtype: exact fp32, nothing changes. (On the device
  force_fp32 still feeds cube units fp16 inputs where the kernel prefers it; ascendsim keeps fp32 exact.)
- allow_fp32_to_fp16: cube ops (Conv, ConvTranspose, MatMul, Gemm, incl. fused epilogues) compute as the
  Cube unit does: inputs rounded to fp16, fp32 accumulation, output rounded to fp16. Vector ops stay fp32.
- force_fp16: as above, and every other float32 op's output is rounded to fp16 too (vector ops run in fp16).
Nodes are *marked* (NodeFlag bits in the .om, see docs/om-format.md) rather than rewritten with Cast nodes:
tensors keep their fp32 storage and the runtime rounds (round-to-nearest-even) at the marked points, which is
numerically what the device computes without needing fp16 kernels. Weights of marked cube ops are rounded
to fp16 values at compile time so the .om shows the precision actually used.

--input_fp16_nodes makes the named graph inputs float16 (a Cast to the original type is inserted after each);
--output_type makes graph outputs FP32/FP16/INT8/UINT8/... (a Cast is inserted before each). The inserted
Casts keep the user-visible tensor names.
"""

from __future__ import annotations

import numpy as np

from .errors import CompileError
from .ir import ASCENDSIM_DOMAIN, DType, Graph, Node, Value
from .om_format import NodeFlag, Precision

PRECISION_MODES = {
    "force_fp32": Precision.FORCE_FP32, "cube_fp16in_fp32out": Precision.FORCE_FP32,
    "must_keep_origin_dtype": Precision.MUST_KEEP_ORIGIN_DTYPE, "force_fp16": Precision.FORCE_FP16,
    "allow_fp32_to_fp16": Precision.ALLOW_FP32_TO_FP16,
}
DEFAULT_PRECISION_MODE = "force_fp16"
CUBE_OPS = frozenset({"Conv", "ConvTranspose", "MatMul", "Gemm"})
OUTPUT_TYPES = {"FP32": DType.FLOAT, "FP16": DType.FLOAT16, "INT8": DType.INT8, "UINT8": DType.UINT8,
                "INT16": DType.INT16, "UINT16": DType.UINT16, "INT32": DType.INT32, "INT64": DType.INT64,
                "UINT32": DType.UINT32, "UINT64": DType.UINT64, "DOUBLE": DType.DOUBLE}


def parse_precision_mode(mode: str | None) -> Precision:
    name = mode or DEFAULT_PRECISION_MODE
    if name not in PRECISION_MODES:
        raise CompileError(f"--precision_mode={name} is not supported; supported: {', '.join(PRECISION_MODES)}")
    return PRECISION_MODES[name]


def apply_precision(graph: Graph, precision: Precision) -> dict[str, int]:
    """Returns the NodeFlag bits per node name (only nodes that get a flag)."""
    flags: dict[str, int] = {}
    if precision not in (Precision.FORCE_FP16, Precision.ALLOW_FP32_TO_FP16):
        return flags
    for node in graph.nodes:
        floats_out = any(v.dtype == DType.FLOAT for v in node.outputs)
        if (node.op_type in CUBE_OPS and node.domain == "") or (node.op_type == "BlockedConv" and node.domain == ASCENDSIM_DOMAIN):
            flags[node.name] = NodeFlag.ROUND_INPUTS_FP16 | NodeFlag.ROUND_OUTPUTS_FP16
            _round_weights(node)
        elif precision == Precision.FORCE_FP16 and floats_out:
            flags[node.name] = int(NodeFlag.ROUND_OUTPUTS_FP16)
    return flags


def _round_weights(node: Node) -> None:
    """Constant fp32 inputs of a cube op (weights; the bias stays fp32 as the device adds it in fp32)."""
    limit = 2 if node.op_type in ("Conv", "ConvTranspose", "Gemm", "MatMul", "BlockedConv") else len(node.inputs)
    for value in node.inputs[:limit]:
        if value is not None and value.is_constant and value.dtype == DType.FLOAT:
            value.data = value.data.astype(np.float16).astype(np.float32)  # type: ignore[union-attr]


def apply_input_fp16(graph: Graph, names: list[str]) -> None:
    by_name = {v.name: v for v in graph.inputs}
    for name in names:
        if name not in by_name:
            raise CompileError(f"--input_fp16_nodes: {name!r} is not a model input; inputs: {', '.join(by_name)}")
        value = by_name[name]
        if value.dtype == DType.FLOAT16:
            continue
        if value.dtype not in (DType.FLOAT, DType.DOUBLE):
            raise CompileError(f"--input_fp16_nodes: input {name!r} is {value.dtype.name if value.dtype else '?'}, "
                               "only float inputs can be fed as fp16")
        inner = _rename_keep(graph, value)
        graph.inputs[graph.inputs.index(inner)] = value
        value.dtype, value.producer, value.consumers = DType.FLOAT16, None, []
        graph.add_node("Cast", [value], [inner], attrs={"to": int(inner.dtype)}, name=f"{name}_fp16_cast",
                              before=graph.nodes[0] if graph.nodes else None)


def apply_output_type(graph: Graph, spec: str) -> None:
    """spec: "FP16" for every output, or "node:index:TYPE;..." (node = producer name)."""
    spec = spec.strip()
    if not spec:
        return
    wanted: dict[int, DType] = {}
    if ":" not in spec:
        dtype = _output_type(spec)
        wanted = dict.fromkeys(range(len(graph.outputs)), dtype)
    else:
        for item in filter(None, spec.split(";")):
            parts = item.split(":")
            if len(parts) != 3 or not parts[1].isdigit():
                raise CompileError(f"--output_type: {item!r} is not node:index:TYPE")
            wanted[_output_index(graph, parts[0], int(parts[1]))] = _output_type(parts[2])
    for index, dtype in wanted.items():
        value = graph.outputs[index]
        if value.dtype == dtype:
            continue
        inner = _rename_keep(graph, value)
        graph.outputs[index] = value
        graph.add_node("Cast", [inner], [value], attrs={"to": int(dtype)}, name=f"{value.name}_output_cast")
        value.dtype = dtype


def _output_type(name: str) -> DType:
    if name.upper() not in OUTPUT_TYPES:
        raise CompileError(f"--output_type: {name!r} is not supported; supported: {', '.join(OUTPUT_TYPES)}")
    return OUTPUT_TYPES[name.upper()]


def _output_index(graph: Graph, node_name: str, index: int) -> int:
    for i, value in enumerate(graph.outputs):
        producer = value.producer
        if producer is not None and producer.name == node_name and producer.outputs.index(value) == index:
            return i
    raise CompileError(f"--output_type: {node_name}:{index} is not a model output")


def _rename_keep(graph: Graph, value: Value) -> Value:
    """Moves everything `value` does to a new Value (new name) and returns it; `value` keeps its name and is
    detached, ready to be re-attached at the boundary by the caller."""
    inner = graph.value(f"{value.name}_inner", value.dtype, value.shape)
    inner.format = value.format
    inner.producer = value.producer
    if value.producer is not None:
        value.producer.outputs = [inner if v is value else v for v in value.producer.outputs]
    for consumer in list(value.consumers):
        consumer.inputs = [inner if v is value else v for v in consumer.inputs]
        inner.consumers.append(consumer)
    value.consumers = []
    value.producer = None
    graph.inputs = [inner if v is value else v for v in graph.inputs]
    graph.outputs = [inner if v is value else v for v in graph.outputs]
    return inner
