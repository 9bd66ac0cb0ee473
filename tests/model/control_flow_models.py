"""Small ONNX models with If and Loop for the control-flow tests (each checked against onnxruntime)."""

from __future__ import annotations

import numpy as np
import onnx
from exec_helpers import OPSET, const, tensor
from onnx import TensorProto, helper

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _model(nodes: list[onnx.NodeProto], name: str, inputs: list[onnx.ValueInfoProto],
           outputs: list[onnx.ValueInfoProto], inits: list[onnx.TensorProto] | None = None) -> onnx.ModelProto:
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, inits or []), opset_imports=OPSET)
    onnx.checker.check_model(model, full_check=True)
    return model


def if_shapes() -> onnx.ModelProto:
    """y = If(ReduceSum(x) > 0): then x * 2 ([2, 3]), else Concat(x, w) ([4, 3]); the condition follows the data
    and the branches give different shapes; both read outer-scope x (and else w)."""
    then = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["t"])], "then", [], [tensor("t", [2, 3])],
                             [const("two", np.array(2.0, np.float32))])
    other = helper.make_graph([helper.make_node("Concat", ["x", "w"], ["e"], axis=0)], "else", [],
                              [tensor("e", [4, 3])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0), helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
             helper.make_node("Relu", ["y"], ["z"])]
    return _model(nodes, "if_shapes", [tensor("x", [2, 3]), tensor("w", [2, 3])], [tensor("z", ["rows", 3])],
                  [const("zero", np.array(0.0, np.float32))])


def if_outer_scope() -> onnx.ModelProto:
    """An If on a bool input whose branches compute from outer-scope tensors (a graph input, a computed tensor
    and an initializer) with more than one node each, two outputs."""
    then = helper.make_graph([helper.make_node("MatMul", ["h", "wt"], ["m"]), helper.make_node("Add", ["m", "x"], ["o1"]),
                              helper.make_node("Sigmoid", ["o1"], ["o2"])], "then", [],
                             [tensor("o1", [2, 4]), tensor("o2", [2, 4])])
    other = helper.make_graph([helper.make_node("Sub", ["h", "x"], ["p1"]), helper.make_node("Neg", ["p1"], ["p2"])],
                              "else", [], [tensor("p1", [2, 4]), tensor("p2", [2, 4])])
    nodes = [helper.make_node("Tanh", ["x"], ["h"]),
             helper.make_node("If", ["flag"], ["a", "b"], then_branch=then, else_branch=other)]
    rng = np.random.default_rng(3)
    return _model(nodes, "if_outer", [tensor("flag", [], B), tensor("x", [2, 4])],
                  [tensor("a", [2, 4]), tensor("b", [2, 4])], [const("wt", rng.standard_normal((4, 4)).astype(np.float32))])


def loop_matrix_power() -> onnx.ModelProto:
    """Loop with a trip count M and no condition: p = p @ a each iteration (a matrix power), a running sum of
    the iteration numbers, and a scan output of each iteration's trace."""
    body = helper.make_graph([
        helper.make_node("MatMul", ["p_in", "a"], ["p_out"]),
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Add", ["s_in", "fi"], ["s_out"]),
        helper.make_node("Identity", ["c_in"], ["c_out"]),
        helper.make_node("EyeLike", ["p_out"], ["eye"]),
        helper.make_node("Mul", ["p_out", "eye"], ["diag"]),
        helper.make_node("ReduceSum", ["diag"], ["trace"], keepdims=0)],
        "body", [tensor("i", [], I64), tensor("c_in", [], B), tensor("p_in", [3, 3]), tensor("s_in", [])],
        [tensor("c_out", [], B), tensor("p_out", [3, 3]), tensor("s_out", []), tensor("trace", [])])
    nodes = [helper.make_node("Loop", ["M", "", "p0", "s0"], ["p", "s", "traces"], body=body)]
    return _model(nodes, "loop_power", [tensor("M", [], I64), tensor("a", [3, 3]), tensor("p0", [3, 3]), tensor("s0", [])],
                  [tensor("p", [3, 3]), tensor("s", []), tensor("traces", ["n"])])


def loop_while() -> onnx.ModelProto:
    """A while loop (M empty, cond given): x doubles while its sum stays below a limit; the scan output is each
    iteration's x (a concatenation along a new axis 0); the carried value grows (Concat) each iteration."""
    body = helper.make_graph([
        helper.make_node("Mul", ["x_in", "two"], ["x_out"]),
        helper.make_node("ReduceSum", ["x_out"], ["s"], keepdims=0),
        helper.make_node("Less", ["s", "limit"], ["c_out"]),
        helper.make_node("Concat", ["g_in", "one"], ["g_out"], axis=0),
        helper.make_node("Identity", ["x_out"], ["seen"])],
        "body", [tensor("i", [], I64), tensor("c_in", [], B), tensor("x_in", [2]), tensor("g_in", ["k"])],
        [tensor("c_out", [], B), tensor("x_out", [2]), tensor("g_out", ["k2"]), tensor("seen", [2])],
        [const("two", np.array(2.0, np.float32)), const("one", np.ones(1, np.float32))])
    nodes = [helper.make_node("Loop", ["", "go", "x0", "g0"], ["x", "g", "seen_all"], body=body)]
    return _model(nodes, "loop_while", [tensor("go", [], B), tensor("x0", [2]), tensor("limit", []), tensor("g0", [1])],
                  [tensor("x", [2]), tensor("g", ["m"]), tensor("seen_all", ["n", 2])])


def loop_nested_if() -> onnx.ModelProto:
    """A Loop (trip count and condition) whose body holds an If choosing by the parity of the iteration number:
    even iterations add v (an outer-scope input of the Loop read inside the If), odd ones multiply by 0.5; the
    loop stops early when the accumulator's sum passes a limit."""
    then = helper.make_graph([helper.make_node("Add", ["acc_in", "v"], ["r1"])], "even", [], [tensor("r1", [4])])
    other = helper.make_graph([helper.make_node("Mul", ["acc_in", "half"], ["r2"])], "odd", [], [tensor("r2", [4])],
                              [const("half", np.array(0.5, np.float32))])
    body = helper.make_graph([
        helper.make_node("Mod", ["i", "two"], ["parity"]),
        helper.make_node("Equal", ["parity", "zero"], ["even"]),
        helper.make_node("If", ["even"], ["acc_out"], then_branch=then, else_branch=other),
        helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
        helper.make_node("Less", ["s", "limit"], ["c_out"]),
        helper.make_node("Identity", ["acc_out"], ["trace"])],
        "body", [tensor("i", [], I64), tensor("c_in", [], B), tensor("acc_in", [4])],
        [tensor("c_out", [], B), tensor("acc_out", [4]), tensor("trace", [4])],
        [const("two", np.array(2, np.int64)), const("zero", np.array(0, np.int64))])
    nodes = [helper.make_node("Loop", ["M", "go", "acc0"], ["acc", "traces"], body=body)]
    return _model(nodes, "loop_if", [tensor("M", [], I64), tensor("go", [], B), tensor("acc0", [4]), tensor("v", [4]),
                                     tensor("limit", [])], [tensor("acc", [4]), tensor("traces", ["n", 4])])
