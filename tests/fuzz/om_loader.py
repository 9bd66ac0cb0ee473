"""Fuzzer of the `.om` loader: mutated model images through QuerySizeFromMem, LoadFromMem, GetDesc and Execute.

Seeds: at start the parent compiles a few small ONNX models built here (Conv, Relu, Concat, Pad, MatMul, Add,
Reshape, MaxPool, Flatten, Softmax, an elementwise chain the compiler fuses into a FusedElementwise program, and
a dynamic-batch gear model) and lists their fields (om_mutations.fields). Case i picks a seed and mutates it
(om_mutations.mutate); one case in 50 is a seed unchanged, to prove the path accepts a valid file.

Each case, in a worker (harness.py): `aclmdlQuerySizeFromMem`; `aclmdlLoadFromMem`; when loaded, `aclmdlGetDesc`
and every description query per input and output (sizes, dims, names, formats, dtypes, index by name, gears),
then `aclmdlExecute` with device buffers of exactly the sizes the description gives (the first gear set when the
model has dynamic batch), then unload. A real error code with a message is a pass (counted by code); a crash,
a hang, a sanitizer report or a Python exception from the binding is a failure.

    python tests/fuzz/om_loader.py --seed 1 --cases 100000 [--save DIR] [--progress]
    python tests/fuzz/om_loader.py --replay DIR/om_loader-seed1-case42-crash.om
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

import harness
import model_calls
import numpy as np
import om_mutations
import onnx
from onnx import TensorProto, helper, numpy_helper


def _model(nodes: list[onnx.NodeProto], inputs: list[tuple[str, list[int | str]]], outputs: list[str],
           initializers: list[onnx.TensorProto]) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "seed", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [onnx.ValueInfoProto(name=n) for n in outputs], initializers)
    return onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


def _const(name: str, value: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(value, name)


def seed_models() -> list[tuple[onnx.ModelProto, dict[str, str]]]:
    """(model, compile options) of each seed."""
    rng = np.random.default_rng(0)
    w = _const("w", rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    conv = _model([helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                   helper.make_node("Relu", ["c"], ["r"]),
                   helper.make_node("Concat", ["r", "x"], ["cat"], axis=1),
                   helper.make_node("Pad", ["cat", "pads"], ["y"])],
                  [("x", [1, 3, 8, 8])], ["y"], [w, _const("pads", np.array([0, 0, 1, 2, 0, 0, 1, 0], np.int64))])
    matmul = _model([helper.make_node("MatMul", ["a", "k"], ["m"]), helper.make_node("Add", ["m", "bias"], ["s"]),
                     helper.make_node("Reshape", ["s", "shape"], ["y"]),
                     helper.make_node("Transpose", ["m"], ["t"], perm=[1, 0])],
                    [("a", [2, 8])], ["y", "t"], [_const("k", rng.standard_normal((8, 4)).astype(np.float32)),
                                                  _const("bias", np.ones(4, np.float32)),
                                                  _const("shape", np.array([4, 2], np.int64))])
    pool = _model([helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                   helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Softmax", ["f"], ["y"], axis=1)],
                  [("x", [1, 2, 6, 6])], ["y"], [])
    chain = _model([helper.make_node("Mul", ["x", "x"], ["a"]), helper.make_node("Sub", ["a", "x"], ["b"]),
                    helper.make_node("Exp", ["b"], ["c"]), helper.make_node("Div", ["c", "x"], ["y"])],
                   [("x", [3, 5])], ["y"], [])
    batch = _model([helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3]),
                    helper.make_node("Sigmoid", ["c"], ["y"])], [("x", ["N", 3, 5, 5])], ["y"], [w])
    return [(conv, {}), (matmul, {}), (pool, {}), (chain, {}),
            (batch, {"input_shape": "x:-1,3,5,5", "dynamic_batch_size": "1,2"})]


def compile_seeds() -> list[bytes]:
    from ascendsim.compiler.build import compile as compile_om

    images = []
    with tempfile.TemporaryDirectory(prefix="fuzz-seeds-") as directory:
        for k, (model, options) in enumerate(seed_models()):
            path = compile_om(model, Path(directory) / f"seed{k}", soc_version="Ascend910B1", **options).output
            assert path is not None
            images.append(path.read_bytes())
    return images


class OmLoader:
    name = "om_loader"
    suffix = ".om"
    timeout = 20.0

    def __init__(self) -> None:
        self._seeds: list[tuple[bytes, list[om_mutations.Field]]] = []

    def generate(self, rng: random.Random, index: int) -> bytes:
        if not self._seeds:
            self._seeds = [(image, om_mutations.fields(image)) for image in compile_seeds()]
        image, fields = rng.choice(self._seeds)
        return image if rng.random() < 0.02 else om_mutations.mutate(rng, image, fields)

    def setup(self) -> None:
        model_calls.setup()

    def run(self, data: bytes) -> harness.Outcome:
        return model_calls.load_and_run(data)


if __name__ == "__main__":
    sys.exit(harness.main(OmLoader(), __file__, default_cases=1000))
