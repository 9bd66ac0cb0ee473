"""Every supported CANN operator, compiled (aclopCompile) and executed through both Python faces, against
numpy: `ascendcl` (aclopExecuteV2 / aclopExecute under their C names) and pyACL's `acl.op.execute_v2`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from op_cases import CASES, Case
from op_helpers import run_op

TABLE = Path(__file__).resolve().parents[2] / "csrc" / "op" / "cann_ops.def"


def case_id(case: Case) -> str:
    return case.op + ("-" + "-".join(sorted(case.attrs)) if case.attrs else "")


@pytest.mark.parametrize("face", ["c", "acl"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_operator_matches_numpy(case: Case, face: str, stream: int) -> None:
    got = run_op(case.op, case.inputs, case.outputs, case.attrs, stream, face=face,
                 fmt=case.fmt if case.fmt is not None else 2)
    for g, want in zip(got, case.expected(), strict=True):
        assert g.shape == want.shape
        if g.dtype == np.bool_ or np.issubdtype(g.dtype, np.integer):
            np.testing.assert_array_equal(g, want)
        else:
            np.testing.assert_allclose(g, want, rtol=case.rtol, atol=case.atol)


def test_v1_execute_runs_too(stream: int) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for face in ("c", "acl"):
        (got,) = run_op("Mul", [a, a], [CASES[0].outputs[0].__class__(np.float32, [2, 3])], None, stream, face=face,
                        v2=False)
        np.testing.assert_array_equal(got, a * a)


def test_every_operator_of_the_table_has_a_case() -> None:
    names = set(re.findall(r"^CANN_OP\(\s*(\w+)", TABLE.read_text(), re.MULTILINE))
    assert names == {c.op for c in CASES}
