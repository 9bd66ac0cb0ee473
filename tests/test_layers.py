"""The C++ core's folders are layers, and every include points down (docs/runtime.md, "Layers"):

    python -> api -> op -> (model, ascendc) -> runtime -> device -> (prof, executor) -> kernels -> core

A file may include headers of its own folder and of any folder below its own; prof and executor are siblings
and include neither each other nor anything above them. The public headers (include/, `acl/...`,
`ascendsim/...`) are below everything. Read from the sources as text: no build needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSRC = Path(__file__).resolve().parent.parent / "csrc"

# Folder -> its rank, top first; equal ranks are siblings (neither includes the other).
LAYERS = {"python": 0, "api": 1, "op": 2, "model": 3, "ascendc": 3, "runtime": 4, "device": 5, "prof": 6, "executor": 6,
          "kernels": 7, "core": 8}
PUBLIC = ("acl", "ascendsim")  # include/acl, include/ascendsim
STANDALONE = {"forward"}  # the forwarding libraries: no code, no includes of the library

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SOURCES = (".h", ".hpp", ".c", ".cpp", ".def", ".inc")


def includes() -> list[tuple[Path, str]]:
    """(file, included path) for every quoted include under csrc/."""
    return [(path, target) for path in sorted(CSRC.rglob("*")) if path.suffix in SOURCES
            for target in INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace"))]


def layer_of(path: Path) -> str:
    return path.relative_to(CSRC).parts[0]


def upward(edges: list[tuple[Path, str]]) -> list[str]:
    """What breaks the rule, one line each: an include of a folder at or above the includer's layer (other
    than its own), a folder the rule does not place, or a path that is not rooted at csrc/ or include/."""
    wrong = []
    for path, target in edges:
        src, dst = layer_of(path), target.split("/", 1)[0]
        where = f"{path.relative_to(CSRC.parent)}: #include \"{target}\""
        if dst in PUBLIC:
            continue
        if "/" not in target or target.startswith("."):
            wrong.append(f"{where}: name headers from csrc/ (\"folder/file.h\")")
        elif src not in LAYERS or dst not in LAYERS:
            wrong.append(f"{where}: folder {src if src not in LAYERS else dst!r} has no place in the layers")
        elif dst != src and LAYERS[dst] <= LAYERS[src]:
            wrong.append(f"{where}: {src} (layer {LAYERS[src]}) may not include {dst} (layer {LAYERS[dst]})")
    return wrong


def test_every_folder_has_a_layer() -> None:
    folders = {p.name for p in CSRC.iterdir() if p.is_dir()}
    assert folders - STANDALONE == set(LAYERS), "a csrc/ folder the layer rule does not place (or a gone one)"


def test_includes_point_down() -> None:
    edges = includes()
    assert len(edges) > 500  # the reader found the includes
    assert upward(edges) == []


@pytest.mark.parametrize(("src", "target", "ok"), [
    ("device/device_memory.cpp", "prof/profiler.h", True),
    ("device/device_memory.cpp", "runtime/profiler.h", False),
    ("op/op_runner.cpp", "api/memory_checks.h", False),
    ("prof/profiler.cpp", "executor/stream_runner.h", False),
    ("kernels/conv.cpp", "kernels/epilogue.h", True),
    ("core/log.cpp", "kernels/kernel.h", False),
    ("model/x.cpp", "acl/acl.h", True),
    ("model/x.cpp", "newfolder/x.h", False),
])
def test_the_check_itself(src: str, target: str, ok: bool) -> None:
    assert (upward([(CSRC / src, target)]) == []) == ok
