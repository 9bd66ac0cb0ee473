"""The installed headers: they compile cleanly as C and C++ in several standards, with the struct
layouts and values of the real AscendCL, and every numeric fact of the API spec matches."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import ascendcl
import ascendsim
from acl_helpers import TESTS

SPEC = TESTS.parent.parent / "shared" / "spec" / "ascendcl-c-api.md"


@pytest.mark.parametrize(("source", "standard"), [
    ("header_check.c", "c99"), ("header_check.c", "c11"),
    ("header_check.cpp", "c++11"), ("header_check.cpp", "c++17"),
])
def test_header_check_programs(tmp_path: Path, source: str, standard: str) -> None:
    compiler = "g++" if source.endswith(".cpp") else "gcc"
    output = tmp_path / "check"
    command = [compiler, f"-std={standard}", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
               f"-I{ascendsim.get_include()}", str(TESTS / "c" / source), "-o", str(output)]
    build = subprocess.run(command, capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(output)], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "ok" in run.stdout, run.stdout + run.stderr


def test_layout_for_older_samples() -> None:
    # Older samples include from <prefix>/runtime/include and link from runtime/lib64/stub.
    root = ascendsim.toolkit_root()
    for path in ("include/acl/acl.h", "runtime/include/acl/acl.h", "include/acl/error_codes/rt_error_codes.h",
                 "lib64/libascendcl.so", "runtime/lib64/stub/libascendcl.so", "share/cmake/ascendcl/ascendclConfig.cmake",
                 "compiler/include/acl/acl_op_compiler.h", "compiler/lib64/stub/libacl_op_compiler.so",
                 "runtime/lib64/stub/libacl_cblas.so", "runtime/lib64/stub/libacl_dvpp.so"):
        assert (root / path).is_file(), path


def spec_values() -> dict[str, int]:
    """Every `NAME | value` pair of the spec's error-code tables and NAME=value of its enum listings."""
    text = SPEC.read_text()
    values: dict[str, int] = {}
    for name, value in re.findall(r"`(ACL_[A-Z0-9_]+)`\s*\|\s*(\d+)\s*\|", text):
        values[name] = int(value)
    enums = text[text.index("## 4. Enums"):text.index("## 5. Structs")]
    enums = enums[:enums.index("Notes:")]
    for name, value in re.findall(r"\b(ACL_[A-Z0-9_]+)=(-?(?:0x[0-9a-fA-F]+|\d+))", enums):
        values[name] = int(value, 0)
    return values


@pytest.mark.skipif(not SPEC.exists(), reason="the API spec is not beside this checkout")
def test_every_spec_value_matches() -> None:
    expected = spec_values()
    assert len(expected) >= 400
    wrong = {name: (getattr(ascendcl, name, None), value) for name, value in expected.items()
             if getattr(ascendcl, name, None) != value}
    assert wrong == {}


def test_sample_of_values() -> None:
    # Stated here too, so the check stands without the spec beside the checkout.
    assert (ascendcl.ACL_ERROR_INVALID_PARAM, ascendcl.ACL_ERROR_API_NOT_SUPPORT) == (100000, 200001)
    assert (ascendcl.ACL_ERROR_RT_PARAM_INVALID, ascendcl.ACL_ERROR_RT_MEMORY_ALLOCATION) == (107000, 207001)
    assert (ascendcl.ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, ascendcl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) == (
        145006, 507046)
    assert (ascendcl.ACL_BF16, ascendcl.ACL_FORMAT_FRACTAL_NZ, ascendcl.ACL_MEMCPY_DEFAULT) == (27, 29, 4)
    assert (ascendcl.ACL_MAX_DIM_CNT, ascendcl.ACL_EVENT_TIME_LINE, ascendcl.ACL_STOP_ON_FAILURE) == (128, 8, 1)
    assert ascendcl.ACL_ERROR_RT_FEATURE_NOT_SUPPROT == ascendcl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT  # old spelling


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_library_exports_exactly_the_c_api() -> None:
    library = Path(ascendsim.get_library_dir()) / "libascendcl.so"
    listing = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                             check=True).stdout
    exported = {line.split()[-1] for line in listing.splitlines() if line.strip()}
    declared = set()
    for header in Path(ascendsim.get_include(), "acl").rglob("*.h"):  # acl/ops/ too
        declared.update(re.findall(r"ACL_FUNC_VISIBILITY[^;(]*?\b(acl\w+)\s*\(", header.read_text()))
    assert declared <= exported
    assert {name for name in exported - declared if not name.startswith("ascendsim")} == set()
