/* Runtime microbenchmarks from C, each beside its physical peer, printed as JSON lines:
 *   {"name": ..., "ns": median nanoseconds per operation, "min": ..., "max": ...}
 * Built and run by bench_runtime.py, which adds the Python-side figures and prints the table; timing in
 * bench_measure.h. */
#include "bench_measure.h" /* first: it sets _POSIX_C_SOURCE */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "acl/acl.h"

static void* volatile sink;

/* The physical limit of a launch+synchronize round trip: handing a flag to another spinning thread and
 * waiting for it to hand it back. */
static atomic_int handoff;
static atomic_int handoff_stop;

static void* handoff_worker(void* unused) {
  (void)unused;
  while (!atomic_load_explicit(&handoff_stop, memory_order_relaxed))
    if (atomic_load_explicit(&handoff, memory_order_acquire) == 1)
      atomic_store_explicit(&handoff, 0, memory_order_release);
  return NULL;
}

int main(void) {
  static const size_t sizes[] = {4096, 1 << 20, 64 << 20};
  static const char* size_names[] = {"4KiB", "1MiB", "64MiB"};
  char label[128];
  aclrtStream stream;
  aclrtEvent event;
  void* device;
  void *device_buffer, *host_a, *host_b;
  size_t i;

  if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  aclrtCreateStream(&stream);
  aclrtCreateEvent(&event);

  MEASURE("c.glibc_malloc_free", 1000000, { sink = malloc(4096); free(sink); });
  MEASURE("c.aclrtMalloc_aclrtFree", 1000000, {
    aclrtMalloc(&device, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtFree(device);
  });

  for (i = 0; i < 3; ++i) {
    size_t size = sizes[i];
    long iterations = size <= 4096 ? 200000 : size <= (1 << 20) ? 2000 : 20;
    host_a = malloc(size);
    host_b = malloc(size);
    memset(host_a, 1, size);
    memset(host_b, 2, size);
    aclrtMalloc(&device_buffer, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(device_buffer, size, 0, size);
    snprintf(label, sizeof label, "c.memcpy.%s", size_names[i]);
    MEASURE(label, iterations, { memcpy(host_b, host_a, size); sink = host_b; });
    snprintf(label, sizeof label, "c.aclrtMemcpy_H2D.%s", size_names[i]);
    MEASURE(label, iterations, aclrtMemcpy(device_buffer, size, host_a, size, ACL_MEMCPY_HOST_TO_DEVICE));
    snprintf(label, sizeof label, "c.aclrtMemcpy_D2H.%s", size_names[i]);
    MEASURE(label, iterations, aclrtMemcpy(host_b, size, device_buffer, size, ACL_MEMCPY_DEVICE_TO_HOST));
    aclrtFree(device_buffer);
    free(host_a);
    free(host_b);
  }

  {
    pthread_t worker;
    pthread_create(&worker, NULL, handoff_worker, NULL);
    MEASURE("c.thread_handoff", 20000, {
      atomic_store_explicit(&handoff, 1, memory_order_release);
      while (atomic_load_explicit(&handoff, memory_order_acquire) != 0) {
      }
    });
    atomic_store(&handoff_stop, 1);
    pthread_join(worker, NULL);
  }

  aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  MEASURE("c.launch_synchronize", 20000, {
    aclrtMemsetAsync(device, 64, 0, 1, stream);
    aclrtSynchronizeStream(stream);
  });
  MEASURE("c.event_record_synchronize", 20000, {
    aclrtRecordEvent(event, stream);
    aclrtSynchronizeEvent(event);
  });
  aclrtFree(device);
  aclrtDestroyEvent(event);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
