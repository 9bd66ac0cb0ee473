"""The graph IR shared by every compiler stage.

A Graph owns Values (tensors: dtype, shape with static or symbolic dims, format, and constant data for
weights) and Nodes (an op type with attributes, reading input Values and producing output Values).
Nodes are kept in topological order; every Value knows its producer and its consumers, so passes can
rewrite the graph locally (replace all uses, remove a node) without rescanning it. Op types are ONNX's
(domain "") or ascendsim's own fused kernels (domain "ascendsim"); the exporter turns any stage back
into ONNX so it can be opened in Netron and run by onnxruntime.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

Dim = Union[int, str]  # a static size, or the name of a symbolic (dynamic) dimension
Shape = tuple[Dim, ...]

ASCENDSIM_DOMAIN = "ascendsim"
# ONNX's control-flow ops the compiler takes (onnx_control_flow.py): their subgraphs live in the root graph's
# `subgraphs`, their attributes name them by index; the v2 runtime runs them (csrc/model/control_flow.cpp).
CONTROL_FLOW_OPS = frozenset({"If", "Loop"})


class DType(enum.IntEnum):
    """Tensor element types, numbered as AscendCL's aclDataType (the `.om` file and runtime use these)."""

    FLOAT = 0
    FLOAT16 = 1
    INT8 = 2
    INT32 = 3
    UINT8 = 4
    INT16 = 6
    UINT16 = 7
    UINT32 = 8
    INT64 = 9
    UINT64 = 10
    DOUBLE = 11
    BOOL = 12

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(_NUMPY_OF[self])

    @property
    def itemsize(self) -> int:
        return self.numpy.itemsize

    @classmethod
    def of_numpy(cls, dtype: np.dtype | type) -> DType:
        name = np.dtype(dtype).name
        for member, numpy_name in _NUMPY_OF.items():
            if numpy_name == name:
                return member
        raise ValueError(f"no AscendCL data type for numpy dtype {name}")


_NUMPY_OF = {
    DType.FLOAT: "float32", DType.FLOAT16: "float16", DType.INT8: "int8", DType.INT32: "int32",
    DType.UINT8: "uint8", DType.INT16: "int16", DType.UINT16: "uint16", DType.UINT32: "uint32",
    DType.INT64: "int64", DType.UINT64: "uint64", DType.DOUBLE: "float64", DType.BOOL: "bool",
}


@dataclass(eq=False)
class Value:
    """A tensor edge. `shape` is None while unknown; `data` holds the contents of constants (weights)."""

    name: str
    dtype: DType | None = None
    shape: Shape | None = None
    format: str = "ND"
    data: np.ndarray | None = None
    producer: Node | None = field(default=None, repr=False)
    consumers: list[Node] = field(default_factory=list, repr=False)

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def is_static(self) -> bool:
        return self.shape is not None and all(isinstance(d, int) for d in self.shape)

    @property
    def nbytes(self) -> int:
        """Size in bytes of a statically shaped tensor."""
        if not self.is_static or self.dtype is None:
            raise ValueError(f"value {self.name!r} has no static shape and dtype: {self.shape} {self.dtype}")
        # Python ints: numpy's int64 product wraps, and [2**40, 2**40] would come out as 0 bytes.
        return math.prod(self.shape) * self.dtype.itemsize  # type: ignore[arg-type]


@dataclass(eq=False)
class Node:
    """An operation. Optional inputs that are absent are None. `stream` is set by stream assignment."""

    name: str
    op_type: str
    inputs: list[Value | None]
    outputs: list[Value]
    attrs: dict[str, Any] = field(default_factory=dict)
    domain: str = ""
    stream: int = 0

    def input(self, index: int) -> Value | None:
        return self.inputs[index] if index < len(self.inputs) else None

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)

    def __repr__(self) -> str:
        ins = ", ".join(v.name if v else "-" for v in self.inputs)
        outs = ", ".join(v.name for v in self.outputs)
        return f"{self.op_type}[{self.name}]({ins}) -> {outs}"


class Graph:
    """Nodes in topological order plus the graph's inputs and outputs (Values)."""

    def __init__(self, name: str = "graph", opset: int = 17) -> None:
        self.name = name
        self.opset = opset
        self.nodes: list[Node] = []
        self.inputs: list[Value] = []
        self.outputs: list[Value] = []
        self.values: dict[str, Value] = {}
        self.subgraphs: list[Graph] = []  # (root graph) every If/Loop subgraph, nested ones included
        self._names = itertools.count()

    # ---- creation -------------------------------------------------------------------------------------

    def unique_name(self, base: str) -> str:
        name = base
        while name in self.values:
            name = f"{base}_{next(self._names)}"
        return name

    def value(self, name: str, dtype: DType | None = None, shape: Sequence[Dim] | None = None) -> Value:
        """A new Value with a unique name based on `name`."""
        created = Value(self.unique_name(name), dtype, tuple(shape) if shape is not None else None)
        self.values[created.name] = created
        return created

    def constant(self, name: str, data: np.ndarray) -> Value:
        """A new constant Value (a weight or folded tensor)."""
        array = np.asarray(data)
        created = self.value(name, DType.of_numpy(array.dtype), array.shape)
        created.data = array
        return created

    def add_node(self, op_type: str, inputs: Sequence[Value | None], outputs: Sequence[Value] | int = 1, *,
                 attrs: dict[str, Any] | None = None, name: str | None = None, domain: str = "",
                 before: Node | None = None) -> Node:
        """Creates a node; `outputs` may be Values or a count of new Values. Appended at the end, or
        inserted just before `before` (which keeps the order topological when `before` uses the outputs)."""
        node_name = name or f"{op_type}_{next(self._names)}"
        if isinstance(outputs, int):
            outputs = [self.value(f"{node_name}_out{i}" if outputs > 1 else f"{node_name}_out") for i in range(outputs)]
        node = Node(node_name, op_type, list(inputs), list(outputs), dict(attrs or {}), domain)
        for value in node.inputs:
            if value is not None:
                value.consumers.append(node)
        for value in node.outputs:
            value.producer = node
            self.values.setdefault(value.name, value)
        if before is None:
            self.nodes.append(node)
        else:
            self.nodes.insert(self.nodes.index(before), node)
        return node

    # ---- rewriting ------------------------------------------------------------------------------------

    def set_input(self, node: Node, index: int, value: Value | None) -> None:
        old = node.inputs[index]
        if old is not None:
            old.consumers.remove(node)
        node.inputs[index] = value
        if value is not None:
            value.consumers.append(node)

    def replace_all_uses(self, old: Value, new: Value) -> None:
        """Every reader of `old` reads `new` instead, graph outputs included."""
        for consumer in list(old.consumers):
            for index, value in enumerate(consumer.inputs):
                if value is old:
                    self.set_input(consumer, index, new)
        self.outputs = [new if v is old else v for v in self.outputs]

    def remove_node(self, node: Node) -> None:
        """Removes `node`; its outputs must have no remaining consumers."""
        for value in node.outputs:
            if value.consumers or value in self.outputs:
                raise ValueError(f"cannot remove {node}: output {value.name!r} is still used")
        for value in node.inputs:
            if value is not None:
                value.consumers.remove(node)
        for value in node.outputs:
            value.producer = None
            self.values.pop(value.name, None)
        self.nodes.remove(node)

    def topological_sort(self) -> None:
        """Reorders nodes so that every node comes after the producers of its inputs (stable; iterative,
        so a chain of any depth sorts without recursion)."""
        placed: set[int] = set()
        order: list[Node] = []
        for root in self.nodes:
            stack: list[tuple[Node, bool]] = [(root, False)]
            on_path: set[int] = set()
            while stack:
                node, expanded = stack.pop()
                if id(node) in placed:
                    continue
                if expanded:
                    on_path.discard(id(node))
                    placed.add(id(node))
                    order.append(node)
                    continue
                if id(node) in on_path:
                    raise ValueError(f"the graph has a cycle through {node}")
                on_path.add(id(node))
                stack.append((node, True))
                for value in reversed(node.inputs):
                    if value is not None and value.producer is not None and id(value.producer) not in placed:
                        if id(value.producer) in on_path:
                            raise ValueError(f"the graph has a cycle through {value.producer}")
                        stack.append((value.producer, False))
        self.nodes = order

    # ---- queries --------------------------------------------------------------------------------------

    def constants(self) -> Iterator[Value]:
        return (v for v in self.values.values() if v.is_constant)

    def count_ops(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for node in self.nodes:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
        return counts

    def find_nodes(self, op_types: Iterable[str]) -> list[Node]:
        wanted = set(op_types)
        return [n for n in self.nodes if n.op_type in wanted]

    def __repr__(self) -> str:
        return f"Graph({self.name!r}, {len(self.nodes)} nodes, inputs={[v.name for v in self.inputs]}, " \
               f"outputs={[v.name for v in self.outputs]})"
