"""The library is portable to aarch64 (docs/kernels.md, "aarch64"): all of csrc/ cross-compiles with Debian's
g++-aarch64-linux-gnu with its warnings as errors, built by the project's CMakeLists.txt as a cross build; the kernel driver, built for
aarch64 with the NEON variant, passes a cross-section of the kernel tests under qemu-user (the same tests and
numpy / onnxruntime references as on the host, run by a pytest with --kernel-target=aarch64); and the NEON
loops are spill-checked like the host's. Skipped where the cross compiler, qemu-aarch64 or the aarch64 OpenBLAS
wheel cannot be had (.ci/run installs the first two)."""

from __future__ import annotations

import subprocess
import sys

import aarch64_target
import pytest
from kernel_build import OPTIMIZED, ROOT, Target
from library_build import build_library, cmake_available
from spill_check import Loop, tiled_in, variant_loops

# The kernel tests run under qemu (~300 cases, a minute): every path with its own NEON loops or its own use of
# OpenBLAS, at the sizes that reach it. All of tests/model/test_kernels_*.py passes too (pytest
# --kernel-target=aarch64 tests/model/test_kernels_*.py), in about a minute more.
KERNEL_CASES = [
    "test_kernels_cube.py::test_conv",  # im2col + OpenBLAS: groups, depthwise, dilations, strides, 1-D
    "test_kernels_cube.py::test_matmul",
    "test_kernels_cube.py::test_conv_epilogue",
    "test_kernels_fastpaths.py::test_conv_constant_weights",  # packed weights (narrow / wide tiles), Winograd
    "test_kernels_fastpaths.py::test_conv_fused_sum",
    "test_kernels_fastpaths.py::test_depthwise",  # same-size, polyphase and stride-2 planes
    "test_kernels_fastpaths.py::test_conv_blocks",  # the general path's column blocks
    "test_kernels_blocked.py::test_blocked_conv_matches_onnxruntime",  # NC1HWC0 tiles: dense, depthwise, borders
    "test_kernels_blocked.py::test_blocked_conv_on_an_nchw_stem_image_matches_onnxruntime",
    "test_kernels_fastpaths.py::test_matmul_packed_weights",  # column panels
    "test_kernels_fastpaths.py::test_matmul_split",  # OpenBLAS cut over the pool's threads
    "test_kernels_fastpaths.py::test_maxpool_rows",
    "test_kernels_fastpaths.py::test_vmath_ranges",
    "test_kernels_nn.py::test_pool",
    "test_kernels_nn.py::test_global_pool",
    "test_kernels_nn.py::test_softmax",
    "test_kernels_nn.py::test_layernorm",
    "test_kernels_nn.py::test_batchnorm",
    "test_kernels_elementwise.py::test_unary",
    "test_kernels_elementwise.py::test_fused_elementwise",
    "test_kernels_elementwise.py::test_cast",
    "test_kernels_elementwise.py::test_float_to_int_beyond_range",  # where x86-64 and aarch64 casts differ
    "test_kernels_transpose.py::test_transpose_squares",  # 4 x 4 squares (TransData's rows too)
]

@pytest.fixture(scope="module")
def aarch64() -> Target:
    if reason := aarch64_target.unavailable():
        pytest.skip(reason)
    return aarch64_target.target()


def test_library_cross_compiles_without_warnings(aarch64: Target) -> None:
    if not cmake_available():
        pytest.skip("needs cmake and make")
    library = build_library(aarch64_target.CACHE, aarch64, ["-Werror"])
    # The export map holds on aarch64 too: only the C API's functions are exported.
    listed = subprocess.run([aarch64.tool("nm"), "-D", "--defined-only", str(library)], capture_output=True,
                            text=True, check=True).stdout.split("\n")
    exported = [line.split()[-1].split("@")[0] for line in listed if line.strip()]
    assert "aclInit" in exported
    assert all(name.startswith(("acl", "ascendsim")) for name in exported), exported


def test_kernels_under_qemu(aarch64: Target) -> None:
    # A pytest of its own: --kernel-target switches the kernel tests' driver fixture (tests/model/conftest.py).
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--kernel-target=aarch64",
               "-o", "log_cli_level=WARNING",
               *(str(ROOT / "tests" / "model" / case) for case in KERNEL_CASES)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1200, check=False)
    summary = result.stdout.strip().splitlines()[-1:] or [""]
    assert result.returncode == 0 and " passed" in summary[0], result.stdout[-20000:] + result.stderr[-5000:]
    assert "skipped" not in summary[0], summary  # every case ran, on the NEON variant


@pytest.fixture(scope="module")
def neon_loops() -> list[Loop]:
    if reason := aarch64_target.missing_compilers():
        pytest.skip(reason)
    return variant_loops(ROOT / "build" / "kernel_driver", OPTIMIZED, aarch64_target.TOOLCHAIN)["neon"]


@pytest.mark.parametrize("function", sorted(tiled_in("neon")))
def test_neon_multiply_loops_do_not_spill(neon_loops: list[Loop], function: str) -> None:
    arithmetic = [loop for loop in neon_loops if loop.multiply_adds]
    mine = [loop for loop in arithmetic if loop.function == function]
    assert mine, f"no innermost loop of {function} multiplies (the check would pass vacuously)"
    spilling = [loop for loop in mine if loop.spills]
    assert not spilling, spilling
