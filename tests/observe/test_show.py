"""`ascendsim show model.om`: every section for static, gear, AIPP and multi-stream models (tests' models and
ascendsim.models), `--json` round-trips, the planned-memory figures bracket the arena, bad files are refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from compiler.onnx_models import inception_block, mobilenet_block, resnet_block

from ascendsim.compiler.build import compile as compile_om
from ascendsim.compiler.om_reader import read_om
from ascendsim.models import bert_base_encoder, mobilenet_v2
from ascendsim.show import describe, format_description

AIPP = "aipp_op { aipp_mode: static input_format: RGB888_U8 mean_chn_0: 100 mean_chn_1: 110 mean_chn_2: 120 }"


def _models(directory: Path) -> dict[str, tuple[Path, Any]]:
    (directory / "aipp.cfg").write_text(AIPP)
    cases = {
        "static": (resnet_block(), {}),
        "gear": (mobilenet_block(batch="N"), {"input_shape": "image:-1,3,16,16", "dynamic_batch_size": "1,2,4"}),
        "aipp": (resnet_block(), {"insert_op_conf": str(directory / "aipp.cfg")}),
        "multi_stream": (inception_block(), {}),
        "mobilenet_v2": (mobilenet_v2(image=32, width=0.25, num_classes=10), {}),
        "bert": (bert_base_encoder(seq=8, layers=1, hidden=32, heads=2, intermediate=64, vocab=50), {}),
    }
    out = {}
    for name, (model, options) in cases.items():
        result = compile_om(model.SerializeToString(), directory / name, soc_version="Ascend910B1",
                            precision_mode="force_fp32", **options)
        out[name] = (Path(result.output), result)
    return out


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Any]]:
    return _models(tmp_path_factory.mktemp("show"))


def show(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendsim", "show", *args], capture_output=True, text=True,
                          check=False)


@pytest.mark.parametrize("name", ["static", "gear", "aipp", "multi_stream", "mobilenet_v2", "bert"])
def test_show_prints_every_section(models: dict[str, tuple[Path, Any]], name: str) -> None:
    path, result = models[name]
    text = show(str(path))
    assert text.returncode == 0, text.stderr
    out = text.stdout
    for section in ("inputs (", "outputs (", "gears: ", "aipp", "weights: ", "plan 0", "streams: ", "events: ",
                    "feature map: arena", "nodes ("):
        assert section in out, section
    description = describe(read_om(path))
    assert len(description["plans"]) == len(result.plans)
    for plan, compiled in zip(description["plans"], result.plans):
        memory = plan["memory"]
        assert memory["arena_size"] == compiled.memory.arena_size
        assert memory["lower_bound"] <= memory["arena_size"] <= memory["no_reuse"]
        assert memory["lower_bound"] <= compiled.memory.lower_bound  # the compiler also counts stream cliques
        assert plan["stream_count"] == compiled.streams.stream_count
        assert len(plan["events"]) == len(compiled.streams.events)
        assert [n["name"] for n in plan["nodes"]] == [n.name for n in compiled.graph.nodes]
        for node in plan["nodes"]:
            assert f" {node['name']} {node['op_type']} stream {node['stream']}" in out
    # --json is the same description, and loads back equal.
    as_json = show(str(path), "--json")
    assert as_json.returncode == 0, as_json.stderr
    loaded = json.loads(as_json.stdout)
    assert loaded == json.loads(json.dumps(description))
    assert format_description(loaded) == out.rstrip("\n")


def test_sections_reflect_the_model_kind(models: dict[str, tuple[Path, Any]]) -> None:
    gear = describe(read_om(models["gear"][0]))
    assert gear["gears"] == {"dynamic_batch": [1, 2, 4]} and [p["gear"] for p in gear["plans"]] == [[1], [2], [4]]
    assert "gears: dynamic_batch [1, 2, 4]" in show(str(models["gear"][0])).stdout
    aipp = describe(read_om(models["aipp"][0]))
    assert len(aipp["aipp"]) == 1 and aipp["aipp"][0]["src_format"]
    assert describe(read_om(models["static"][0]))["aipp"] == []
    multi = describe(read_om(models["multi_stream"][0]))["plans"][0]
    assert multi["stream_count"] > 1 and multi["events"]
    assert {n["stream"] for n in multi["nodes"]} == set(range(multi["stream_count"]))
    for event in multi["events"]:
        assert event["record_stream"] != event["wait_stream"]
        assert event["record_after_node"] < event["wait_before_node"]


def test_show_refuses_bad_files(tmp_path: Path) -> None:
    missing = show(str(tmp_path / "none.om"))
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    (tmp_path / "bad.om").write_bytes(b"IMOD" + bytes(300))
    bad = show(str(tmp_path / "bad.om"))
    assert bad.returncode == 1 and "bad.om" in bad.stderr and not bad.stdout
