"""acl/ops/acl_cblas.h and CANN's library layout: a C program linked as msame links (-lascendcl -lacl_op_compiler
-lacl_cblas -lacl_dvpp) runs the cblas sample's GEMM flow on models `atc --singleop` wrote; both Python faces
(`ascendcl` C names, pyACL's `acl.blas` / `acl.media`) against numpy; every library name in every directory samples
link from, each loadable and resolving the functions through libascendcl.so."""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from op_helpers import check, single_op_models, tensor_json

import acl
import ascendcl as c
import ascendsim
from acl_helpers import Compiler

HERE = Path(__file__).resolve().parent
LIBRARIES = ("ascendcl", "acl_op_compiler", "acl_cblas", "acl_dvpp")


def gemm_json(
    a: list[int], b: list[int], out: list[int], ab: str, cd: str, *, ta: bool = False, tb: bool = False
) -> dict[str, Any]:
    """The GEMM entry of the cblas sample's gemm.json: a, b, c, alpha, beta (scalars), y = c."""
    return {
        "op": "GEMM",
        "input_desc": [
            tensor_json(a, ab),
            tensor_json(b, ab),
            tensor_json(out, cd),
            tensor_json([], cd),
            tensor_json([], cd),
        ],
        "output_desc": [tensor_json(out, cd)],
        "attr": [
            {"name": "transpose_a", "type": "bool", "value": ta},
            {"name": "transpose_b", "type": "bool", "value": tb},
        ],
    }


def test_cblas_sample_flow_in_c_links_all_four_libraries(compiler: Compiler, tmp_path: Path) -> None:
    single_op_models(
        [
            gemm_json([16, 24], [24, 8], [16, 8], "float16", "float16"),
            gemm_json([16, 24], [8, 24], [16, 8], "int8", "int32", tb=True),
            gemm_json([16, 24], [24, 1], [16, 1], "float16", "float16"),
        ],
        tmp_path / "op_models",
    )
    program = compiler.build(HERE / "c" / "cblas_gemm.c", extra=[f"-l{name}" for name in LIBRARIES[1:]] + ["-lm"])
    result = compiler.run(program, str(tmp_path / "op_models"))
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout + result.stderr


def device_copy(array: np.ndarray) -> int:
    ptr, ret = c.aclrtMalloc(max(array.nbytes, 1), c.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(c.aclrtMemcpy(ptr, array.nbytes, array.ctypes.data, array.nbytes, c.ACL_MEMCPY_HOST_TO_DEVICE))
    return ptr


def host_copy(ptr: int, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    check(c.aclrtMemcpy(out.ctypes.data, out.nbytes, ptr, out.nbytes, c.ACL_MEMCPY_DEVICE_TO_HOST))
    return out


def test_blas_through_both_python_faces(tmp_path: Path, stream: int) -> None:
    rng = np.random.default_rng(3)
    m, n, k = 5, 3, 4
    models = single_op_models(
        [
            gemm_json([k, m], [k, n], [m, n], "float32", "float32", ta=True),
            gemm_json([m, k], [k, n], [m, n], "int8", "float32"),
        ],
        tmp_path / "models",
    )
    for model in models:
        image = model.read_bytes()
        assert acl.op.load(acl.util.bytes_to_ptr(image), len(image)) == 0, c.aclGetRecentErrMsg()
    a, b, cm = (rng.standard_normal(s).astype(np.float32) for s in ((k, m), (k, n), (m, n)))
    alpha, beta = np.float32(1.5), np.float32(-0.5)
    da, db, dc, dalpha, dbeta = (device_copy(x) for x in (a, b, cm, np.array(alpha), np.array(beta)))

    def gemm_ex(function: Any, trans: tuple[int, int, int], kk: int, ab: int, compute: int = 0) -> int:
        """function(trans..., m, n, kk, alpha, A, -1, ab, B, -1, ab, beta, C, -1, FLOAT, compute, stream)"""
        return function(*trans, m, n, kk, dalpha, da, -1, ab, db, -1, ab, dbeta, dc, -1, c.ACL_FLOAT, compute, stream)

    # pyACL: acl.blas.gemm_ex with A transposed (A is stored [k, m]); C is updated in place.
    assert gemm_ex(acl.blas.gemm_ex, (c.ACL_TRANS_T, c.ACL_TRANS_N, c.ACL_TRANS_N), k, c.ACL_FLOAT) == 0
    check(c.aclrtSynchronizeStream(stream))
    np.testing.assert_allclose(host_copy(dc, cm), alpha * (a.T @ b) + beta * cm, rtol=1e-5, atol=1e-5)
    # int8 operands, float32 result, through a handle made by create_handle_for_gemm_ex.
    a8, b8 = (rng.integers(-128, 128, s).astype(np.int8) for s in ((m, k), (k, n)))
    for ptr in (da, db):
        check(c.aclrtFree(ptr))
    da, db = device_copy(a8), device_copy(b8)
    handle, ret = acl.blas.create_handle_for_gemm_ex(
        c.ACL_TRANS_N, c.ACL_TRANS_N, c.ACL_TRANS_N, m, n, k, c.ACL_INT8, c.ACL_INT8, c.ACL_FLOAT, 0
    )
    assert ret == 0 and handle, c.aclGetRecentErrMsg()
    sizes = (a8.nbytes, b8.nbytes, cm.nbytes, 4, 4)
    buffers = [c.aclCreateDataBuffer(p, s) for p, s in zip((da, db, dc, dalpha, dbeta), sizes, strict=True)]
    before = host_copy(dc, cm)
    assert acl.op.execute_with_handle(handle, buffers, [buffers[2]], stream) == 0, c.aclGetRecentErrMsg()
    check(c.aclrtSynchronizeStream(stream))
    want = alpha * (a8.astype(np.float32) @ b8.astype(np.float32)) + beta * before
    np.testing.assert_allclose(host_copy(dc, cm), want, rtol=1e-5, atol=1e-4)
    acl.op.destroy_handle(handle)
    # The C names: the checks GE makes before it looks for the operator.
    plain = (c.ACL_TRANS_N, c.ACL_TRANS_N, c.ACL_TRANS_N)
    assert gemm_ex(c.aclblasGemmEx, plain, 0, c.ACL_INT8) == c.ACL_ERROR_INVALID_PARAM
    assert "k = 0" in c.aclGetRecentErrMsg()
    nz_t = (c.ACL_TRANS_N, c.ACL_TRANS_N, c.ACL_TRANS_NZ_T)
    assert gemm_ex(c.aclblasGemmEx, nz_t, k, c.ACL_INT8) == c.ACL_ERROR_INVALID_PARAM
    low = c.ACL_COMPUTE_LOW_PRECISION
    assert gemm_ex(c.aclblasGemmEx, plain, k, c.ACL_INT8, low) == c.ACL_ERROR_INVALID_PARAM
    # An int32 result was never compiled: GE's match fails, nothing runs.
    s8 = c.aclblasS8gemm(*plain, m, n, k, dalpha, da, -1, db, -1, dbeta, dc, -1, 0, stream)
    assert s8 == c.ACL_ERROR_OP_NOT_FOUND
    for buffer in buffers:
        check(c.aclDestroyDataBuffer(buffer))
    for ptr in (da, db, dc, dalpha, dbeta):
        check(c.aclrtFree(ptr))


def test_dvpp_memory_through_both_faces(device: int) -> None:
    ptr, ret = acl.media.dvpp_malloc(1000)
    assert ret == 0 and ptr % 128 == 0
    stats = ascendsim.memory_stats(0)
    assert stats["requested_bytes"] >= 1000
    data = np.arange(1000, dtype=np.uint8)
    check(c.aclrtMemcpy(ptr, 1000, data.ctypes.data, 1000, c.ACL_MEMCPY_HOST_TO_DEVICE))
    assert acl.media.dvpp_free(ptr) == 0
    assert acl.media.dvpp_free(ptr) == c.ACL_ERROR_RT_PARAM_INVALID  # freed twice
    assert c.acldvppMalloc(0)[1] == c.ACL_ERROR_INVALID_PARAM
    host = np.zeros(4, np.uint8)
    assert c.acldvppFree(host.ctypes.data) == c.ACL_ERROR_RT_PARAM_INVALID
    assert "not device memory" in c.aclGetRecentErrMsg()


@pytest.mark.parametrize("directory", ["lib64", "runtime/lib64/stub", "compiler/lib64/stub"])
def test_every_library_name_loads_and_resolves_through_libascendcl(directory: str) -> None:
    root = ascendsim.toolkit_root()
    for name in LIBRARIES:
        path = root / directory / f"lib{name}.so"
        if name == "ascendcl" and directory.startswith("compiler"):
            assert not path.exists()  # CANN keeps libascendcl.so out of compiler/
            continue
        library = ctypes.CDLL(str(path))
        for function in ("aclInit", "aclopCompile", "aclblasGemmEx", "acldvppMalloc"):
            assert hasattr(library, function), (path, function)
    for header in (
        "compiler/include/acl/acl_op_compiler.h",
        "include/acl/ops/acl_cblas.h",
        "runtime/include/acl/ops/acl_dvpp.h",
        "compiler/lib64/libacl_op_compiler.so",
    ):
        assert (root / header).is_file(), header


def test_sample_include_and_link_directories(compiler: Compiler) -> None:
    # The samples' -I$DDK_PATH/compiler/include -L$INSTALL_DIR/compiler/lib64/stub -L$NPU_HOST_LIB flags.
    root = ascendsim.toolkit_root()
    program = compiler.workdir / "uses_compiler_dirs.c"
    program.write_text(
        '#include "acl/acl_op_compiler.h"\n#include "acl/ops/acl_cblas.h"\n'
        "int main(void) { return aclopCompile(0, 0, 0, 0, 0, 0, ACL_ENGINE_SYS, ACL_COMPILE_SYS, 0) ==\n"
        "  ACL_ERROR_INVALID_PARAM &&\n"
        "  aclblasCreateHandleForHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 0, 1, 1, 0, 0) ==\n"
        "  ACL_ERROR_INVALID_PARAM ? 0 : 1; }\n"
    )
    output = compiler.workdir / "uses_compiler_dirs"
    build = subprocess.run(
        [
            "gcc",
            str(program),
            "-o",
            str(output),
            f"-I{root / 'compiler/include'}",
            f"-L{root / 'compiler/lib64/stub'}",
            f"-L{root / 'runtime/lib64/stub'}",
            "-lascendcl",
            "-lacl_op_compiler",
            "-lacl_cblas",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    assert compiler.run(output).returncode == 0
