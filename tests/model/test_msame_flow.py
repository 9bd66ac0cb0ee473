"""The msame tool's flow in C (tests/c/msame_flow.c), linked with the four library names msame links: load a model,
fill its inputs from .bin files or at random, run it in a loop with a time per run, and write the outputs as
binary and text; the binary outputs match onnxruntime's, the text the binary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from exec_helpers import compile_model, const, reference, tensor
from onnx import helper

from acl_helpers import TESTS, Compiler

LIBRARIES = ("acl_op_compiler", "acl_cblas", "acl_dvpp")


def two_in_two_out() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Add", ["c", "b"], ["s"]),
             helper.make_node("Relu", ["s"], ["y"]), helper.make_node("ReduceMean", ["y"], ["m"], axes=[2, 3])]
    graph = helper.make_graph(nodes, "msame", [tensor("x", [1, 3, 8, 8]), tensor("b", [1, 4, 8, 8])],
                              [tensor("y", [1, 4, 8, 8]), tensor("m", [1, 4, 1, 1])],
                              [const("w", rng.standard_normal((4, 3, 3, 3)).astype(np.float32))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_msame_flow_from_files_and_random(compiler: Compiler, tmp_path: Path) -> None:
    model = two_in_two_out()
    om = compile_model(model, tmp_path, "msame")
    program = compiler.build(TESTS / "c" / "msame_flow.c", extra=[f"-l{name}" for name in LIBRARIES])
    rng = np.random.default_rng(4)
    feeds = {"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32),
             "b": rng.standard_normal((1, 4, 8, 8)).astype(np.float32)}
    for name, value in feeds.items():
        value.tofile(tmp_path / f"{name}.bin")
    out = tmp_path / "out"
    out.mkdir()
    done = compiler.run(program, str(om), str(out), "3", str(tmp_path / "x.bin"), str(tmp_path / "b.bin"))
    assert done.returncode == 0 and done.stdout.rstrip().endswith("ok"), done.stdout + done.stderr
    assert done.stdout.count("Inference time: ") == 3 and "Inference average time: " in done.stdout, done.stdout
    for i, want in enumerate(reference(model, feeds)):
        got = np.fromfile(out / f"output_{i}.bin", np.float32).reshape(want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        text = np.loadtxt(out / f"output_{i}.txt", dtype=np.float32).reshape(want.shape)
        np.testing.assert_array_equal(text, got)  # %.9g round-trips float32

    # random inputs, and an input file of the wrong size refused with the sizes named
    done = compiler.run(program, str(om), str(out), "1", "random", "random")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("ok"), done.stdout + done.stderr
    (tmp_path / "short.bin").write_bytes(b"\0" * 12)
    done = compiler.run(program, str(om), str(out), "1", str(tmp_path / "short.bin"), "random")
    assert done.returncode == 1 and "short.bin holds 12 bytes, the input needs 768" in done.stdout, done.stdout
