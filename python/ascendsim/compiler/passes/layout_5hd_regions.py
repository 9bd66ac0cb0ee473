"""Where the NC1HWC0 layout pays (used by layout_5hd.py): the convs it may move, region by region.

A region is a connected group of nodes that could run on NC1HWC0 twins (the convs the blocked kernel takes,
and the channel-wise nodes between them), joined through the values they pass each other. Its cost is one
TransData per value crossing its border; its gain is the blocked kernels' speed over the NCHW ones, measured
per conv class in networks (Zen 3 AVX2, 1 thread, blocked against NCHW; docs/kernels.md): depthwise convs
faster, strided dense convs much faster (3x3 stride 2: 3.2 against 4.0 ms in ResNet-50, 0.37 against 0.67 ms
in the default model), 1x1 convs level, dense 3x3 stride-1 convs slower than NCHW Winograd (2.55 against
1.9-2.35 ms at ResNet-50's 14x14). So Winograd's convs are not candidates (they split regions; but see AVX-512
below), and a region moves when it holds at least one conv that wins (depthwise or strided, on 16 channels or
more: fewer would be padded to a block) per two border crossings, and no fewer convs than crossings. MobileNet and
EfficientNet blocks and the default model's strided convs do. ResNet-50 does not (6 winning convs in a region
of 27 crossings: measured level with NCHW, 93.9 against 91.9 ms at 1 thread, 59.3 against 62.5 at 2), nor
ShuffleNet's lone depthwise convs between grouped ones (two TransData for one conv).

With AVX-512 the blocked tiles reach 64 output channels (6 pixels x 4 blocks) and dense 1x1 convs win too
(Zen 5: ResNet-50 with its 1x1 and strided convs blocked, Winograd's in NCHW, 0.95 against 0.98x onnxruntime at
1 thread and 1.06 against 1.20x at 2; every conv blocked, Winograd's too, 0.98 and 1.15), so there "dense" joins
the winning classes (winning_classes). So do the 3x3 stride-1 convs whose Winograd products are small ("narrow
winograd": under 64 output channels, or a plane of 7x7 or less): DenseNet-121's 128 -> 32 convs on 14x14 take 92 us
on NCHW Winograd and 60 us blocked, on 7x7 55 against 20, ResNet-50's 512 -> 512 on 7x7 about 5% less blocked; its
256 -> 256 on 14x14 stay (730 us Winograd, 920 blocked). With them DenseNet-121 is one region, joined through its
Concats, and runs blocked: 27.1 -> 25.7 ms at 1 thread, ResNet-50 31.4 -> 31.0 (Zen 5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..ir import Graph, Node
from ..ops.layout import C0
from .rewrite import is_graph_output

WINOGRAD_CLASSES = ("winograd", "narrow winograd")  # NCHW Winograd convs: they split a region unless they win


def winning_classes(variant: str) -> tuple[str, ...]:
    """The conv classes (layout_5hd.conv_kind) faster blocked with kernel variant `variant`."""
    if variant == "avx512":
        return ("depthwise", "strided", "dense", "narrow winograd")
    return ("depthwise", "strided")


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
    stays = tuple(kind for kind in WINOGRAD_CLASSES if kind not in winning)
    members = {id(n): n for n in graph.nodes if kinds[id(n)] not in (None, *stays) or carries(n)}
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
