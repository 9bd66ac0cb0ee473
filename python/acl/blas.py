"""acl.blas: matrix products on the device, with pyACL's names, argument order and return shapes (pyACL's blas
module over acl/ops/acl_cblas.h). Pointers (alpha, beta, the matrices and vectors: device memory) and the stream
are ints; lda/ldb/ldc and incx/incy must be -1.

`gemm_ex(trans_a, trans_b, trans_c, m, n, k, alpha, matrix_a, lda, data_type_a, matrix_b, ldb, data_type_b, beta,
matrix_c, ldc, data_type_c, type, stream)` -> ret; `hgemm(...)` / `s8gemm(...)` without the data types;
`gemv_ex(trans_a, m, n, alpha, a, lda, data_type_a, x, incx, data_type_x, beta, y, incy, data_type_y, type, stream)`
-> ret, `hgemv` / `s8gemv`; every `create_handle_for_*` -> (handle, ret), run with `acl.op.execute_with_handle`.
As on the device, the "GEMM" operator must be compiled first (atc --singleop, then acl.op.set_model_dir).
"""

from ascendsim import _core

gemm_ex = _core.aclblasGemmEx
create_handle_for_gemm_ex = _core.aclblasCreateHandleForGemmEx
hgemm = _core.aclblasHgemm
create_handle_for_hgemm = _core.aclblasCreateHandleForHgemm
s8gemm = _core.aclblasS8gemm
create_handle_for_s8gemm = _core.aclblasCreateHandleForS8gemm
gemv_ex = _core.aclblasGemvEx
create_handle_for_gemv_ex = _core.aclblasCreateHandleForGemvEx
hgemv = _core.aclblasHgemv
create_handle_for_hgemv = _core.aclblasCreateHandleForHgemv
s8gemv = _core.aclblasS8gemv
create_handle_for_s8gemv = _core.aclblasCreateHandleForS8gemv
