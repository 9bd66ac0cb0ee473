"""The kernels group: one convolution or matrix product of each class, at the shapes of the public networks, as a
one-node model run through aclmdlExecute at one thread (the matrix-vector products of a classifier at batch 1: a
chain of Linear layers, whose weights then come from memory as in a network):
- ours: the path this CPU's kernel variant takes (named in the row's note, from ascendsim.model_kernels);
- OpenBLAS: the same model loaded with ASCENDSIM_PRODUCTS=openblas, which sends every product to OpenBLAS (im2col
  + sgemm; Winograd's 16 products as sgemm calls; a stem of at most 4 input channels, which ours runs direct,
  as im2col + sgemm; depthwise convolutions have no product and stay ours);
- onnxruntime running the one-node ONNX model (intra_op 1, default graph optimisations).
Rows `kernels.CASE.openblas` (for the cases that have a product to choose a path for: not depthwise convolutions,
not MatMuls of two run-time operands, which run on OpenBLAS) and `kernels.CASE.ort`, in GFLOP/s (the
multiply-adds of the direct convolution, counted twice, also for Winograd, so that every path of one case is
judged by the same work). The three take turns in every repeat, as everywhere in the suite."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ascendsim

from . import common
from .common import Effort, Figure, Row, make_row
from .model_files import SOC

OPENBLAS = {"ASCENDSIM_PRODUCTS": "openblas"}
REPEAT_SECONDS = 0.15  # about one repeat of one side of a row


@dataclass(frozen=True)
class Case:
    name: str
    benchmark: str
    build: Callable[[], onnx.ModelProto]
    flops: int
    product: bool  # ours may choose between our tiles and OpenBLAS (else both sides run the same path)


def _model(nodes: list[onnx.NodeProto], inputs: dict[str, list[int]], output: tuple[str, list[int]],
           weights: dict[str, np.ndarray], name: str) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info(output[0], TensorProto.FLOAT, output[1])],
        [numpy_helper.from_array(array, key) for key, array in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_case(name: str, benchmark: str, *, c: int, m: int, hw: int, k: int, stride: int = 1,
              group: int = 1) -> Case:
    pad, out = k // 2, (hw + 2 * (k // 2) - k) // stride + 1

    def build() -> onnx.ModelProto:
        rng = np.random.default_rng(0)
        weight = (rng.standard_normal((m, c // group, k, k)) / np.sqrt(c // group * k * k)).astype(np.float32)
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k], strides=[stride, stride],
                                pads=[pad] * 4, group=group)
        return _model([node], {"x": [1, c, hw, hw]}, ("y", [1, m, out, out]),
                      {"w": weight, "b": rng.standard_normal(m).astype(np.float32)}, name)

    depthwise = group == c == m and group > 1
    return Case(name, benchmark, build, 2 * m * out * out * (c // group) * k * k, not depthwise)


def matmul_case(name: str, benchmark: str, *, batch: int, m: int, k: int, n: int, constant: bool) -> Case:
    a_shape, b_shape = ([batch, m, k], [batch, k, n]) if batch > 1 else ([m, k], [k, n])

    def build() -> onnx.ModelProto:
        rng = np.random.default_rng(0)
        node = helper.make_node("MatMul", ["a", "b"], ["y"])
        weights = {"b": (rng.standard_normal(b_shape) / np.sqrt(k)).astype(np.float32)} if constant else {}
        inputs = {"a": a_shape, **({} if constant else {"b": b_shape})}
        return _model([node], inputs, ("y", [*a_shape[:-1], n]), weights, name)

    return Case(name, benchmark, build, 2 * batch * m * k * n, constant)


def linear_chain_case(name: str, benchmark: str, *, width: int, layers: int) -> Case:
    """Fully connected layers at batch 1 as torch exports them (Gemm, B transposed), each with its own weights: the
    chain's weights exceed the caches, so each layer's come from memory, as a classifier's do in a network."""

    def build() -> onnx.ModelProto:
        rng = np.random.default_rng(0)
        nodes, weights, previous = [], {}, "a"
        for layer in range(layers):
            weights[f"w{layer}"] = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
            weights[f"b{layer}"] = rng.standard_normal(width).astype(np.float32)
            nodes.append(helper.make_node("Gemm", [previous, f"w{layer}", f"b{layer}"], [f"y{layer}"], transB=1))
            previous = f"y{layer}"
        return _model(nodes, {"a": [1, width]}, (previous, [1, width]), weights, name)

    return Case(name, benchmark, build, 2 * layers * width * width, True)


CASES = (
    conv_case("conv1x1.64_256_56", "1x1 conv 64->256, 56x56 (ResNet-50)", c=64, m=256, hw=56, k=1),
    conv_case("conv1x1.1024_256_14", "1x1 conv 1024->256, 14x14 (ResNet-50)", c=1024, m=256, hw=14, k=1),
    conv_case("conv1x1.24_144_56", "1x1 conv 24->144, 56x56 (MobileNetV2)", c=24, m=144, hw=56, k=1),
    conv_case("conv1x1.320_1280_7", "1x1 conv 320->1280, 7x7 (MobileNetV2)", c=320, m=1280, hw=7, k=1),
    conv_case("conv3x3.64_64_56", "3x3 conv 64->64, 56x56 (ResNet-50)", c=64, m=64, hw=56, k=3),
    conv_case("conv3x3.256_256_14", "3x3 conv 256->256, 14x14 (ResNet-50)", c=256, m=256, hw=14, k=3),
    conv_case("conv3x3s2.128_128_56", "3x3 conv stride 2, 128->128, 56x56 (ResNet-50)", c=128, m=128, hw=56, k=3,
              stride=2),
    conv_case("stem7x7s2.3_64_224", "7x7 stem stride 2, 3->64, 224x224 (ResNet-50)", c=3, m=64, hw=224, k=7,
              stride=2),
    conv_case("dw3x3.32_112", "depthwise 3x3, 32 ch, 112x112 (MobileNetV2)", c=32, m=32, hw=112, k=3, group=32),
    conv_case("dw3x3s2.96_112", "depthwise 3x3 stride 2, 96 ch, 112x112 (MobileNetV2)", c=96, m=96, hw=112, k=3,
              stride=2, group=96),
    conv_case("dw5x5.240_28", "depthwise 5x5, 240 ch, 28x28 (EfficientNet-B0)", c=240, m=240, hw=28, k=5, group=240),
    conv_case("dw7x7.96_56", "depthwise 7x7, 96 ch, 56x56 (ConvNeXt-T)", c=96, m=96, hw=56, k=7, group=96),
    conv_case("grouped1x1.g3_240_28", "grouped 1x1 conv g=3, 240->240, 28x28 (ShuffleNet)", c=240, m=240, hw=28,
              k=1, group=3),
    conv_case("grouped3x3.g32_128_56", "grouped 3x3 conv g=32, 128->128, 56x56 (ResNeXt)", c=128, m=128, hw=56,
              k=3, group=32),
    matmul_case("matmul.square_512", "MatMul 512x512 by constant 512x512", batch=1, m=512, k=512, n=512,
                constant=True),
    matmul_case("matmul.ffn_128_768_3072", "MatMul 128x768 by constant 768x3072 (BERT FFN)", batch=1, m=128, k=768,
                n=3072, constant=True),
    matmul_case("matmul.mlp_197_3072_768", "MatMul 197x3072 by constant 3072x768 (ViT-B/16 MLP out)", batch=1, m=197,
                k=3072, n=768, constant=True),
    matmul_case("matmul.attention_12_128_64", "batched MatMul 12 x 128x64 by 64x128 (attention)", batch=12, m=128,
                k=64, n=128, constant=False),
    linear_chain_case("matvec.linear_1280_x12", "12 Linear 1280->1280 at batch 1, weights from memory (classifier)",
                      width=1280, layers=12),
)
QUICK_CASES = tuple(c for c in CASES if c.name in ("conv1x1.64_256_56", "conv3x3.64_64_56", "dw3x3.32_112",
                                                   "matmul.attention_12_128_64"))


def cases(quick: bool) -> Sequence[Case]:
    return QUICK_CASES if quick else CASES


def compile_cases(directory: Path, quick: bool) -> None:
    """Writes kernels_CASE.onnx and .om for every case (parent side)."""
    for case in cases(quick):
        model = case.build()
        onnx.save(model, str(directory / f"kernels_{case.name}.onnx"))
        ascendsim.compile(model, directory / f"kernels_{case.name}", soc_version=SOC, precision_mode="force_fp32")


def _path(model_id: int) -> str:
    nodes = ascendsim.model_kernels(model_id)["plans"][0]["nodes"]
    return next((node["path"] for node in nodes if node["path"]), "")


def worker(directory: Path, quick: bool, effort: Effort) -> tuple[dict[str, Figure], dict[str, str]]:
    """Every case's three figures, and the paths ours and the OpenBLAS side took (worker side, one thread)."""
    import acl

    from .sessions import Ours, Peer, random_feeds

    figures: dict[str, Figure] = {}
    notes: dict[str, str] = {}
    for case in cases(quick):
        onnx_path, om_path = directory / f"kernels_{case.name}.onnx", directory / f"kernels_{case.name}.om"
        feeds = random_feeds(onnx_path)
        ours = Ours(om_path, feeds)
        os.environ.update(OPENBLAS)  # read when a kernel is built: this load only
        library = Ours(om_path, feeds)
        for key in OPENBLAS:
            del os.environ[key]
        peer = Peer(onnx_path, feeds, 1, optimise=True)
        notes[f"kernels.{case.name}.ours"] = _path(ours.model_id)
        notes[f"kernels.{case.name}.openblas"] = _path(library.model_id)
        names = {"execute": acl.mdl.execute, "ours": (ours.model_id, ours.inputs, ours.outputs),
                 "library": (library.model_id, library.inputs, library.outputs),
                 "run_with_iobinding": peer.session.run_with_iobinding, "binding": peer.binding}
        start = time.perf_counter()
        acl.mdl.execute(ours.model_id, ours.inputs, ours.outputs)
        iterations = max(1, round(REPEAT_SECONDS / max(time.perf_counter() - start, 1e-6)))
        figures.update(common.measure({f"kernels.{case.name}.ours": "execute(*ours)",
                                       f"kernels.{case.name}.openblas": "execute(*library)",
                                       f"kernels.{case.name}.ort": "run_with_iobinding(binding)"},
                                      iterations, names, effort.repeats))
        ours.close()
        library.close()
    return figures, notes


def rows(figures: dict[str, Figure], notes: dict[str, str], quick: bool) -> list[Row]:
    out: list[Row] = []
    for case in cases(quick):
        ours, note = figures[f"kernels.{case.name}.ours"], f"ours: {notes.get(f'kernels.{case.name}.ours', '')}"
        if case.product:
            out.append(make_row(f"kernels.{case.name}.openblas", case.benchmark, ours,
                                f"OpenBLAS: {notes.get(f'kernels.{case.name}.openblas', '')}",
                                figures[f"kernels.{case.name}.openblas"], flops=case.flops, note=note))
            note = ""
        out.append(make_row(f"kernels.{case.name}.ort", case.benchmark, ours, "ORT, one node",
                            figures[f"kernels.{case.name}.ort"], flops=case.flops, note=note))
    return out
