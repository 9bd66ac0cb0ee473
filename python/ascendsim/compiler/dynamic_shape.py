"""Dynamic-shape models (atc --input_shape with -1, lo~hi ranges or -2 and no gear option): the compile-time
checks and the console report.

The graph goes through the same passes with symbolic dims; what differs is the end of the pipeline. The
runtime's v2 path (csrc/model/hybrid_model.cpp) infers every node's output shape from the real input shapes
at each execution with a host-side shape function per op type (csrc/model/shape_fns*.cpp), so a node whose
op has none cannot run and is a compile error naming it. A node whose outputs are not static after
inference is *shape-dependent*: its output shape follows the input shapes (the console lists them; the .om
marks them, NodeFlag.SHAPE_DEPENDENT). If and Loop nodes run their subgraphs (each checked the same way);
their output shapes are known only once the subgraph ran. There is no static memory plan: feature maps are allocated per
execution from the device's caching allocator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .build_options import UNKNOWN_RANK, InputRanges
from .errors import CompileError
from .ir import CONTROL_FLOW_OPS, Graph, Node
from .memory import MemoryPlan
from .ops import lookup

# The op types (domain "" unless written "domain::Op") with a runtime shape function: the C++ table
# (csrc/model/shape_fns.cpp, shape_fns_layout.cpp) has the same entries (the loader refuses a node without one).
RUNTIME_SHAPE_OPS = frozenset({
    # elementwise, broadcasting
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "And", "Or", "Xor", "Where", "PRelu", "Mod", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "BitShift",
    "Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Not", "Cast", "Clip",
    "LeakyRelu", "Elu", "Selu", "HardSigmoid", "HardSwish", "Softplus", "Gelu", "Identity", "Floor", "Ceil",
    "Round", "Sign", "Sin", "Cos", "Dropout", "Softsign", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh",
    "Acosh", "Atanh", "IsInf", "IsNaN", "BitwiseNot", "CumSum", "Trilu", "LRN", "ScatterND", "ScatterElements",
    "ascendsim::FusedElementwise",
    # normalisation, softmax
    "Softmax", "LogSoftmax", "LayerNormalization", "BatchNormalization", "InstanceNormalization",
    "ascendsim::LayerNorm",
    # products, convolutions, pooling
    "MatMul", "Gemm", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
    # reductions, indexing
    "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSumExp",
    "ReduceSumSquare", "ArgMax", "ArgMin", "TopK", "GatherElements", "Size", "Pad",
    # layout and shape computation
    "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Gather", "Shape", "Slice", "Expand",
    "ConstantOfShape", "Range", "Split", "Tile",
})


@dataclass
class DynamicShapeInfo:
    """What the console shows of a dynamic-shape model, and the ranges MODEL_INOUT_INFO records."""

    inputs: dict[str, list[int]]  # --input_shape (-1 dynamic, [-2] unknown rank)
    ranges: InputRanges  # per dynamic input: (min, max) per dim; [] for an unknown-rank input
    shape_dependent: list[str] = field(default_factory=list)
    node_count: int = 0

    def report(self) -> str:
        def shown(name: str) -> str:
            if self.inputs[name] == [UNKNOWN_RANK]:
                return f"{name}:-2"
            dims = [d if d > 0 else (f"{lo}~{hi}" if (lo, hi) != (1, -1) else "-1")
                    for d, (lo, hi) in zip(self.inputs[name], self.ranges[name])]
            return f"{name}:{','.join(map(str, dims))}"

        listed = ", ".join(self.shape_dependent[:20]) + (" ..." if len(self.shape_dependent) > 20 else "")
        return (f"[Build] dynamic shape model: v2 runtime (shapes inferred and memory allocated per execution); "
                f"dynamic inputs {'; '.join(shown(n) for n in self.ranges)}\n"
                f"[Build] dynamic shape: {len(self.shape_dependent)} of {self.node_count} nodes are "
                f"shape-dependent: {listed}")


def runtime_op_name(node: Node) -> str:
    return f"{node.domain}::{node.op_type}" if node.domain else node.op_type


def check_dynamic(graph: Graph, shapes: dict[str, list[int]], ranges: InputRanges) -> DynamicShapeInfo:
    """Refuses what the v2 runtime cannot run (an op without shape function, a value-dependent output shape,
    an unknown dtype); returns the report and the input ranges (an unknown-rank input gets [])."""
    for node in graph.nodes:
        spec = lookup(node.op_type, node.domain)
        if spec is not None and spec.value_shaped:
            raise CompileError(f"node {node.name!r} ({node.op_type}): its output shape depends on the values of its "
                               "input, which the dynamic-shape runtime does not support")
        if runtime_op_name(node) not in RUNTIME_SHAPE_OPS and runtime_op_name(node) not in CONTROL_FLOW_OPS:
            raise CompileError(f"node {node.name!r} ({runtime_op_name(node)}): op {runtime_op_name(node)} has no "
                               "runtime shape function, so it cannot be compiled into a dynamic-shape model; ops "
                               "with one: " + ", ".join(sorted(RUNTIME_SHAPE_OPS)))
        for value in node.outputs:
            if value.dtype is None or value.shape is None:
                raise CompileError(f"node {node.name!r} ({node.op_type}): output {value.name!r} has no known dtype "
                                   "and rank")
    all_ranges: InputRanges = {}
    for value in graph.inputs:
        given = shapes.get(value.name)
        if given == [UNKNOWN_RANK]:
            all_ranges[value.name] = []
        elif given is not None and any(d < 0 for d in given):
            all_ranges[value.name] = ranges.get(value.name) or [(d, d) if d > 0 else (1, -1) for d in given]
    shape_dependent = [n.name for n in graph.nodes if not all(v.is_static for v in n.outputs)]
    return DynamicShapeInfo({n: shapes[n] for n in all_ranges}, all_ranges, shape_dependent, len(graph.nodes))


def dynamic_memory_plan(graph: Graph) -> MemoryPlan:
    """No static plan: every feature map is allocated at execution (the caching allocator reuses blocks)."""
    return MemoryPlan(0, {}, "dynamic (allocated per execution)", 0, 0)
