// StridedCopy (see copy_util.h): collapse dims whose source strides are linear in each other, then walk
// rows (all dims but the last) with row offsets computed per row, copying the last dim by memcpy when its
// stride is 1 and element by element otherwise.
#include "kernels/copy_util.h"

#include <algorithm>
#include <cstring>

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

void StridedCopy::run(const void* src, void* dst) const {
  if (numel == 0) return;
  int64_t inner = dims.back(), stride = strides.back(), rows = numel / inner;
  auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  parallel_for(rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(inner * elem, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t off = 0, rem = r;
      for (size_t k = dims.size() - 1; k-- > 0;) {
        off += (rem % dims[k]) * strides[k];
        rem /= dims[k];
      }
      const uint8_t* sp = s + off * elem;
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
