"""The ONNX backend node test suite run through ascendsim.compile (force_fp32) and aclmdlExecute.

The cases come from the `onnx` package: onnx/backend/test/data/node/*/ (model.onnx + test_data_set_*/input_*.pb,
output_*.pb) when the installed wheel ships it; the wheels on PyPI no longer ship that directory, so otherwise
the same cases are generated in memory by onnx's own generator (onnx.backend.test.case.node.collect_testcases,
which is what `backend-test-tools generate-data` writes to disk).

Every case is compiled and executed, all in one test (one process, each case milliseconds; the whole set takes
about 15 s). Outcomes:
- pass: outputs match (rtol 1e-4 / atol 1e-5 for floats, exact for integers and bool);
- refused: the compiler raises CompileError (it names the node, op or attribute), or aclmdlLoadFromFile fails
  with an error naming what is missing (no kernel for the op). Each refusal must be one of the unsupported
  features that docs/onnx-ops.md lists (REFUSALS below: the pattern of the message and the words of the docs'
  list; an unsupported op must be named there): anything else FAILS the test;
- wrong numbers, or any other exception/crash-like error code: the test FAILS, unless the case is in KNOWN_ISSUES
  with a reason.
The summary (counts per outcome and per documented refusal, the cases grouped) is printed at the end of the
session through the terminal reporter; `-k node_cases -s` shows it alone.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import re
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from exec_helpers import DeviceBuffers
from onnx import numpy_helper

from ascendcl import (
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclmdlExecute,
    aclmdlLoadFromFile,
    aclmdlUnload,
)
from ascendsim.compiler.build import compile as compile_om
from ascendsim.compiler.errors import CompileError

RTOL, ATOL = 1e-4, 1e-5

# case name -> reason. A case here that runs with wrong numbers is reported, not failed. Keep it short and
# explain every entry; an entry that starts passing is reported as "fixed" so it can be removed.
KNOWN_ISSUES: dict[str, str] = {}

# case name -> why its expected outputs are not usable at rtol 1e-4: compared with onnxruntime instead.
ORT_REFERENCE: dict[str, str] = {
    "test_averagepool_2d_ceil_last_window_starts_on_pad":
        "onnx's expected output is written rounded to 4 digits (0.1511 for 0.15105554, which onnxruntime gives)",
    "test_gridsample_bicubic":
        "onnx's expected output is written rounded to 4 digits (-0.1406 for -0.140625, which onnxruntime gives)",
    "test_roialign_aligned_false": "onnx's expected output is written rounded to 4 digits (0.3510 for 0.35105)",
    "test_roialign_aligned_true": "onnx's expected output is written rounded to 4 digits (0.3070 for 0.30695)",
}

SUMMARY: list[str] = []
DOCS = Path(__file__).resolve().parents[2] / "docs" / "onnx-ops.md"

# The unsupported features a refusal may name: (message pattern, the words docs/onnx-ops.md lists it with).
REFUSALS: dict[str, tuple[str, str]] = {
    "opset": (r"ONNX opset \d+ is not supported", "Opsets other than 11 to 21"),
    "domain": (r"imports no default-domain|domain '[^']*' is not supported", "Other domains"),
    "element type": (r"element type \w+ is not supported", "Element types"),
    "non-tensor values": (r"is not a tensor", "Sequences, maps and optionals"),
    "control flow": (r"control flow \(subgraphs\)", "Control flow"),
    "dynamic shapes": (r"computed at run time|dynamic shapes are not supported yet", "Dynamic shapes"),
    "training": (r"training_mode|inference only", "Training"),
    "float compute": (r"supports FLOAT and FLOAT16|dtype (DOUBLE|BOOL|UINT8) is not supported",
                      "FLOAT and FLOAT16 only"),
    "types of newer opsets": (r"does not take: it takes|takes unsigned integer tensors", "Types of newer opsets"),
    "resize modes": (
        r"\(Resize\): (antialias|coordinate_transformation_mode='tf_crop_and_resize'|keep_aspect_ratio)",
        "Resize"),
    "3-D windows": (r"only 1-D and 2-D", "3-D pooling"),
    "pool options": (r"dilations are not supported for AveragePool|storage_order|only the first output",
                     "MaxPool's indices"),
    "op": (r"\((\w+)\): op is not supported", "Ops not supported"),
}

MIN_OPSET, MAX_OPSET = 11, 21  # the compiler's supported default-domain opsets (its CompileError names them)


def _signature(schema: onnx.defs.OpSchema) -> tuple[Any, ...]:
    attributes = sorted((n, int(a.type), a.default_value.SerializeToString()) for n, a in schema.attributes.items())
    return (attributes, [(i.name, int(i.option)) for i in schema.inputs],
            [(o.name, int(o.option)) for o in schema.outputs])


def same_op(op_type: str, version: int, target: int) -> bool:
    """The op is the same at opset `version` and `target`: the same version, or versions whose schemas have the
    same attributes (with defaults), inputs and outputs -- the op version bumps of opsets 22-28 of that kind
    only added element types (bfloat16, float8, 4-/2-bit ints), e.g. Conv 22, Reshape 23-25, TopK 24, Mod 28
    (but see _float_floor_mod);
    those that changed more (Cast 24+ with round_mode, Range 27) keep the case rejected."""
    try:
        here, there = onnx.defs.get_schema(op_type, version), onnx.defs.get_schema(op_type, target)
    except onnx.defs.SchemaError:
        return False
    if here.since_version == there.since_version:
        return True
    return version > target and _signature(here) == _signature(there)


def _cases_from_data_dir() -> list[tuple[str, onnx.ModelProto, list[tuple[list[Any], list[Any]]]]] | None:
    root = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"
    if not root.is_dir():
        return None
    cases = []
    for case_dir in sorted(root.iterdir()):
        model_path = case_dir / "model.onnx"
        if not model_path.is_file():
            continue
        model = onnx.load(str(model_path))
        data_sets = []
        for ds in sorted(case_dir.glob("test_data_set_*")):
            def read(kind: str, ds: Path = ds) -> list[Any]:
                arrays = []
                for i in range(len(list(ds.glob(f"{kind}_*.pb")))):
                    proto = onnx.TensorProto()
                    proto.ParseFromString((ds / f"{kind}_{i}.pb").read_bytes())
                    arrays.append(numpy_helper.to_array(proto))
                return arrays
            data_sets.append((read("input"), read("output")))
        cases.append((case_dir.name, model, data_sets))
    return cases


def _cases_generated() -> list[tuple[str, onnx.ModelProto, list[tuple[list[Any], list[Any]]]]]:
    from onnx.backend.test.case import node as node_cases
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        collected = node_cases.collect_testcases(None)
    def arrays(values: list[Any]) -> list[Any]:  # some generators give TensorProtos (e.g. CastLike's)
        return [numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v for v in values]
    return [(c.name, c.model, [(arrays(i), arrays(o)) for i, o in c.data_sets]) for c in collected
            if c.model is not None and c.data_sets]


def collect() -> list[tuple[str, onnx.ModelProto, list[tuple[list[Any], list[Any]]]]]:
    cases = _cases_from_data_dir()
    if cases is None:
        cases = _cases_generated()
    return cases








def _main_op(name: str, model: onnx.ModelProto) -> str:
    ops = [n.op_type for n in model.graph.node]
    return ops[-1] if len(set(ops)) > 1 else ops[0]


def _short(message: str) -> str:
    message = re.sub(r"supported ops: .*", "supported ops: ...", message)
    message = re.sub(r"\s+", " ", message).strip()
    return message[:500]


def _compare(got: np.ndarray, want: np.ndarray) -> str | None:
    """None when `got` matches `want`, else what differs."""
    want = np.asarray(want)
    if got.shape != want.shape and got.size == want.size:
        got = got.reshape(want.shape)  # ranks are the model's: flat sizes equal is enough for the buffer
    if got.shape != want.shape:
        return f"shape {got.shape} != expected {want.shape}"
    try:
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, want)
    except AssertionError as error:
        lines = [line for line in str(error).splitlines() if line.strip()]
        return " ".join(lines[1:4])[:300]
    return None


def restamp_opset(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """The compiler takes opsets MIN_OPSET..MAX_OPSET; onnx's generator writes each case at the newest opset (or
    the op's old one). When the case's default-domain opset is outside that range, a copy re-stamped to the
    nearest supported opset, provided every node's op is the same there (same_op). None when no re-stamp
    applies."""
    imports = [o for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if len(imports) != 1:
        return None
    version = imports[0].version
    target = MAX_OPSET if version > MAX_OPSET else MIN_OPSET if version < MIN_OPSET else None
    if target is None:
        return None
    if not all(same_op(node.op_type, version, target) for node in model.graph.node):
        return None
    if any(_float_floor_mod(model, node) for node in model.graph.node) and target < 28:
        return None
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for o in copy.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = target
    return copy


def _load(directory: Path, name: str, model: onnx.ModelProto) -> tuple[int, str, str]:
    """(model id, '', '') when compiled and loaded, else (0, outcome, detail)."""
    try:
        result = compile_om(model, directory / name, soc_version="Ascend910B1", precision_mode="force_fp32")
    except CompileError as error:
        return 0, "unsupported", f"CompileError: {_short(str(error))}"
    except Exception as error:  # noqa: BLE001 - a crash of the compiler is a finding, reported as error
        return 0, "error", f"compiler raised {type(error).__name__}: {_short(str(error))}"
    model_id, ret = aclmdlLoadFromFile(str(result.output))
    if ret != ACL_SUCCESS:
        message = aclGetRecentErrMsg() or ""
        documented = "no kernel" in message.lower() or "not supported" in message.lower()
        return 0, "unsupported" if documented else "error", f"load error {ret}: {_short(message)}"
    return model_id, "", ""


def _execute(model_id: int, inputs: list[Any], outputs: list[Any]) -> tuple[str, str]:
    ins = DeviceBuffers([np.ascontiguousarray(a) for a in inputs])
    outs = DeviceBuffers([np.zeros(np.asarray(o).shape, np.asarray(o).dtype) for o in outputs])
    try:
        ret = aclmdlExecute(model_id, ins.dataset, outs.dataset)
        if ret != ACL_SUCCESS:
            message = aclGetRecentErrMsg() or ""
            return "unsupported" if "not supported" in message.lower() else "error", \
                f"execute error {ret}: {_short(message)}"
        got = outs.read()
    finally:
        ins.close()
        outs.close()
    for index, (g, w) in enumerate(zip(got, outputs)):
        problem = _compare(g, w)
        if problem is not None:
            return "wrong", f"output {index}: {problem}"
    return "pass", ""


def _float_floor_mod(model: onnx.ModelProto, node: onnx.NodeProto) -> bool:
    """Mod with fmod=0 on floats: defined only from opset 28 (before, fmod must be 1 for floats; onnxruntime
    rejects it), so such a case is not the same test at opset 21 although Mod's schema did not change."""
    if node.op_type != "Mod" or any(a.name == "fmod" and a.i == 1 for a in node.attribute):
        return False
    floats = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16}
    return any(v.type.tensor_type.elem_type in floats for v in model.graph.input)


def run_case(directory: Path, name: str, model: onnx.ModelProto,
             data_sets: list[tuple[list[Any], list[Any]]]) -> tuple[str, str]:
    """('pass' | 'unsupported' | 'wrong' | 'error', detail)."""
    model_id, outcome, detail = _load(directory, name, model)
    if not model_id:
        return outcome, detail
    if name in ORT_REFERENCE:
        import onnxruntime as ort
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        names = [i.name for i in model.graph.input]
        data_sets = [(inputs, session.run(None, dict(zip(names, inputs)))) for inputs, _ in data_sets]
    try:
        for inputs, outputs in data_sets:
            outcome, detail = _execute(model_id, inputs, outputs)
            if outcome != "pass":
                return outcome, detail
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    return "pass", ""


@pytest.fixture(scope="module", autouse=True)
def _print_summary(request: pytest.FixtureRequest) -> Any:
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and SUMMARY:
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            reporter.write_line("")
            reporter.write_sep("=", "ONNX backend node tests through ascendsim")
            for line in SUMMARY:
                reporter.write_line(line)


def refusal(detail: str) -> tuple[str, str] | None:
    """(REFUSALS key, the op for 'op') of a refused case's message, None if no documented feature matches."""
    for key, (pattern, _) in REFUSALS.items():
        match = re.search(pattern, detail)
        if match:
            return key, match.group(1) if key == "op" else ""
    return None


def unsupported_ops_in_docs() -> set[str]:
    """The ops the 'Not supported' section of docs/onnx-ops.md names (in backquotes)."""
    text = DOCS.read_text()
    section = text[text.index("## Not supported"):]
    section = section[:section.index("\n## ", 1)]
    return set(re.findall(r"`(\w+)`", section))


def test_onnx_backend_node_cases(device: int) -> None:
    start = time.monotonic()
    cases = collect()
    results: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)  # outcome -> [(case, detail)]
    ops_of: dict[str, str] = {}
    restamped_passes = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, data_sets in cases:
            ops_of[name] = _main_op(name, model) if model.graph.node else "(no nodes)"
            outcome, detail = run_case(Path(tmp), name, model, data_sets)
            restamped = restamp_opset(model) if outcome == "unsupported" and "opset" in detail else None
            if restamped is not None:
                outcome, detail = run_case(Path(tmp), name, restamped, data_sets)
                detail = f"[opset re-stamped to {restamped.opset_import[0].version}] {detail}".strip()
                if outcome == "pass":
                    restamped_passes += 1
            results[outcome].append((name, detail))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(Path(tmp) / f"{name}.om")
    elapsed = time.monotonic() - start

    wrong_known = [(n, d) for n, d in results["wrong"] + results["error"] if n in KNOWN_ISSUES]
    wrong_new = [(n, d) for n, d in results["wrong"] if n not in KNOWN_ISSUES]
    errors_new = [(n, d) for n, d in results["error"] if n not in KNOWN_ISSUES]
    fixed = [n for n, _ in results["pass"] if n in KNOWN_ISSUES]
    documented_ops = unsupported_ops_in_docs()
    by_refusal: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    undocumented: list[tuple[str, str]] = []
    for name, detail in results["unsupported"]:
        found = refusal(detail)
        if found is None or (found[0] == "op" and found[1] not in documented_ops):
            undocumented.append((name, detail))
        else:
            by_refusal[found[0]].append((name, detail))

    SUMMARY.append(f"{len(cases)} node cases in onnx {onnx.__version__}: {len(results['pass'])} passed "
                   f"({restamped_passes} of them with the opset re-stamped), {len(results['unsupported'])} refused "
                   f"({len(undocumented)} of them not a documented unsupported feature), {len(wrong_new)} wrong "
                   f"numbers, {len(errors_new)} other errors, {len(wrong_known)} known issues ({elapsed:.1f} s)")
    SUMMARY.append("refused, per unsupported feature of docs/onnx-ops.md: " + ", ".join(
        f"{key} {len(by_refusal[key])}" for key in REFUSALS if by_refusal[key]))

    def grouped(title: str, items: list[tuple[str, str]]) -> None:
        if not items:
            return
        SUMMARY.append(f"-- {title} ({len(items)}):")
        by_op: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
        for name, detail in items:
            by_op[ops_of[name]].append((name, detail))
        for op in sorted(by_op):
            SUMMARY.append(f"  {op}:")
            for name, detail in by_op[op]:
                SUMMARY.append(f"    {name}: {detail}")

    for key in REFUSALS:
        grouped(f"refused: {key} ({REFUSALS[key][1]!r} in docs/onnx-ops.md)", by_refusal[key])
    grouped("REFUSED, BUT NOT A DOCUMENTED UNSUPPORTED FEATURE", undocumented)
    grouped("WRONG NUMBERS", wrong_new)
    grouped("OTHER ERRORS (not a documented 'not supported')", errors_new)
    grouped("known issues", [(n, f"{KNOWN_ISSUES[n]} [{d}]") for n, d in wrong_known])
    if fixed:
        SUMMARY.append(f"-- known issues now passing (remove from KNOWN_ISSUES): {', '.join(fixed)}")

    assert results["pass"], "no node case passed"
    text = DOCS.read_text()
    assert all(words in text for _, words in REFUSALS.values()), "docs/onnx-ops.md lacks an unsupported feature"
    assert not wrong_new and not errors_new and not undocumented, "\n".join(
        [f"{n} ({ops_of[n]}): {d}" for n, d in wrong_new + errors_new + undocumented])
