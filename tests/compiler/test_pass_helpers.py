"""Helpers of the pass tests (no tests here): run chosen passes on an imported model, compare the graph
before and after by op counts, and check numerical equivalence in onnxruntime through the exporter."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import onnx

from ascendsim.compiler.host_kernels import run_graph
from ascendsim.compiler.ir import Graph
from ascendsim.compiler.onnx_export import export_onnx
from ascendsim.compiler.onnx_import import import_onnx
from ascendsim.compiler.passes import REGISTRY, PassManager, PassReport
from ascendsim.compiler.passes.verify import verify
from onnx_models import ModelBuilder, random_feeds, run_ort

__all__ = ["ModelBuilder", "Optimized", "optimize", "random_feeds", "run_ort"]


class Optimized:
    """A model imported, optimised by some passes, with its op counts before and after."""

    def __init__(self, model: onnx.ModelProto, passes: Iterable[str] | None = None,
                 input_shapes: dict[str, list[int]] | None = None) -> None:
        self.model = model
        self.graph: Graph = import_onnx(model, input_shapes=input_shapes)
        self.before = self.graph.count_ops()
        disabled = set(REGISTRY) - set(passes) if passes is not None else set()
        self.report: PassReport = PassManager(disabled=disabled, check=True, dump=lambda *_: None).run(self.graph)
        verify(self.graph, "after the passes")
        self.after = self.graph.count_ops()

    def exported(self) -> onnx.ModelProto:
        model = export_onnx(self.graph)
        onnx.checker.check_model(model)
        return model

    def assert_equivalent(self, feeds: dict[str, np.ndarray] | None = None, rtol: float = 1e-4,
                          atol: float = 1e-5) -> None:
        """Both graphs run in onnxruntime agree, and the host interpreter agrees with them."""
        feeds = feeds if feeds is not None else random_feeds(self.model)
        expected = run_ort(self.model, feeds)
        names = [o.name for o in self.model.graph.output]
        got = run_ort(self.exported(), feeds)
        host = run_graph(self.graph, feeds)
        for name, want, have in zip(names, expected, got):
            np.testing.assert_allclose(have, want, rtol=rtol, atol=atol, err_msg=f"onnxruntime, output {name}")
            np.testing.assert_allclose(host[name], want, rtol=rtol, atol=atol, err_msg=f"host, output {name}")


def optimize(model: onnx.ModelProto, *passes: str, input_shapes: dict[str, list[int]] | None = None) -> Optimized:
    """Runs only `passes` (all when none are named) over `model`."""
    return Optimized(model, passes or None, input_shapes)
