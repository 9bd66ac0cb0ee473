// StridedCopy (see copy_util.h): collapse dims whose source strides are linear in each other, then walk
// rows (all dims but the last) with row offsets computed per row, copying the last dim by memcpy when its
// stride is 1 and element by element otherwise. A transpose of 4-byte elements (the second-last dim contiguous in
// the source: NCHW <-> NHWC, a key's last two axes) moves 4 x 4 squares instead (simd/row_loops.h), its 2-D
// blocks split into runs of destination rows (before, one value at a time, each load was a cache line of its own:
// ConvNeXt-T's 46 transposes 2.7 ms at 1 thread, Zen 5, now 1.0).
#include "kernels/copy_util.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {

void StridedCopy::init(const std::vector<int64_t>& out_dims, const std::vector<int64_t>& src_strides, int64_t elem_size) {
  elem = elem_size;
  dims.clear();
  strides.clear();
  numel = 1;
  for (int64_t d : out_dims) numel *= d;
  for (size_t i = 0; i < out_dims.size(); ++i) {
    if (out_dims[i] == 1) continue;
    if (!dims.empty() && strides.back() == src_strides[i] * out_dims[i]) {
      dims.back() *= out_dims[i];
      strides.back() = src_strides[i];
    } else {
      dims.push_back(out_dims[i]);
      strides.push_back(src_strides[i]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    strides.push_back(1);
  }
}

namespace {
template <class T>
void copy_run(const T* src, T* dst, int64_t n, int64_t stride) {
  if (stride == 0) {
    std::fill(dst, dst + n, src[0]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
  }
}
}  // namespace

int64_t StridedCopy::leading_offset(int64_t index, size_t count) const {
  int64_t offset = 0;
  for (size_t q = count; q-- > 0;) {
    offset += (index % dims[q]) * strides[q];
    index /= dims[q];
  }
  return offset;
}

// A 4-byte transpose: out[.., i, j] = src[base + i + j * pitch], i < dims[k - 2], j < dims[k - 1] (k = rank).
void StridedCopy::run_transpose(const uint32_t* src, uint32_t* dst) const {
  const size_t k = dims.size();
  const int64_t rows = dims[k - 2], cols = dims[k - 1], pitch = strides[k - 1], blocks = numel / (rows * cols);
  constexpr int64_t kRun = 64;  // destination rows per job
  const int64_t runs = (rows + kRun - 1) / kRun;
  const RowLoops& loops = row_loops();
  parallel_for(blocks * runs, std::max<int64_t>(1, 16384 / (kRun * cols)), [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t base = leading_offset(j / runs, k - 2);
      const int64_t i0 = j % runs * kRun, i1 = std::min(rows, i0 + kRun);
      loops.transpose(src + base + i0, pitch, cols, i1 - i0, dst + (j / runs * rows + i0) * cols, cols);
    }
  });
}

void StridedCopy::run(const void* src, void* dst) const {
  if (numel == 0) return;
  int64_t inner = dims.back(), stride = strides.back(), rows = numel / inner;
  auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (elem == 4 && dims.size() >= 2 && strides[dims.size() - 2] == 1 && stride != 0 && stride != 1)
    return run_transpose(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst));
  parallel_for(rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(inner * elem, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint8_t* sp = s + leading_offset(r, dims.size() - 1) * elem;
      uint8_t* dp = d + r * inner * elem;
      if (stride == 1) {
        std::memcpy(dp, sp, static_cast<size_t>(inner * elem));
        continue;
      }
      switch (elem) {
        case 1: copy_run(sp, dp, inner, stride); break;
        case 2: copy_run(reinterpret_cast<const uint16_t*>(sp), reinterpret_cast<uint16_t*>(dp), inner, stride); break;
        case 4: copy_run(reinterpret_cast<const uint32_t*>(sp), reinterpret_cast<uint32_t*>(dp), inner, stride); break;
        default: copy_run(reinterpret_cast<const uint64_t*>(sp), reinterpret_cast<uint64_t*>(dp), inner, stride); break;
      }
    }
  });
}

}  // namespace ascendsim::kernels
