// Memory for the kernels' own buffers (per-thread scratch, the operands of a timed product, packed weights), mapped
// from the system in transparent huge pages where it has them, like the device memory a model's tensors live in: the
// kernels read their buffers with row strides of kilobytes (im2col blocks, Winograd's transformed tiles, B
// panels), and on 4 KiB pages every row of such a walk was another TLB entry.
#pragma once
#include <cstddef>

namespace ascendsim::kernels {

// `count` floats (uninitialised; null for 0); throws std::bad_alloc when the system has no memory.
float* map_floats(size_t count);
void unmap_floats(float* p, size_t count);

// `bytes` (> 0), 64-byte aligned, for a kernel's packed weights, from a pool of huge-page chunks: a network's
// layers stream their packed weights from memory, one 4 KiB page after another on small pages, each a TLB miss
// (ResNet-50's weight-heavy convs 2-6% faster on a Xeon once they came from huge pages). Allocations are carved
// one after another from the newest chunk (at least kWeightChunkBytes, whole 2 MiB pages), which takes back the
// blocks at its top as they are freed; a chunk is unmapped when the last allocation in it is freed. Throws
// std::bad_alloc when the system has no memory.
constexpr size_t kWeightChunkBytes = size_t{32} << 20;
void* map_weights(size_t bytes);
void unmap_weights(void* p, size_t bytes);  // bytes: as given to map_weights

}  // namespace ascendsim::kernels
