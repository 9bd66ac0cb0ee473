"""Where the NC1HWC0 layout pays (used by layout_5hd.py): the convs it may move, region by region.

A region is a connected group of nodes that could run on NC1HWC0 twins (the convs the blocked kernel takes,
and the channel-wise nodes between them), joined through the values they pass each other. Its cost is one
TransData per value crossing its border; its gain is the blocked kernels' speed over the NCHW ones, measured
per conv class in networks (Zen 3 AVX2, 1 thread, blocked against NCHW; docs/kernels.md): depthwise convs
faster, strided dense convs much faster (3x3 stride 2: 3.2 against 4.0 ms in ResNet-50, 0.37 against 0.67 ms
in the default model), 1x1 convs level. A region moves when it holds at least one conv that wins (on 16 channels
or more: fewer would be padded to a block) per two border crossings, and no fewer convs than crossings.
MobileNet and EfficientNet blocks and the default model's strided convs do; ShuffleNet's lone depthwise convs
between grouped ones do not (two TransData for one conv).

The dense 3x3 stride-1 convs ("winograd") win too, on every variant: the blocked kernel runs them by Winograd
F(2x2, 3x3) on planes of 16 tiles or more (blocked_winograd.cpp; strided 3x3 convs too, in a polyphase form),
1.7-2.2x faster than its direct tiles and faster than the NCHW Winograd kernel with no TransData around them (Zen
4, 1 thread: ResNet-50's 256 -> 256 on 14x14 1.01-1.10 ms against 1.27 NCHW, 64 -> 64 on 56x56 1.11 against 1.17;
ResNet-50 all blocked 3.5% faster at 1 thread and 7% at 2 than with its 3x3 convs on NCHW Winograd, and with the
AVX2 variant forced 7%; DenseNet-121 18-20% faster, with AVX2 16%). Before it (direct tiles only) they stayed on
NCHW Winograd and split ResNet-50's regions. With AVX-512 the direct tiles reach 64 output channels (6 pixels x 4
blocks) and dense 1x1 convs win as well (Zen 5: ResNet-50 with its 1x1 and strided convs blocked 0.95 against
0.98x onnxruntime at 1 thread and 1.06 against 1.20x at 2), so there "dense" joins the winning classes
(winning_classes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..ir import Graph, Node
from ..ops.layout import C0
from .rewrite import is_graph_output


def winning_classes(variant: str) -> tuple[str, ...]:
    """The conv classes (layout_5hd.conv_kind) faster blocked with kernel variant `variant`."""
    if variant == "avx512":
        return ("depthwise", "strided", "winograd", "dense")
    return ("depthwise", "strided", "winograd")


@dataclass
class _Region:
    convs: int = 0
    wins: int = 0
    crossings: set[int] = field(default_factory=set)  # ids of the values a TransData would convert

    def pays(self) -> bool:
        return self.wins > 0 and 2 * self.wins >= len(self.crossings) and self.convs >= len(self.crossings)


def profitable_convs(graph: Graph, conv_kind: Callable[[Node], str | None],
                     carries: Callable[[Node], bool], winning: tuple[str, ...]) -> set[int]:
    """Ids of the convs in regions that pay. conv_kind(node) is layout_5hd.conv_kind; carries(node) says
    whether a non-conv node can run on the twins; `winning`: the classes faster blocked (winning_classes)."""
    kinds = {id(n): conv_kind(n) for n in graph.nodes}
    members = {id(n): n for n in graph.nodes if kinds[id(n)] is not None or carries(n)}
    parent = {key: key for key in members}

    def root(key: int) -> int:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for node in members.values():
        for value in node.inputs:
            if value is not None and value.producer is not None and id(value.producer) in members:
                parent[root(id(value.producer))] = root(id(node))
    regions: dict[int, _Region] = {}
    for key, node in members.items():
        region = regions.setdefault(root(key), _Region())
        kind = kinds[key]
        region.convs += kind is not None
        x = node.inputs[0] if node.inputs else None
        region.wins += kind in winning and x is not None and (x.shape or (0, 0))[1] >= C0
        for value in node.inputs:
            if value is not None and not value.is_constant and (value.producer is None or id(value.producer) not in members):
                region.crossings.add(id(value))
        for value in node.outputs:
            if is_graph_output(graph, value) or any(id(c) not in members for c in value.consumers):
                region.crossings.add(id(value))
    return {key for key in members if kinds[key] is not None and regions[root(key)].pays()}
