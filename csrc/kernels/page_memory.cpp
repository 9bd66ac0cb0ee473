// Huge-page-advised mappings (see page_memory.h).
#include "kernels/page_memory.h"

#include <sys/mman.h>

#include <new>

namespace ascendsim::kernels {

float* map_floats(size_t count) {
  if (count == 0) return nullptr;
  const size_t bytes = count * sizeof(float);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // advisory: small pages where the system has no huge ones
#endif
  return static_cast<float*>(p);
}

void unmap_floats(float* p, size_t count) {
  if (p != nullptr) munmap(p, count * sizeof(float));
}

}  // namespace ascendsim::kernels
