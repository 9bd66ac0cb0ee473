// Strided copies shared by the data-movement kernels: dtype-agnostic (elements are 1, 2, 4 or 8 bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ascendsim::kernels {

// Copies a tensor of `dims` (C order into dst) from src where element (i0, i1, ...) sits at element
// offset sum(i_k * src_strides[k]). Dims are collapsed where possible; contiguous runs use memcpy. Large
// copies are split over the thread pool.
struct StridedCopy {
  std::vector<int64_t> dims, strides;  // collapsed
  int64_t elem = 4, numel = 0;
  void init(const std::vector<int64_t>& out_dims, const std::vector<int64_t>& src_strides, int64_t elem_size);
  void run(const void* src, void* dst) const;

 private:
  // The source offset (elements) of entry `index` of the first `count` dims, in C order.
  int64_t leading_offset(int64_t index, size_t count) const;
  void run_transpose(const uint32_t* src, uint32_t* dst) const;
};

}  // namespace ascendsim::kernels
