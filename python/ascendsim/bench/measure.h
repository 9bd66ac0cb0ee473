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

/* At most this long per repeat: on a loaded machine a round trip between threads can take a scheduler tick
 * instead of a microsecond, and fixed iteration counts would then run for minutes. */
#define MAX_REPEAT_NS 0.3e9
#define MAX_WARMUP_NS 0.1e9

static void report(const char* label, double* samples) {
  qsort(samples, (size_t)bench_repeats, sizeof(double), compare);
  printf("{\"name\": \"%s\", \"ns\": %.2f, \"min\": %.2f, \"max\": %.2f}\n", label, samples[bench_repeats / 2],
         samples[0], samples[bench_repeats - 1]);
  fflush(stdout);
}

/* Warm-up: a tenth of `limit` iterations of `body`, at most MAX_WARMUP_NS; then lowers `limit` so that a
 * repeat takes at most about MAX_REPEAT_NS. */
#define WARM_UP(limit, body)                                                          \
  do {                                                                                \
    double start_ = now_ns(), spent_;                                                 \
    long warm_ = 0, fit_;                                                             \
    do {                                                                              \
      body;                                                                           \
      ++warm_;                                                                        \
    } while (warm_ < (limit) / 10 + 1 && now_ns() - start_ < MAX_WARMUP_NS);          \
    spent_ = now_ns() - start_;                                                       \
    fit_ = (long)((double)warm_ * MAX_REPEAT_NS / (spent_ > 1.0 ? spent_ : 1.0));     \
    if (fit_ < (limit)) (limit) = fit_ < 2 ? 2 : fit_;                                \
  } while (0)

/* One repeat: ns per iteration of `limit` iterations of `body`, stored in `sample`. */
#define TIME(sample, limit, body)                                                     \
  do {                                                                                \
    double start_ = now_ns();                                                         \
    long it_;                                                                         \
    for (it_ = 0; it_ < (limit); ++it_) { body; }                                     \
    (sample) = (now_ns() - start_) / (double)(limit);                                 \
  } while (0)

/* Runs `body` up to `iterations` times per repeat; reports the median, min and max ns per iteration. */
#define MEASURE(label, iterations, body)                                              \
  do {                                                                                \
    double samples_[MAX_REPEATS];                                                     \
    long limit_ = (iterations);                                                       \
    int r_;                                                                           \
    WARM_UP(limit_, body);                                                            \
    for (r_ = 0; r_ < bench_repeats; ++r_) TIME(samples_[r_], limit_, body);          \
    report(label, samples_);                                                          \
  } while (0)

/* `body` and its peer `peer_body` taking turns in every repeat, so both see the same machine; `peer_begin`
 * and `peer_end` run around each of the peer's turns, untimed (e.g. waking and parking a helper thread). */
#define MEASURE_VS(label, body, peer_label, peer_begin, peer_body, peer_end, iterations) \
  do {                                                                                \
    double ours_[MAX_REPEATS], peers_[MAX_REPEATS];                                   \
    long ours_limit_ = (iterations), peer_limit_ = (iterations);                      \
    int r_;                                                                           \
    WARM_UP(ours_limit_, body);                                                       \
    peer_begin;                                                                       \
    WARM_UP(peer_limit_, peer_body);                                                  \
    peer_end;                                                                         \
    for (r_ = 0; r_ < bench_repeats; ++r_) {                                          \
      TIME(ours_[r_], ours_limit_, body);                                             \
      peer_begin;                                                                     \
      TIME(peers_[r_], peer_limit_, peer_body);                                       \
      peer_end;                                                                       \
    }                                                                                 \
    report(label, ours_);                                                             \
    report(peer_label, peers_);                                                       \
  } while (0)

#endif
