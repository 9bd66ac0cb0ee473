"""Where the NC1HWC0 layout pays (used by layout_5hd.py): the convs it may move, region by region.

A region is a connected group of nodes that could run on NC1HWC0 twins (the convs the blocked kernel takes,
and the channel-wise nodes between them), joined through the values they pass each other. Its cost is one
TransData per value crossing its border; its gain is the blocked kernels' speed over the NCHW ones, which
was measured per conv class (the `kernels` and model rows of `ascendsim bench`, Zen 3 AVX2 and AVX-512): a
depthwise conv runs much faster blocked (a pixel's 16 channels are one vector), and the 1x1 convs around it
level or better; a dense 3x3 stride-1 conv is slower blocked than NCHW Winograd. So a region moves when it
holds a depthwise conv and at least as many convs as border crossings: MobileNet and EfficientNet blocks do;
ResNet and DenseNet (no depthwise), and ShuffleNet's lone depthwise convs between grouped ones (two
TransData for one conv), stay NCHW.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..ir import Graph, Node
from .rewrite import is_graph_output


@dataclass
class _Region:
    convs: int = 0
    depthwise: int = 0
    crossings: set[int] = field(default_factory=set)  # ids of the values a TransData would convert

    def pays(self) -> bool:
        return self.depthwise > 0 and self.convs >= len(self.crossings)


def profitable_convs(graph: Graph, conv_kind: Callable[[Node], str | None],
                     carries: Callable[[Node], bool]) -> set[int]:
    """Ids of the convs in regions that pay. conv_kind(node) is "dense" / "depthwise" for a conv the blocked
    kernel takes, else None; carries(node) says whether a non-conv node can run on the twins."""
    members = {id(n): n for n in graph.nodes if conv_kind(n) is not None or carries(n)}
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
        kind = conv_kind(node)
        region.convs += kind is not None
        region.depthwise += kind == "depthwise"
        for value in node.inputs:
            if value is not None and not value.is_constant and (value.producer is None or id(value.producer) not in members):
                region.crossings.add(id(value))
        for value in node.outputs:
            if is_graph_output(graph, value) or any(id(c) not in members for c in value.consumers):
                region.crossings.add(id(value))
    return {key for key, node in members.items() if conv_kind(node) is not None and regions[root(key)].pays()}
