// Helpers shared by the kernel files: dtype names (the conversions are dtype_convert.h's), numpy broadcasting
// plans, per-thread scratch memory, the fused epilogue activation and the node-flag wrapper that rounds
// outputs to float16 values (ROUND_OUTPUTS_FP16, docs/om-format.md §4.4; today applied by the executor).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/dtype_convert.h"
#include "kernels/kernel.h"

namespace ascendsim::kernels {

// ---- dtypes -----------------------------------------------------------------------------------------
const char* dtype_name(aclDataType dtype);
inline bool is_float_dtype(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_DOUBLE; }
inline bool is_int_dtype(aclDataType d) {
  return d == ACL_INT8 || d == ACL_UINT8 || d == ACL_INT16 || d == ACL_UINT16 || d == ACL_INT32 ||
         d == ACL_UINT32 || d == ACL_INT64 || d == ACL_UINT64 || d == ACL_BOOL;
}

// ---- shapes -----------------------------------------------------------------------------------------
std::string dims_str(const std::vector<int64_t>& dims);
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims);
int64_t product(const std::vector<int64_t>& dims, size_t begin = 0, size_t end = SIZE_MAX);
// The part size of the fewest parts of at most `most` items (>= 1) that cover `total`, as equal as they can be:
// 784 in parts of at most 256 gives 196 (four parts), not 256 + 256 + 256 + 16.
inline int64_t even_part(int64_t total, int64_t most) {
  const int64_t parts = (total + most - 1) / most;
  return parts > 0 ? (total + parts - 1) / parts : total;
}
// Why the window attributes of a Conv, ConvTranspose or pool are out of range, or "" when they are not:
// spatial sizes, kernel sizes, strides and dilations in [1, 2^31] (sizes from 0), pads in [0, 2^31]. Checked
// before any arithmetic on them: a hostile .om's values near 2^62 overflowed int64 in the size formulas. (CANN's
// convolution and pooling operators accept far smaller shapes than this bound.)
std::string window_attrs_problem(const std::vector<int64_t>& sizes, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                 const std::vector<int64_t>& pads);
// A 2-D window's auto_pad into its pads ([top, left, bottom, right]): SAME_UPPER / SAME_LOWER split the padding
// that keeps ceil(size / stride) outputs (the extra one at the end / the beginning), VALID none, NOTSET keeps
// them. Returns false for any other value.
bool resolve_auto_pad(const std::string& auto_pad, const std::vector<int64_t>& sizes, const std::vector<int64_t>& kernel,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, std::vector<int64_t>* pads);
// Normalizes a possibly negative axis; false when out of [-rank, rank).
bool norm_axis(int64_t axis, int64_t rank, int64_t* out);

// Inputs broadcast to `out_dims`, with dims of size 1 dropped and adjacent dims merged while every input
// stays linear over them. The last dim is the inner loop; `strides[k][d]` is input k's element stride
// along collapsed dim d (0 = broadcast).
struct BroadcastPlan {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;
  int64_t inner() const { return dims.empty() ? 1 : dims.back(); }
  int64_t rows() const { return dims.empty() ? 1 : product(dims, 0, dims.size() - 1); }
  // Element offset of input k at the start of `row`.
  int64_t row_offset(size_t k, int64_t row) const;
};
bool broadcast_shapes(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out);
BroadcastPlan plan_broadcast(const std::vector<int64_t>& out_dims, const std::vector<std::vector<int64_t>>& in_dims);

// ---- NC1HWC0 ----------------------------------------------------------------------------------------
// Zeros the lanes past `used` of `pixels` lines of 16 channels (a block's padding channels, which the layout pass
// relies on being zero); nothing when the block is full.
void clear_padding_lanes(float* lines, int64_t pixels, int64_t used);

// ---- scratch ----------------------------------------------------------------------------------------
// Per-thread growable buffers (no allocation once warm); `slot` separates buffers used at the same time.
float* scratch_floats(int slot, size_t count);

// ---- factories --------------------------------------------------------------------------------------
inline bool fail_spec(const NodeSpec& spec, std::string* error, const std::string& message) {
  if (error != nullptr) *error = spec.op_type + " (node '" + spec.name + "'): " + message;
  return false;
}
// For factories: records the message and returns null.
inline std::nullptr_t refuse(const NodeSpec& spec, std::string* error, const std::string& message) {
  fail_spec(spec, error, message);
  return nullptr;
}

// A kernel from a lambda (for simple ops whose state is captured).
template <class Fn>
class LambdaKernel final : public Kernel {
 public:
  explicit LambdaKernel(Fn fn) : fn_(std::move(fn)) {}
  void run(const void* const* inputs, void* const* outputs) override { fn_(inputs, outputs); }

 private:
  Fn fn_;
};
template <class Fn>
std::unique_ptr<Kernel> make_lambda_kernel(Fn fn) {
  return std::make_unique<LambdaKernel<Fn>>(std::move(fn));
}

}  // namespace ascendsim::kernels


namespace ascendsim::kernels {

// Float view of a float input for the cube ops: FLOAT inputs are used in place unless they must be rounded
// to float16 values (ROUND_INPUTS_FP16); FLOAT16 inputs are widened. Other buffers come from scratch `slot`.
const float* float_input(const TensorDesc& desc, const void* data, bool round_fp16_values, int slot);
// A constant float32 operand (a layer's weights) as a kernel multiplies it, fixed at build: under
// ROUND_INPUTS_FP16 its values rounded to float16 once into `storage` (the compiler rounds a cube op's constant
// weights already; a kernel built another way may get them unrounded), else `data` itself. Rounding the
// weights on every run instead cost a copy of them per call and kept the packed and Winograd paths off.
const float* rounded_constant(const float* data, int64_t n, bool round_fp16_values, std::vector<float>* storage);

}  // namespace ascendsim::kernels
