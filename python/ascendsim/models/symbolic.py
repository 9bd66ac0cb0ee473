"""Dynamic axes on a built model: the named inputs' and outputs' dims replaced, a str becoming a dim_param (a
symbolic dim, as PyTorch's exporter writes `dynamic_axes`), and the intermediate value_info dropped (it holds the
static shapes the builder inferred)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import onnx


def symbolic(model: onnx.ModelProto, dims: Mapping[str, Sequence[int | str]]) -> onnx.ModelProto:
    """`model` (changed in place) with the named inputs/outputs' dims replaced (a str is a dim_param: dynamic)."""
    for vi in list(model.graph.input) + list(model.graph.output):
        if vi.name not in dims:
            continue
        shape = vi.type.tensor_type.shape
        del shape.dim[:]
        for d in dims[vi.name]:
            dim = shape.dim.add()
            if isinstance(d, str):
                dim.dim_param = d
            else:
                dim.dim_value = d
    del model.graph.value_info[:]
    return model
