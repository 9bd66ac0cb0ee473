// Memory for the kernels' own buffers (per-thread scratch, the operands of a timed product), mapped from the
// system in transparent huge pages where it has them, like the device memory a model's tensors live in: the
// kernels read their buffers with row strides of kilobytes (im2col blocks, Winograd's transformed tiles, B
// panels), and on 4 KiB pages every row of such a walk was another TLB entry.
#pragma once
#include <cstddef>

namespace ascendsim::kernels {

// `count` floats (uninitialised; null for 0); throws std::bad_alloc when the system has no memory.
float* map_floats(size_t count);
void unmap_floats(float* p, size_t count);

}  // namespace ascendsim::kernels
