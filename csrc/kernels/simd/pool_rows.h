// The pooling loops (pool.cpp), one table per kernel variant (simd/pool_rows.cpp), and the pooling geometry
// they share with pool.cpp.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

struct PoolGeometry {
  int64_t planes = 0, h = 1, w = 1, oh = 1, ow = 1, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t ph = 0, pw = 0, ph_end = 0, pw_end = 0;
  int64_t lanes = 1;  // floats per pixel, pooled independently (16: an NC1HWC0 plane's pixel of a block)
  bool max = true, include_pad = false;
};

struct PoolRows {
  // Floats of the work buffer a call needs (0: the planes run tap by tap, without one).
  int64_t (*work_floats)(const PoolGeometry& g);
  // y (planes x oh x ow) = max / average pooling of `planes` consecutive planes x (h x w each); `work` holds
  // work_floats(g) floats.
  void (*max_planes)(const PoolGeometry& g, const float* x, int64_t planes, float* work, float* y);
  void (*average_planes)(const PoolGeometry& g, const float* x, int64_t planes, float* work, float* y);
  // y[p] = max / mean of the `len` values of plane p, for planes [0, planes).
  void (*global_planes)(const float* x, int64_t planes, int64_t len, bool max, float* y);
  // y (planes x oh x ow x lanes) = max / average pooling (g.max) of `planes` consecutive planes x (h x w x lanes
  // each) over their pixels of g.lanes floats.
  void (*lanes_planes)(const PoolGeometry& g, const float* x, int64_t planes, float* y);
};

const PoolRows& pool_rows();

}  // namespace ascendsim::kernels
