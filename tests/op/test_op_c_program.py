"""A C++ program in the official single-operator sample's style (acl_execute_add), built against the
installed headers and libascendcl.so, running models `atc --singleop` wrote."""

from __future__ import annotations

from pathlib import Path

from op_helpers import single_op_models, tensor_json

from acl_helpers import Compiler

HERE = Path(__file__).resolve().parent


def test_execute_add_sample_flow(compiler: Compiler, tmp_path: Path) -> None:
    single_op_models([{"op": "Add", "input_desc": [tensor_json([8, 16], "int32")] * 2,
                       "output_desc": [tensor_json([8, 16], "int32")]}], tmp_path / "op_models")
    program = compiler.build(HERE / "c" / "execute_add.cpp")
    result = compiler.run(program, str(tmp_path / "op_models"))
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout + result.stderr
