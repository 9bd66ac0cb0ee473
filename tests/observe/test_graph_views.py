"""Graph views: --dump_graph writes, per stage, valid ONNX and a valid DOT picture (fused nodes as clusters of
what they fused, a legend), plus a final picture coloured by stream with the events; SVG/PNG when Graphviz is
installed, a warning (never a failure) when it is not."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import onnx
import pytest
from compiler.onnx_models import inception_block
from model.exec_helpers import add_relu_add

from ascendsim.compiler import graph_dot
from ascendsim.compiler.build import compile as compile_om
from ascendsim.compiler.passes.manager import STAGES

TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(->)|([{}\[\];=,])|([A-Za-z_][A-Za-z0-9_.]*|-?[0-9.]+))')


def tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = TOKEN.match(text, pos)
        assert match and match.end() > pos, f"bad DOT at {text[pos:pos + 40]!r}"
        out.append(next(group for group in match.groups() if group is not None))
        pos = match.end()
    return out


class DotParser:
    """A minimal recursive-descent reader of the DOT subset Graphviz accepts: digraph, subgraphs, node and
    edge statements with attribute lists, `key=value` statements. Collects declared nodes and edges."""

    def __init__(self, text: str) -> None:
        self.toks, self.i = tokens(text), 0
        self.nodes: set[str] = set()
        self.edges: list[tuple[str, str]] = []
        self.clusters: dict[str, list[str]] = {}

    def take(self, expected: str | None = None) -> str:
        tok = self.toks[self.i]
        assert expected is None or tok == expected, f"expected {expected!r}, got {tok!r} at token {self.i}"
        self.i += 1
        return tok

    def parse(self) -> DotParser:
        self.take("digraph")
        self.take()
        self.block(None)
        assert self.i == len(self.toks), "trailing tokens"
        return self

    def block(self, cluster: str | None) -> None:
        self.take("{")
        while self.toks[self.i] != "}":
            self.statement(cluster)
        self.take("}")

    def attrs(self) -> None:
        self.take("[")
        while self.toks[self.i] != "]":
            self.take()
            self.take("=")
            self.take()
            if self.toks[self.i] == ",":
                self.take()
        self.take("]")

    def statement(self, cluster: str | None) -> None:
        first = self.take()
        if first == "subgraph":
            name = self.take()
            self.clusters[name] = []
            self.block(name)
        elif self.toks[self.i] == "=":
            self.take()
            self.take()
        elif first in ("node", "edge", "graph"):
            self.attrs()
        elif self.toks[self.i] == "->":
            self.take()
            self.edges.append((first, self.take()))
            if self.toks[self.i] == "[":
                self.attrs()
        else:
            self.nodes.add(first)
            if cluster is not None:
                self.clusters[cluster].append(first)
            if self.toks[self.i] == "[":
                self.attrs()
        if self.i < len(self.toks) and self.toks[self.i] == ";":
            self.take()


def check_dot(path: Path) -> DotParser:
    parsed = DotParser(path.read_text()).parse()
    for a, b in parsed.edges:
        assert a in parsed.nodes and b in parsed.nodes, (a, b)
    assert "cluster_legend" in parsed.clusters
    return parsed


def test_dump_graph_writes_onnx_and_dot_per_stage(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Graphviz may be missing here: tested below
        compile_om(add_relu_add().SerializeToString(), tmp_path / "m", soc_version="Ascend910B1", dump_graph=str(dump))
    for index, stage in enumerate(STAGES):
        stem = dump / f"add_relu_add_{index:02d}_{stage.name}"
        onnx.checker.check_model(onnx.load(str(stem.with_suffix(".onnx"))), full_check=True)
        check_dot(stem.with_suffix(".dot"))
    # After fusion the three elementwise ops are one FusedElementwise: a cluster holding Add, Relu, Add.
    final = check_dot(dump / "add_relu_add_04_build.dot")
    fused = [c for c in final.clusters if c.startswith("cluster_n")]
    assert len(fused) == 1 and len(final.clusters[fused[0]]) == 3
    text = (dump / "add_relu_add_04_build.dot").read_text()
    assert "FusedElementwise (3 ops)" in text and 'label="Relu"' in text
    assert "stream 0 (before stream assignment)" in text
    prepared = check_dot(dump / "add_relu_add_00_prepare.dot")
    assert not [c for c in prepared.clusters if c.startswith("cluster_n")]  # nothing fused yet


def test_stream_picture_colours_streams_and_draws_events(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compile_om(inception_block().SerializeToString(), tmp_path / "m", soc_version="Ascend910B1",
                            dump_graph=str(dump))
    streams = result.plans[0].streams
    path = dump / "inception_block_05_streams.dot"
    parsed = check_dot(path)
    text = path.read_text()
    assert streams.stream_count > 1
    for s in range(streams.stream_count):
        assert f'legend_stream{s} [fillcolor="{graph_dot.COLOURS[s]}", label="stream {s}"]' in text
    assert text.count("style=dotted, color=red, constraint=false") == len(streams.events) > 0
    assert any(c.startswith("cluster_n") for c in parsed.clusters)  # Conv + Relu epilogues


def test_missing_graphviz_is_said_never_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_dot.shutil, "which", lambda _: None)
    dump = tmp_path / "dump"
    with pytest.warns(UserWarning, match="Graphviz `dot` not found"):
        compile_om(add_relu_add().SerializeToString(), tmp_path / "m", soc_version="Ascend910B1", dump_graph=str(dump))
    assert not list(dump.glob("*.svg")) and len(list(dump.glob("*.dot"))) == len(STAGES) + 1


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_svg_and_png_with_graphviz(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    compile_om(inception_block().SerializeToString(), tmp_path / "m", soc_version="Ascend910B1", dump_graph=str(dump))
    for dot in dump.glob("*.dot"):
        assert dot.with_suffix(".svg").read_text().lstrip().startswith(("<?xml", "<svg"))
        assert dot.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_quoting() -> None:
    assert graph_dot.quote('a "b"\\c\nd') == '"a \\"b\\"\\\\c\\nd"'
    assert tokens(graph_dot.quote('x "y"')) == ['"x \\"y\\""']
