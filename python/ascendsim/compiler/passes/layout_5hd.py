"""NC1HWC0 layout: convolution chains run on Ascend's 5-D format (5HD), as ATC gives them on the device and as
onnxruntime's NCHWc transformer does on x86.

In NC1HWC0 [N, C1, H, W, 16] a pixel's 16 channels of a block are one contiguous line, so a conv's register
tile reads and writes whole lines (no im2col, no transposes: csrc/kernels/blocked_conv.cpp). The pass walks the
nodes once in topological order and keeps, per NCHW value, its NC1HWC0 twin:

- A float32 2-D Conv with constant weights and bias, group 1 or depthwise, in a region where the layout
  pays (layout_5hd_regions.py: one holding a depthwise conv, with no more border crossings than convs),
  becomes ascendsim::BlockedConv on its input's twin (a TransData NCHW -> NC1HWC0 makes one when the input
  has none and at least 16 channels); its output gets a twin. A stem (at most 4 input channels, no twin:
  blocks of 16 would multiply its work by five) becomes a BlockedConv on its NCHW image when the kernel's
  few-channel direct conv takes it, writing NC1HWC0 (no TransData after it); else it stays NCHW.
- A node that only combines values channel by channel runs unchanged on the twins when a tensor input has
  one (the others get theirs by TransData): elementwise ops and an inference BatchNormalization (as a
  per-channel Mul and Add), with tensor inputs of the output's shape or per-channel [N, C, 1, 1] and
  constants that are scalars or per channel (re-laid out); GlobalAveragePool / GlobalMaxPool (a ReduceMean /
  ReduceMax over H and W); MaxPool / AveragePool (a 3-D pool of kernel 1 over the 16 lanes: the NC1HWC0 pool,
  where a stem's pool kept the stem NCHW and a TransData after the pool); Concat on the channels when every
  input but the last fills whole blocks.
- Every original value still read by a node left in NCHW, or a graph output, is then made from its twin by a
  TransData NC1HWC0 -> NCHW; the others go.

Invariant: the lanes past C in a twin's last block are zero (the TransData and BlockedConv kernels write them
so), because a conv sums over every lane of a block. An elementwise op keeps it when C fills whole blocks, or
when it maps zero inputs to zero (checked by running the node's host kernel on zeros: Relu, Add, x * sigmoid(x)
do; Sigmoid does not, and stays in NCHW there).

Static shapes only: the v2 runtime has no shape functions for these ops (subgraphs run without this pass).
"""

from __future__ import annotations

import numpy as np

from .. import host_kernels
from ..host_layout_kernels import to_blocked
from ..ir import ASCENDSIM_DOMAIN, CONTROL_FLOW_OPS, DType, Graph, Node, Value
from ..ops.layout import C0, NC1HWC0, NCHW, blocked_shape
from .elementwise_fusion import fusable
from .layout_5hd_regions import profitable_convs, winning_classes
from .manager import register_pass
from .report import PassStats
from .rewrite import detach, is_graph_output

LAYOUT_PASS = "nc1hwc0_layout"
MAX_DEPTHWISE_TAPS = 256  # the kernel's tap lists (blocked_conv.cpp)
MAX_STEM_CHANNELS, MAX_STEM_WINDOW = 4, 7  # the few-channel direct conv's limits (stem_conv.cpp)
WINOGRAD_MIN_TILES = 16  # 2x2 output tiles of a plane where the blocked kernel runs Winograd (blocked_winograd.cpp)
GLOBAL_POOLS = {"GlobalAveragePool": "ReduceMean", "GlobalMaxPool": "ReduceMax"}
WINDOW_POOLS = ("MaxPool", "AveragePool")


@register_pass(LAYOUT_PASS, stage="stage2", order=5)
def nc1hwc0_layout(graph: Graph, stats: PassStats) -> bool:
    """Runs conv chains in NC1HWC0 (ascendsim::BlockedConv), with TransData at their ends."""
    if graph.subgraphs or any(n.op_type in CONTROL_FLOW_OPS for n in graph.nodes) or \
            not all(v.is_static for n in graph.nodes for v in n.outputs) or not _blocked_kernels_pay():
        return False
    layout = _Layout(graph, stats, profitable_convs(graph, conv_kind, _carries, winning_classes(_kernel_variant())))
    for node in list(graph.nodes):
        layout.visit(node)
    if not layout.retired:
        return False
    layout.finish()
    graph.topological_sort()
    return True


def _kernel_variant() -> str:
    from ... import cpu  # the compiler's second use of the runtime (the first: singleop.py's op check)

    return cpu.kernel_variant()


def _blocked_kernels_pay() -> bool:
    """Whether this machine's kernel variant runs the blocked tiles faster than NCHW: not the baseline x86-64 one
    (SSE2's 16 registers hold a tile of 2 pixels: MobileNetV2 33.6 ms blocked against 19.7 ms NCHW on the Zen 3
    forced to baseline). Like onnxruntime's NCHWc transformer, which runs when a session is made, the choice is
    the machine's: a model is usually compiled where it runs (the .om stays valid anywhere)."""
    return _kernel_variant() != "baseline"


def conv_kind(node: Node) -> str | None:
    """The class of a Conv the blocked kernel takes (_takes), for layout_5hd_regions.py: "depthwise";
    "strided" (dense, stride above 1); "winograd" (dense 3x3 stride 1 with 16 channels or more each side, on a
    plane of WINOGRAD_MIN_TILES 2x2 tiles or more: the blocked kernel's Winograd path, which it also runs on fewer
    channels, then counted "dense"); "dense" for the rest."""
    if not _takes(node):
        return None
    x, w = node.inputs[0], node.inputs[1]
    channels, group = x.shape[1], node.attr("group", 1)  # type: ignore[union-attr,index]
    m, kh, kw = w.shape[0], w.shape[2], w.shape[3]  # type: ignore[union-attr,index]
    if group != 1:
        return "depthwise" if group == channels == m and kh * kw <= MAX_DEPTHWISE_TAPS else None  # type: ignore[operator]
    if any(s > 1 for s in node.attr("strides", [1, 1])):  # type: ignore[union-attr]
        return "strided"
    if (kh, kw) == (3, 3) and all(d == 1 for d in node.attr("dilations", [1, 1])) and min(channels, m) >= C0:  # type: ignore[union-attr,type-var]
        y = node.outputs[0].shape
        if (y[2] + 1) // 2 * ((y[3] + 1) // 2) >= WINOGRAD_MIN_TILES:  # type: ignore[index,operator]
            return "winograd"
    return "dense"


def _takes(node: Node) -> bool:
    """A float32 2-D Conv with constant weights and bias, explicit or VALID padding, and a fused sum (if any)
    of its output's shape."""
    if node.op_type != "Conv" or node.domain != "" or len(node.outputs) != 1:
        return False
    x, w, bias, total = node.input(0), node.input(1), node.input(2), node.input(3)
    if x is None or w is None or x.dtype != DType.FLOAT or len(x.shape or ()) != 4 or not w.is_constant or \
            w.dtype != DType.FLOAT or (bias is not None and not bias.is_constant) or \
            node.attr("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        return False
    return total is None or (not total.is_constant and total.shape == node.outputs[0].shape)


def _stem(node: Node) -> bool:
    """Whether the kernel's few-channel direct conv takes this conv on an NCHW image and writes NC1HWC0
    (StemConv::suits, csrc/kernels/stem_conv.cpp): at most 4 input channels, no groups, strides up to 2, no
    dilation, windows up to 7x7."""
    x, w = node.inputs[0], node.inputs[1]
    strides, dilations = node.attr("strides", [1, 1]), node.attr("dilations", [1, 1])
    return x.shape[1] <= MAX_STEM_CHANNELS and node.attr("group", 1) == 1 and \
        all(s <= 2 for s in strides) and all(d == 1 for d in dilations) and max(w.shape[2:]) <= MAX_STEM_WINDOW  # type: ignore[union-attr,operator,index,type-var]


def _carries(node: Node) -> bool:
    """Whether a non-conv node may run on the twins (the op and its output; the walk's handlers decide the rest,
    by its inputs' twins)."""
    if node.domain != "" or len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    if node.op_type in WINDOW_POOLS:  # (SAME_* padding resolved to pads on import; left as it is otherwise)
        return out.dtype == DType.FLOAT and len(out.shape or ()) == 4 and \
            node.attr("auto_pad", "NOTSET") in ("NOTSET", "VALID")
    return node.op_type in GLOBAL_POOLS or node.op_type == "BatchNormalization" or \
        (node.op_type == "Concat" and node.attr("axis") in (1, -3)) or \
        (fusable(node) and out.dtype == DType.FLOAT and len(out.shape or ()) == 4)


class _Layout:
    def __init__(self, graph: Graph, stats: PassStats, convs: set[int]) -> None:
        self.graph = graph
        self.stats = stats
        self.convs = convs  # ids of the convs to move (layout_5hd_regions.py)
        self.twins: dict[int, Value] = {}  # id(NCHW value) -> its NC1HWC0 twin
        self.retired: list[Value] = []     # outputs of converted nodes, in conversion order

    # ---- the walk --------------------------------------------------------------------------------------

    def visit(self, node: Node) -> None:
        if id(node) in self.convs:
            self._conv(node)
        elif not _carries(node):
            return
        elif node.op_type in GLOBAL_POOLS:
            self._global_pool(node)
        elif node.op_type in WINDOW_POOLS:
            self._window_pool(node)
        elif node.op_type == "Concat":
            self._concat(node)
        elif node.op_type == "BatchNormalization":
            self._batch_norm(node)
        elif fusable(node):
            self._elementwise(node)

    def _conv(self, node: Node) -> None:
        x, w, bias, total = node.inputs[0], node.input(1), node.input(2), node.input(3)
        if id(x) not in self.twins and x.shape[1] < C0:  # type: ignore[index]
            if total is None and _stem(node):  # its image stays NCHW, its output is blocked
                self._replace(node, "BlockedConv", [x, w, bias], dict(node.attrs))
                self.stats.add("stems writing NC1HWC0")
            return
        inputs = [self._twin(x, node), w, bias]
        if total is not None:
            inputs.append(self._twin(total, node))
        self._replace(node, "BlockedConv", inputs, dict(node.attrs))
        self.stats.add("convs in NC1HWC0")

    def _global_pool(self, node: Node) -> None:
        x = node.inputs[0]
        if x is None or id(x) not in self.twins:
            return
        self._replace(node, GLOBAL_POOLS[node.op_type], [self.twins[id(x)]], {"axes": [2, 3], "keepdims": 1},
                      domain="")

    def _window_pool(self, node: Node) -> None:
        """A 2-D MaxPool / AveragePool as the 3-D pool of the twin's pixels: kernel 1, stride 1, no pads over the
        lanes (max and mean of zero lanes are zero: the padding lanes stay zero)."""
        x = node.inputs[0]
        if x is None or id(x) not in self.twins:
            return
        attrs = dict(node.attrs)
        attrs["kernel_shape"] = [*node.attr("kernel_shape"), 1]
        for name in ("strides", "dilations"):
            attrs[name] = [*node.attr(name, [1, 1]), 1]
        if "pads" in attrs:
            top, left, bottom, right = node.attr("pads")
            attrs["pads"] = [top, left, 0, bottom, right, 0]
        self._replace(node, node.op_type, [self.twins[id(x)]], attrs, domain="")
        self.stats.add("pools in NC1HWC0")

    def _batch_norm(self, node: Node) -> None:
        """Inference BatchNormalization (one not folded into a conv: DenseNet's before its convs) as a
        per-channel Mul and Add on the twin, which the elementwise fusion joins to the activation after it."""
        x, out = node.inputs[0], node.outputs[0]
        params = node.inputs[1:5]
        if x is None or id(x) not in self.twins or len(params) != 4 or \
                any(p is None or not p.is_constant or p.data is None for p in params):
            return
        scale, bias, mean, var = (np.asarray(p.data, np.float64) for p in params)  # type: ignore[union-attr]
        factor = scale / np.sqrt(var + float(node.attr("epsilon", 1e-5)))
        channels = out.shape[1]  # type: ignore[index]
        shape = (channels, 1, 1)
        factor_value = self._constant(self.graph.constant(f"{node.name}_scale", factor.astype(np.float32).reshape(shape)), channels)
        shift = (bias - mean * factor).astype(np.float32).reshape(shape)
        shift_value = self._constant(self.graph.constant(f"{node.name}_shift", shift), channels)
        scaled = self._blocked_value(out)
        self.graph.add_node("Mul", [self.twins[id(x)], factor_value], [scaled], name=f"{node.name}_scale", before=node)
        self._replace(node, "Add", [scaled, shift_value], {}, domain="")
        self.stats.add("BatchNormalizations in NC1HWC0")

    def _concat(self, node: Node) -> None:
        values = node.inputs
        if not values or any(v is None or v.is_constant for v in values) or not any(id(v) in self.twins for v in values):
            return
        if any(v.shape[1] % C0 for v in values[:-1]):  # type: ignore[union-attr,index]
            return
        self._replace(node, "Concat", [self._twin(v, node) for v in values], {"axis": 1}, domain="")  # type: ignore[arg-type]

    def _elementwise(self, node: Node) -> None:
        out = node.outputs[0]
        n, channels = out.shape[0], out.shape[1]  # type: ignore[index]
        inputs: list[Value | None] = []
        for value in node.inputs:
            if value is None:
                inputs.append(None)
            elif value.is_constant:
                inputs.append(self._constant(value, channels))  # type: ignore[arg-type]
            elif value.shape in (out.shape, (n, channels, 1, 1)):
                inputs.append(value)  # (its twin, made below once the node is known to convert)
            else:
                return
            if value is not None and inputs[-1] is None:
                return
        if not any(v is not None and id(v) in self.twins for v in node.inputs):
            return
        if channels % C0 and not _zero_preserving(node):  # type: ignore[operator]
            return
        inputs = [v if v is None or v.is_constant else self._twin(v, node) for v in inputs]
        self._replace(node, node.op_type, inputs, dict(node.attrs), domain="")

    # ---- helpers ---------------------------------------------------------------------------------------

    def _constant(self, value: Value, channels: int) -> Value | None:
        """A constant operand in the twins' layout: a scalar as it is, a per-channel one ([C, 1, 1] or
        [1, C, 1, 1]) as [1, C1, 1, 1, 16]; None for any other."""
        data = value.data
        assert data is not None
        if data.size == 1:
            return value
        if data.size != channels or data.ndim < 3 or data.shape[-3:] != (channels, 1, 1):
            return None
        blocked = to_blocked(np.asarray(data).reshape(1, channels, 1, 1))
        return self.graph.constant(f"{value.name}_nc1hwc0", blocked)

    def _twin(self, value: Value, before: Node) -> Value:
        """The NC1HWC0 twin of `value`, made by a TransData before `before` when it has none."""
        twin = self.twins.get(id(value))
        if twin is None:
            twin = self._blocked_value(value)
            self.graph.add_node("TransData", [value], [twin], domain=ASCENDSIM_DOMAIN, before=before,
                                attrs={"src_format": NCHW, "dst_format": NC1HWC0, "channels": value.shape[1]},  # type: ignore[index]
                                name=self.graph.unique_name(f"{value.name}_to_nc1hwc0"))
            self.twins[id(value)] = twin
            self.stats.add("TransData to NC1HWC0")
        return twin

    def _blocked_value(self, value: Value) -> Value:
        twin = self.graph.value(f"{value.name}_nc1hwc0", value.dtype, blocked_shape(value.shape))  # type: ignore[arg-type]
        twin.format = "NC1HWC0"
        return twin

    def _replace(self, node: Node, op_type: str, inputs: list[Value | None], attrs: dict[str, object],
                 domain: str = ASCENDSIM_DOMAIN) -> None:
        """`node` leaves the graph; a node on the twins takes its place and its output gets a twin."""
        out = node.outputs[0]
        twin = self._blocked_value(out)
        detach(self.graph, node)
        out.producer = None
        self.graph.add_node(op_type, inputs, [twin], attrs=attrs, domain=domain, name=node.name)
        self.twins[id(out)] = twin
        self.retired.append(out)

    def finish(self) -> None:
        """Each retired value still read in NCHW (or a graph output) is made from its twin; the others go."""
        for value in self.retired:
            if value.consumers or is_graph_output(self.graph, value):
                self.graph.add_node("TransData", [self.twins[id(value)]], [value], domain=ASCENDSIM_DOMAIN,
                                    attrs={"src_format": NC1HWC0, "dst_format": NCHW, "channels": value.shape[1]},  # type: ignore[index]
                                    name=self.graph.unique_name(f"{value.name}_to_nchw"))
                self.stats.add("TransData to NCHW")
            else:
                self.graph.values.pop(value.name, None)


def _zero_preserving(node: Node) -> bool:
    """Whether the op maps zero tensor inputs (and zero per-channel constants; scalars as they are) to zero:
    then the padding lanes of its output stay zero."""
    operands = [None if v is None else
                (v.data if v.is_constant and v.data is not None and v.data.size == 1 else np.zeros((1,), np.float32))
                for v in node.inputs]
    try:
        result = host_kernels.run(node.op_type, operands, node.attrs)[0]
    except (host_kernels.HostKernelError, KeyError, ValueError, TypeError):
        return False
    return bool(np.all(np.asarray(result) == 0))
