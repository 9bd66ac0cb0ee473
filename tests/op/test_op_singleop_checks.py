"""`atc --singleop` refuses at compile time what the runtime would refuse at execution (the runtime's own check,
ascendsimCheckOpModel): each refused entry fails with EZ3002 and the runtime's reason and leaves no model, the
others are written. And the case that used to compile and then fail at execution: an NHWC Conv2D with an HWCN
filter, which now runs from its model and matches numpy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from op_cases import conv2d
from op_helpers import OpTensors, Out, check, execute, single_op_models, tensor_json

import acl
import ascendcl as c
from ascendsim.compiler.atc import main


def conv_entry(
    x: list[int], w: list[int], y: list[int], dtype: str = "float32", name: str = "conv", **attrs: str
) -> dict[str, Any]:
    """An NHWC Conv2D with an HWCN filter, strides 2, pads [top 1, bottom 1, left 0, right 1]."""
    attr = [
        {"name": "strides", "type": "list_int", "value": [1, 2, 2, 1]},
        {"name": "pads", "type": "list_int", "value": [1, 1, 0, 1]},
    ]
    attr += [{"name": k, "type": "string", "value": v} for k, v in attrs.items()]
    return {
        "op": "Conv2D",
        "name": name,
        "input_desc": [tensor_json(x, dtype, "NHWC"), tensor_json(w, dtype, "HWCN")],
        "output_desc": [tensor_json(y, dtype, "NHWC")],
        "attr": attr,
    }


def pool_entry(shape: list[int], out: list[int]) -> dict[str, Any]:
    """An NHWC MaxPool 2x2 / 2 (the -1 batch of a dynamic one ranging over [1, 4])."""
    ranged = {"shape_range": [[1, 4]]} if -1 in shape else {}
    return {
        "op": "MaxPool",
        "input_desc": [tensor_json(shape, "float32", "NHWC", **ranged)],
        "output_desc": [tensor_json(out, "float32", "NHWC", **ranged)],
        "attr": [
            {"name": "ksize", "type": "list_int", "value": [1, 2, 2, 1]},
            {"name": "strides", "type": "list_int", "value": [1, 2, 2, 1]},
            {"name": "padding", "type": "string", "value": "VALID"},
        ],
    }


def test_atc_refuses_what_the_runtime_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [
        conv_entry([1, 5, 5, 3], [3, 3, 3, 4], [1, 3, 2, 4], name="conv_ok"),
        conv_entry([1, 5, 5, 3], [3, 3, 3, 4], [1, 3, 2, 4], "int32", name="conv_int32"),
        conv_entry([1, 5, 5, 3], [3, 3, 3, 4], [1, 3, 2, 4], data_format="NCHW", name="conv_contradiction"),
        dict(pool_entry([1, 4, 4, 3], [1, 2, 2, 3]), name="pool_nhwc"),  # pooling runs NCHW only
        dict(pool_entry([-1, 4, 4, 3], [-1, 2, 2, 3]), name="pool_dynamic"),  # the format, whatever the shape
        {
            "op": "Add",
            "name": "add_wrong_output",
            "input_desc": [tensor_json([2, 3])] * 2,
            "output_desc": [tensor_json([3, 3])],
        },
        {
            "op": "LayerNorm",
            "name": "norm_params",
            "input_desc": [tensor_json([2, 8]), tensor_json([2, 8]), tensor_json([2, 8])],
            "output_desc": [tensor_json([2, 8]), tensor_json([1, 1]), tensor_json([1, 1])],
            "attr": [{"name": "begin_norm_axis", "type": "int", "value": 1}],
        },
        {
            "op": "Add",
            "name": "add_dynamic",
            "input_desc": [tensor_json([-1, 3], shape_range=[[1, 8]])] * 2,
            "output_desc": [tensor_json([-1, 3], shape_range=[[1, 8]])],
        },
    ]
    spec = tmp_path / "ops.json"
    spec.write_text(json.dumps(ops))
    out = tmp_path / "models"
    assert main([f"--singleop={spec}", f"--output={out}", "--soc_version=Ascend910B1"]) != 0
    text = capsys.readouterr()
    text = text.out + text.err
    reasons = {
        "conv_int32": "dtype INT32 is not supported",
        "conv_contradiction": "does not match x's format NHWC",
        "pool_nhwc": "NCHW only",
        "pool_dynamic": "NCHW only",
        "add_wrong_output": "produces [2, 3]",
        "norm_params": "begin_params_axis 0 differs from begin_norm_axis 1",
    }
    for name, reason in reasons.items():
        assert not (out / f"{name}.om").exists(), name
        op = {"conv": "Conv2D", "pool": "MaxPool", "add": "Add", "norm": "LayerNorm"}[name.split("_")[0]]
        assert f"EZ3002: Optype [{op}] of Ops kernel [AIcoreEngine] is unsupported. Reason: " in text
        assert reason in text, (name, text)
    assert sorted(p.name for p in out.glob("*.om")) == ["add_dynamic.om", "conv_ok.om"]


def test_nhwc_conv2d_with_hwcn_filter_runs_from_its_model(tmp_path: Path, stream: int) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 5, 5, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)  # HWCN
    (model,) = single_op_models([conv_entry([2, 5, 5, 3], [3, 3, 3, 4], [2, 3, 2, 4])], tmp_path / "conv")
    image = model.read_bytes()
    assert acl.op.load(acl.util.bytes_to_ptr(image), len(image)) == 0, c.aclGetRecentErrMsg()
    with OpTensors([x, w], [Out(np.float32, [2, 3, 2, 4], c.ACL_FORMAT_NHWC)], fmt=c.ACL_FORMAT_NHWC) as t:
        check(c.aclSetTensorOriginFormat(t.ins[1].desc, c.ACL_FORMAT_HWCN))
        check(c.aclSetTensorFormat(t.ins[1].desc, c.ACL_FORMAT_HWCN))
        attr = c.aclopCreateAttr()
        check(acl.op.set_attr_list_int(attr, "strides", [1, 2, 2, 1]))
        check(acl.op.set_attr_list_int(attr, "pads", [1, 1, 0, 1]))
        check(execute("Conv2D", t.ins, t.outs, attr, stream))
        check(c.aclrtSynchronizeStream(stream))
        got = t.outs[0].read(np.float32, [2, 3, 2, 4])
        c.aclopDestroyAttr(attr)
    want = conv2d(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), 2, (1, 1, 0, 1)).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
