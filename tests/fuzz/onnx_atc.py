"""Fuzzer of the compiler (`atc`, `ascendsim.compile`) on malformed and contradictory ONNX models.

Case i is a model from bad_onnx.generate (templates of supported ops, then corruptions). Each case, in a worker
(harness.py): `ascendsim.compile(model_bytes, out, soc_version="Ascend910B1")`.
  * A CompileError whose message is not an internal error is a pass ("refused", code 1; atc prints it with
    exit 255, as ATC does); an E19999 "internal error" message, or any other exception type (a traceback out of
    the compiler: the IndexError of a Split axis, the struct.error of a 2^64-byte tensor) is a failure.
  * A model that compiles is loaded and executed once through the runtime (model_calls.load_and_run), to find
    runtime-compiler contradictions: a real error code there is counted by code ("refused"), so the summary
    shows how many compiled models the runtime then refused (each worth a look: the compiler should have said
    so); a crash, hang or traceback there is a failure as in the .om fuzzer.

    python tests/fuzz/onnx_atc.py --seed 1 --cases 10000 [--save DIR] [--progress]
    python tests/fuzz/onnx_atc.py --replay DIR/onnx_atc-seed1-case7-traceback.onnx
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

import bad_onnx
import harness
import model_calls

COMPILE_REFUSED = 1  # the "code" of a CompileError in the counts (atc's exit status is 255)


class CompileInternalError(AssertionError):
    """The compiler ended in an internal error (E19999) instead of a message about the model."""


class OnnxAtc:
    name = "onnx_atc"
    suffix = ".onnx"
    timeout = 60.0

    def __init__(self) -> None:
        self._supported: list[str] = []

    def generate(self, rng: random.Random, index: int) -> bytes:
        if not self._supported:
            from ascendsim.compiler.ops import SUPPORTED_OPS

            self._supported = sorted(SUPPORTED_OPS)
        return bad_onnx.generate(rng, self._supported)

    def setup(self) -> None:
        import warnings

        warnings.simplefilter("ignore")  # numpy's overflow warnings on hostile constants are not findings
        model_calls.setup()

    def run(self, data: bytes) -> harness.Outcome:
        from ascendsim.compiler.build import compile as compile_om
        from ascendsim.compiler.errors import CompileError

        with tempfile.TemporaryDirectory(prefix="fuzz-atc-") as directory:
            try:
                result = compile_om(data, Path(directory) / "model", soc_version="Ascend910B1")
            except CompileError as error:
                if "internal error" in str(error):
                    raise CompileInternalError(str(error)) from error
                return harness.Outcome("refused", COMPILE_REFUSED)
            assert result.output is not None
            image = result.output.read_bytes()
        return model_calls.load_and_run(image)


if __name__ == "__main__":
    sys.exit(harness.main(OnnxAtc(), __file__, default_cases=300))
