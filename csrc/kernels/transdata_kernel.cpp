// The ascendsim::TransData kernel: the one layout change with no ONNX twin, between a 4-D NCHW/NHWC tensor
// and its NC1HWC0 form (Ascend's 5-D layout: C split into C1 = ceil(C / C0) blocks of C0 channels, C0 = 16,
// 32 for 1-byte types; the channels past C in the last block are zero). Attributes (set by the TransData
// lowering, op/lower_layout.cpp): src_format, dst_format (aclFormat values) and channels (the 4-D C).
// One pass over the 5-D index space: each (n, c1, h, w, c0) element is read from or written to its 4-D
// position; padding channels are written as zero bytes (5-D destination) or skipped (4-D destination). NCHW
// tensors of 4-byte elements (the layout pass's, at every end of a conv chain) move a row of a block at a time.
#include <algorithm>
#include <cstring>

#include "core/enum_value.h"
#include "kernels/kernel_util.h"
#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

std::unique_ptr<Kernel> make_transdata(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1) return refuse(spec, error, "needs one input and one output");
  const Attrs empty;
  const Attrs& a = spec.attrs ? *spec.attrs : empty;
  const aclFormat src = format_or_undefined(a.get_int("src_format", -1));
  const aclFormat dst = format_or_undefined(a.get_int("dst_format", -1));
  const bool to5d = dst == ACL_FORMAT_NC1HWC0;
  const aclFormat four = to5d ? src : dst;
  if ((to5d ? src : dst) == ACL_FORMAT_NC1HWC0 || (four != ACL_FORMAT_NCHW && four != ACL_FORMAT_NHWC) ||
      (!to5d && src != ACL_FORMAT_NC1HWC0))
    return refuse(spec, error, "only NCHW/NHWC <-> NC1HWC0 transfers are supported");
  const auto& d5 = to5d ? spec.outputs[0].dims : spec.inputs[0].dims;
  const auto& d4 = to5d ? spec.inputs[0].dims : spec.outputs[0].dims;
  const int64_t c = a.get_int("channels", -1);
  if (d5.size() != 5 || d4.size() != 4 || c < 0 || d5[1] * d5[4] < c) return refuse(spec, error, "shapes do not match");
  const int64_t n = d5[0], c1 = d5[1], h = d5[2], w = d5[3], c0 = d5[4];
  const bool nchw = four == ACL_FORMAT_NCHW;
  const size_t item = aclDataTypeSize(spec.inputs[0].dtype);
  if (nchw && item == sizeof(float))  // the model path's case (the layout pass): rows of 4-byte elements
    return make_lambda_kernel([=](const void* const* in, void* const* out) {
      const RowLoops& loops = row_loops();  // (a row of a block at a time: simd/row_loops.cpp)
      parallel_for(n * c1 * h, 1, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t b = r / (c1 * h), blk = r / h % c1, y = r % h, used = std::min(c0, c - blk * c0);
          const int64_t row4 = ((b * c + blk * c0) * h + y) * w, plane = h * w;
          if (to5d) {
            loops.rows_to_lines(static_cast<const uint32_t*>(in[0]) + row4, plane, used, c0, w,
                                static_cast<uint32_t*>(out[0]) + r * w * c0);
          } else {
            loops.lines_to_rows(static_cast<const uint32_t*>(in[0]) + r * w * c0, used, c0, w, plane,
                                static_cast<uint32_t*>(out[0]) + row4);
          }
        }
      });
    });
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    const auto* from = static_cast<const uint8_t*>(in[0]);
    auto* to = static_cast<uint8_t*>(out[0]);
    parallel_for(n * c1 * h, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / (c1 * h), blk = r / h % c1, y = r % h;
        for (int64_t x = 0; x < w; ++x) {
          for (int64_t k = 0; k < c0; ++k) {
            const int64_t ch = blk * c0 + k;
            const int64_t i5 = (((b * c1 + blk) * h + y) * w + x) * c0 + k;
            if (ch >= c) {
              if (to5d) std::memset(to + i5 * item, 0, item);
              continue;
            }
            const int64_t i4 = nchw ? ((b * c + ch) * h + y) * w + x : ((b * h + y) * w + x) * c + ch;
            if (to5d) std::memcpy(to + i5 * item, from + i4 * item, item);
            else std::memcpy(to + i4 * item, from + i5 * item, item);
          }
        }
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(TransData, "ascendsim", make_transdata);

}  // namespace ascendsim::kernels
