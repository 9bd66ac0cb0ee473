// Lowering: a CANN operator call -> the NodeSpec of the shared registry kernel that runs it.
//
// Each family of cann_ops.def has one function that (1) checks the call as CANN's operator prototype does
// (input/output counts, dtypes, ranks, attribute values), (2) translates CANN's attributes and value
// inputs (axes, perm, paddings, ...) into the kernel's ONNX attributes, (3) names which CANN inputs feed
// which kernel inputs (possibly through a transposition, for BatchMatMul's adj_x1/adj_x2), and (4) infers
// every output's dtype and dims. Failures record a message with fail() and return the AscendCL code:
// ACL_ERROR_OP_INPUT_NOT_MATCH / OP_OUTPUT_NOT_MATCH for counts, dtypes and shapes that do not fit the
// operator, ACL_ERROR_OP_ATTR_NOT_MATCH for attribute values, ACL_ERROR_UNSUPPORTED_DATA_TYPE for dtypes
// the kernel does not implement.
#pragma once
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/attrs.h"
#include "op/op_call.h"
#include "op/op_table.h"

namespace ascendsim::op {

struct KernelInput {
  int source = -1;                 // the CANN input index; -1: absent optional input (or `constant`)
  std::vector<int64_t> transpose;  // non-empty: the kernel sees the input transposed by this perm
  // A constant the lowering computed (Slice's normalised starts and steps): an INT64 1-D kernel input.
  bool constant = false;
  std::vector<int64_t> values;
};

struct Lowering {
  std::string kernel, domain;
  kernels::Attrs attrs;                 // the kernel's attributes
  std::vector<KernelInput> inputs;      // per kernel input
  std::vector<aclDataType> out_dtypes;  // per CANN output
  // The dtype the kernel writes, when it differs from out_dtypes (ArgMax writes INT64): a registry Cast
  // converts. Empty: as out_dtypes.
  std::vector<aclDataType> kernel_out_dtypes;
  std::vector<std::vector<int64_t>> out_dims;
  // The dims the kernel writes, when they differ from out_dims with the same bytes (StridedSlice's shrunk and
  // new axes) or, with out_transpose, the dims before the transposition. Empty: as out_dims.
  std::vector<std::vector<int64_t>> kernel_out_dims;
  // Per output, non-empty: the kernel writes the output in another layout and a registry Transpose by this perm
  // gives CANN's (Conv2D NHWC: the kernel writes NCHW).
  std::vector<std::vector<int64_t>> out_transpose;
};

// Lowers `call` (static input shapes) for `op`. Returns ACL_SUCCESS or the recorded error.
aclError lower(const CannOp& op, const OpCall& call, Lowering* out);

// ---- for the family files ----
struct LowerCtx {
  const CannOp& op;
  const OpCall& call;
  Lowering& out;
  aclError error(aclError code, const char* fmt, ...) const;  // "<api>: <op type>: <message>"
  const OpTensor& in(size_t i) const { return call.inputs[i]; }
  bool present(size_t i) const { return i < call.inputs.size() && !call.inputs[i].absent; }
  // Kernel inputs are the CANN inputs 0..n-1 in order (absent ones stay absent).
  void pass_inputs(size_t n);
  // Appends a kernel input holding `values` (INT64, 1-D).
  void constant_input(std::vector<int64_t> values);
  // The int values of value input `i` (int32/int64 host values): false with the error recorded.
  aclError int_values(size_t i, const char* what, std::vector<int64_t>* values) const;
  // The attribute as ints (list, or a single int as a list of one); `fallback` when missing.
  std::vector<int64_t> ints(const char* name, std::vector<int64_t> fallback = {}) const;
  aclError axis(int64_t given, size_t rank, const char* what, int64_t* out) const;  // normalised
  aclError same_dtype(size_t first, size_t last) const;  // inputs [first, last] share input first's dtype
  // The m x n of the 2-D product op(input a) op(input b) (op transposes when the flag is set), named `what` in
  // messages ("x1 and x2"); refused when they are not 2-D or do not share the reduction dim.
  aclError matrix_product(size_t a, size_t b, bool ta, bool tb, const char* what, int64_t* m, int64_t* n) const;
};

// Setting the kernel's attributes.
void set_int(kernels::Attrs& a, const char* name, int64_t v);
void set_ints(kernels::Attrs& a, const char* name, std::vector<int64_t> v);
void set_float(kernels::Attrs& a, const char* name, double v);
void set_string(kernels::Attrs& a, const char* name, std::string v);

aclError lower_elementwise(LowerCtx& c);  // Unary, Gelu, Cast, Binary, Compare, Select
aclError lower_nn(LowerCtx& c);           // MatMul, BatchMatMul, Conv2D, Pool(V), Softmax, Reduce, ArgMax, LayerNorm
aclError lower_gemm(LowerCtx& c);         // GEMM (the aclblas operator)
aclError lower_layout(LowerCtx& c);       // Transpose ... TransData
aclError lower_slice(LowerCtx& c);        // Slice(D), StridedSlice(D)

}  // namespace ascendsim::op
