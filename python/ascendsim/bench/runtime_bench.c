/* Runtime microbenchmarks from C, each beside its physical peer, printed as JSON lines (measure.h):
 *   runtime_bench SCALE MAX_BYTES GROUP...
 * GROUP: malloc, copy, launch, event, callback. SCALE multiplies every iteration count (1 for a full run);
 * copies run at the sizes up to MAX_BYTES. Built and run by ascendsim.bench.runtime, which names the rows. */
#include "measure.h" /* first: it sets _POSIX_C_SOURCE */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "acl/acl.h"
#include "ascendsim/ascendsim_ext.h"

static void* volatile sink;
static double scale = 1.0;

static long scaled(double iterations) {
  long n = (long)(iterations * scale);
  return n < 2 ? 2 : n;
}

/* The physical limit of a launch+synchronize round trip: handing a flag to another spinning thread and
 * waiting for it to hand it back. The helper thread spins only during the peer's turns (HANDOFF_BEGIN/END),
 * so that it takes no CPU from the stream threads during ours. */
static atomic_int handoff;
static atomic_int handoff_active;
static atomic_int handoff_stop;

static void* handoff_worker(void* unused) {
  const struct timespec nap = {0, 200000};
  (void)unused;
  while (!atomic_load_explicit(&handoff_stop, memory_order_relaxed)) {
    if (!atomic_load_explicit(&handoff_active, memory_order_relaxed))
      nanosleep(&nap, NULL);
    else if (atomic_load_explicit(&handoff, memory_order_acquire) == 1)
      atomic_store_explicit(&handoff, 0, memory_order_release);
  }
  return NULL;
}

static void hand_off(void) {
  atomic_store_explicit(&handoff, 1, memory_order_release);
  while (atomic_load_explicit(&handoff, memory_order_acquire) != 0) {
  }
}

#define HANDOFF_BEGIN (atomic_store(&handoff_active, 1), hand_off()) /* returns once the helper is awake */
#define HANDOFF_END atomic_store(&handoff_active, 0)

/* The cheapest peer of the calls that only read a completed event's state: an uncontended mutex. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void lock_unlock(void) {
  pthread_mutex_lock(&mutex);
  pthread_mutex_unlock(&mutex);
}

static void bench_malloc(void) {
  void* device;
  MEASURE_VS("c.aclrtMalloc_aclrtFree.4KiB", { aclrtMalloc(&device, 4096, ACL_MEM_MALLOC_HUGE_FIRST); aclrtFree(device); },
             "c.glibc_malloc_free.4KiB", (void)0, { sink = malloc(4096); free(sink); }, (void)0, scaled(1000000));
  /* 64 MiB is above glibc's largest mmap threshold: every malloc+free maps and unmaps, as an uncached
   * aclrtMalloc+aclrtFree followed by emptying the cache returns the segment. */
  MEASURE_VS("c.aclrtMalloc_aclrtFree_emptyCache.64MiB", {
    aclrtMalloc(&device, 64 << 20, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtFree(device);
    ascendsimEmptyCache(0);
  }, "c.glibc_malloc_free.64MiB", (void)0, { sink = malloc(64 << 20); free(sink); }, (void)0, scaled(2000));
}

static void bench_copy(size_t max_bytes) {
  static const size_t sizes[] = {4096, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
  static const char* names[] = {"4KiB", "64KiB", "1MiB", "16MiB", "64MiB"};
  static const char* kinds[] = {"H2D", "D2H", "D2D", "H2H"};
  char label[128], peer[128];
  size_t i;
  int kind;
  for (i = 0; i < sizeof sizes / sizeof sizes[0] && sizes[i] <= max_bytes; ++i) {
    size_t size = sizes[i];
    double target = (double)(256 << 20) / (double)size; /* about 256 MiB moved per repeat */
    long iterations = scaled(target > 100000 ? 100000 : target < 8 ? 8 : target);
    void *host_a = malloc(size), *host_b = malloc(size), *device_a, *device_b;
    memset(host_a, 1, size);
    memset(host_b, 2, size);
    aclrtMalloc(&device_a, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&device_b, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(device_a, size, 0, size);
    aclrtMemset(device_b, size, 0, size);
    for (kind = 0; kind < 4; ++kind) {
      /* destination, source */
      void* to[] = {device_a, host_b, device_b, host_b};
      void* from[] = {host_a, device_a, device_a, host_a};
      aclrtMemcpyKind codes[] = {ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE,
                                 ACL_MEMCPY_HOST_TO_HOST};
      snprintf(label, sizeof label, "c.aclrtMemcpy_%s.%s", kinds[kind], names[i]);
      snprintf(peer, sizeof peer, "c.memcpy.%s.%s", kinds[kind], names[i]);
      /* The peer copies the same bytes between the same addresses (the emulated device memory is in this
       * process), so that alignment, pages and caches are the same for both. */
      MEASURE_VS(label, aclrtMemcpy(to[kind], size, from[kind], size, codes[kind]),
                 peer, (void)0, { memcpy(to[kind], from[kind], size); sink = to[kind]; }, (void)0, iterations);
    }
    aclrtFree(device_a);
    aclrtFree(device_b);
    free(host_a);
    free(host_b);
  }
}

static void bench_launch(aclrtStream stream, void* device) {
  MEASURE_VS("c.launch_synchronize", { aclrtMemsetAsync(device, 64, 0, 1, stream); aclrtSynchronizeStream(stream); },
             "c.thread_handoff.launch", HANDOFF_BEGIN, hand_off(), HANDOFF_END, scaled(20000));
}

static void bench_event(aclrtStream stream, aclrtStream other, void* device) {
  aclrtEvent event, start, end;
  float ms = 0;
  aclrtCreateEvent(&event);
  aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE);
  aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE);
  MEASURE_VS("c.event_record_synchronize", { aclrtRecordEvent(event, stream); aclrtSynchronizeEvent(event); },
             "c.thread_handoff.record_sync", HANDOFF_BEGIN, hand_off(), HANDOFF_END, scaled(20000));
  /* A record on one stream, a wait for it and a task on the other, the host waiting for that task. */
  MEASURE_VS("c.event_wait_cross_stream", {
    aclrtRecordEvent(event, stream);
    aclrtStreamWaitEvent(other, event);
    aclrtMemsetAsync(device, 64, 0, 1, other);
    aclrtSynchronizeStream(other);
  }, "c.thread_handoff.wait", HANDOFF_BEGIN, hand_off(), HANDOFF_END, scaled(20000));
  MEASURE_VS("c.event_synchronize_completed", aclrtSynchronizeEvent(event),
             "c.mutex.sync_completed", (void)0, lock_unlock(), (void)0, scaled(1000000));
  aclrtRecordEvent(start, stream);
  aclrtMemsetAsync(device, 64, 0, 1, stream);
  aclrtRecordEvent(end, stream);
  aclrtSynchronizeStream(stream);
  MEASURE_VS("c.event_elapsed_time", aclrtEventElapsedTime(&ms, start, end),
             "c.mutex.elapsed", (void)0, lock_unlock(), (void)0, scaled(1000000));
  aclrtDestroyEvent(event);
  aclrtDestroyEvent(start);
  aclrtDestroyEvent(end);
}

/* The report thread a pyACL/AscendCL program subscribes to a stream: it runs the stream's callbacks. */
static atomic_int reporting;

static void* report_loop(void* unused) {
  (void)unused;
  while (atomic_load(&reporting)) aclrtProcessReport(100);
  return NULL;
}

static void empty_callback(void* user_data) { (void)user_data; }

static void bench_callback(aclrtStream stream) {
  pthread_t reporter;
  atomic_store(&reporting, 1);
  pthread_create(&reporter, NULL, report_loop, NULL);
  if (aclrtSubscribeReport((uint64_t)reporter, stream) != ACL_SUCCESS) {
    fprintf(stderr, "aclrtSubscribeReport: %s\n", aclGetRecentErrMsg());
    exit(1);
  }
  MEASURE_VS("c.callback_launch_synchronize", {
    aclrtLaunchCallback(empty_callback, NULL, ACL_CALLBACK_BLOCK, stream);
    aclrtSynchronizeStream(stream);
  }, "c.thread_handoff.callback", HANDOFF_BEGIN, hand_off(), HANDOFF_END, scaled(20000));
  aclrtUnSubscribeReport((uint64_t)reporter, stream);
  atomic_store(&reporting, 0);
  pthread_join(reporter, NULL);
}

int main(int argc, char** argv) {
  aclrtStream stream, other;
  pthread_t helper;
  void* device;
  size_t max_bytes;
  int arg;
  if (argc < 4) {
    fprintf(stderr, "usage: %s SCALE MAX_BYTES GROUP...\n", argv[0]);
    return 2;
  }
  bench_setup();
  scale = atof(argv[1]);
  max_bytes = (size_t)atoll(argv[2]);
  if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  aclrtCreateStream(&stream);
  aclrtCreateStream(&other);
  aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  pthread_create(&helper, NULL, handoff_worker, NULL);
  for (arg = 3; arg < argc; ++arg) {
    const char* group = argv[arg];
    if (strcmp(group, "malloc") == 0) {
      bench_malloc();
    } else if (strcmp(group, "copy") == 0) {
      bench_copy(max_bytes);
    } else if (strcmp(group, "launch") == 0) {
      bench_launch(stream, device);
    } else if (strcmp(group, "event") == 0) {
      bench_event(stream, other, device);
    } else if (strcmp(group, "callback") == 0) {
      bench_callback(stream);
    } else {
      fprintf(stderr, "%s: unknown group %s\n", argv[0], group);
      return 2;
    }
  }
  atomic_store(&handoff_stop, 1);
  pthread_join(helper, NULL);
  aclrtFree(device);
  aclrtDestroyStream(stream);
  aclrtDestroyStream(other);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
