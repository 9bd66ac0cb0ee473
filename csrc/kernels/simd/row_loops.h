// Row loops of the normalisation, softmax, bias, im2col, TransData and Transpose kernels (softmax_norm.cpp,
// matmul.cpp, conv.cpp, transdata_kernel.cpp, copy_util.cpp), one table per kernel variant (simd/row_loops.cpp).
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

struct RowLoops {
  // y = softmax (or log-softmax) of the contiguous row x of len values; x may equal y.
  void (*softmax)(const float* x, float* y, int64_t len, bool log);
  // The same over an axis of len values `inner` apart, for `cols` adjacent positions of the inner dims (x[0],
  // x[1], ... x[cols - 1] start their axes).
  void (*softmax_strided)(const float* x, float* y, int64_t len, int64_t inner, int64_t cols, bool log);
  // The mean of the row and 1 / sqrt(variance + eps) (population variance, as LayerNorm and InstanceNorm).
  void (*moments)(const float* x, int64_t len, float eps, float* mean, float* inv_std);
  // y = (x - mean) * inv_std * scale + bias, scale / bias per element (count len) or one value (count 1), or
  // absent (null).
  void (*normalize)(const float* x, float* y, int64_t len, float mean, float inv_std, const float* scale,
                    int64_t scale_count, const float* bias, int64_t bias_count);
  // y = x * scale + shift clamped to [lo, hi] (a fused Relu or Clip; pass -inf, +inf for none; NaN stays NaN).
  void (*affine)(const float* x, float* y, int64_t len, float scale, float shift, float lo, float hi);
  // sums[j] = the double sum of line[j] over `lines` lines of 16 floats, `stride` floats apart (a blocked plane's
  // spatial sum: reduce.cpp).
  void (*line_sums)(const float* x, int64_t lines, int64_t stride, double* sums);
  // row[j] += bias[j] for j < n.
  void (*add)(float* row, const float* bias, int64_t n);
  // row[c] = src[c * stride] for c in [0, n).
  void (*gather)(const float* src, int64_t stride, float* row, int64_t n);
  // y[i] = x[i] rounded to the nearest float16 value (dtype_convert.h's round_fp16); x may equal y.
  void (*round_fp16)(const float* x, float* y, int64_t n);
  // TransData's rows (bits of 4-byte elements): `used` rows of w values, `plane` apart (NCHW), into w lines of
  // c0 values (NC1HWC0; the lanes past `used` zero), and back (lines_to_rows writes only the `used` rows).
  void (*rows_to_lines)(const uint32_t* rows, int64_t plane, int64_t used, int64_t c0, int64_t w, uint32_t* lines);
  void (*lines_to_rows)(const uint32_t* lines, int64_t used, int64_t c0, int64_t w, int64_t plane, uint32_t* rows);
  // dst[c * dst_pitch + r] = src[r * src_pitch + c] for r < rows, c < cols (4-byte elements).
  void (*transpose)(const uint32_t* src, int64_t src_pitch, int64_t rows, int64_t cols, uint32_t* dst, int64_t dst_pitch);
};

const RowLoops& row_loops();

}  // namespace ascendsim::kernels
