/* Timing shared by the C benchmarks (runtime_bench.c, model_bench.c): MEASURE runs a statement in a loop,
 * bench_repeats times after a warm-up, and prints one JSON line
 *   {"name": ..., "ns": median nanoseconds per iteration, "min": ..., "max": ...}
 * which ascendsim.bench.common.run_c_benchmark reads. The environment variable ASCENDSIM_BENCH_REPEATS
 * (1..MAX_REPEATS, default MAX_REPEATS) sets the repeats: call bench_setup() first. */
#ifndef ASCENDSIM_BENCH_MEASURE_H
#define ASCENDSIM_BENCH_MEASURE_H

#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11: include this header first */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_REPEATS 7

static int bench_repeats = MAX_REPEATS;

static void bench_setup(void) {
  const char* text = getenv("ASCENDSIM_BENCH_REPEATS");
  int repeats = text ? atoi(text) : MAX_REPEATS;
  bench_repeats = repeats < 1 ? 1 : repeats > MAX_REPEATS ? MAX_REPEATS : repeats;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Runs `body` `iterations` times per repeat; reports the median, min and max ns per iteration. */
#define MEASURE(label, iterations, body)                                                          \
  do {                                                                                            \
    double samples_[MAX_REPEATS];                                                                 \
    long it_;                                                                                     \
    int r_;                                                                                       \
    for (it_ = 0; it_ < (iterations) / 10 + 1; ++it_) { body; } /* warm-up */                     \
    for (r_ = 0; r_ < bench_repeats; ++r_) {                                                      \
      double start_ = now_ns();                                                                   \
      for (it_ = 0; it_ < (iterations); ++it_) { body; }                                          \
      samples_[r_] = (now_ns() - start_) / (double)(iterations);                                  \
    }                                                                                             \
    qsort(samples_, (size_t)bench_repeats, sizeof(double), compare);                              \
    printf("{\"name\": \"%s\", \"ns\": %.2f, \"min\": %.2f, \"max\": %.2f}\n", label,             \
           samples_[bench_repeats / 2], samples_[0], samples_[bench_repeats - 1]);                \
    fflush(stdout);                                                                               \
  } while (0)

#endif
