// GridSample (opset 16 and 20 semantics, onnxruntime's): samples X [N, C, spatial...] (2-D or 3-D) at the
// points of grid [N, out spatial..., S], whose last dim holds normalized coordinates in [-1, 1], x first (the
// last spatial dim of X), then y (and z).
//
// Per output point the coordinates are denormalized (align_corners: -1/1 are the centres of the corner
// pixels, else their outer edges) and rounded half to even for `nearest`. The point's taps (1 for nearest,
// 2^S for linear, 4x4 for 2-D cubic with a = -0.75) are made once as (offset in a channel, weight); the
// padding applies to each tap outside X: 0 (zeros), clamped to the edge (border) or reflected at the borders
// (reflection: the corner centres with align_corners, else the edges), as onnxruntime's kernel does. Then
// every channel is the weighted sum of its taps.
#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };
constexpr int kMaxTaps = 16;

float reflect(float x, float lo, float hi) {
  const float range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const float dx = lo - x;
    const auto n = static_cast<int64_t>(dx / range);
    const float r = dx - static_cast<float>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const float dx = x - hi;
    const auto n = static_cast<int64_t>(dx / range);
    const float r = dx - static_cast<float>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubic_coefficients(float t, float c[4]) {
  constexpr float a = -0.75f;
  const float x = std::fabs(t);
  c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  c[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a;
}

class GridSampleKernel final : public Kernel {
 public:
  GridSampleKernel(const NodeSpec& spec, Mode mode, Padding padding, bool align)
      : x_(spec.inputs[0]), grid_(spec.inputs[1]), out_(spec.outputs[0]), mode_(mode), padding_(padding), align_(align) {
    spatial_ = static_cast<int>(x_.dims.size()) - 2;
    for (int s = 0; s < spatial_; ++s) {
      size_[s] = x_.dims[static_cast<size_t>(2 + s)];
      lo_[s] = align ? 0.0f : -0.5f;
      hi_[s] = align ? static_cast<float>(size_[s] - 1) : static_cast<float>(size_[s]) - 0.5f;
    }
    plane_ = product(x_.dims, 2);
    points_ = product(grid_.dims, 1, grid_.dims.size() - 1);
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const float* x = float_input(x_, inputs[0], false, 0);
    const float* grid = float_input(grid_, inputs[1], false, 1);
    const int64_t batch = x_.dims[0], channels = x_.dims[1];
    parallel_for(batch * points_, 64, [&](int64_t p0, int64_t p1) {
      int64_t offsets[kMaxTaps];
      float weights[kMaxTaps], values[64];
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t n = p / points_, point = p % points_;
        const int taps = make_taps(grid + p * spatial_, offsets, weights);
        for (int64_t c0 = 0; c0 < channels; c0 += 64) {
          const int64_t cn = std::min<int64_t>(64, channels - c0);
          for (int64_t c = 0; c < cn; ++c) {
            const float* image = x + (n * channels + c0 + c) * plane_;
            float sum = 0;
            for (int t = 0; t < taps; ++t) sum += offsets[t] < 0 ? 0.0f : weights[t] * image[offsets[t]];
            values[c] = sum;
          }
          for (int64_t c = 0; c < cn; ++c) store_float(out_.dtype, values + c, 1, outputs[0], (n * channels + c0 + c) * points_ + point);
        }
      }
    });
  }

 private:
  float denormalize(float v, int s) const {
    const auto size = static_cast<float>(size_[s]);
    return align_ ? (v + 1) / 2 * (size - 1) : ((v + 1) * size - 1) / 2;
  }

  // The index of a tap along spatial dim s after padding, or -1 for a zero.
  int64_t tap_index(int64_t i, int s) const {
    if (i >= 0 && i < size_[s]) return i;
    if (padding_ == Padding::kZeros) return -1;
    if (padding_ == Padding::kReflection) i = static_cast<int64_t>(reflect(static_cast<float>(i), lo_[s], hi_[s]));
    return std::clamp<int64_t>(i, 0, size_[s] - 1);
  }

  // The taps of one point (grid coordinates x, y, z = the last spatial dim first); returns their count.
  int make_taps(const float* point, int64_t* offsets, float* weights) const {
    constexpr float kFar = 1099511627776.0f;  // 2^40: keeps the integer conversions defined (NaN reads padding)
    float coord[3];
    for (int s = 0; s < spatial_; ++s) {
      float v = denormalize(point[spatial_ - 1 - s], s);
      if (mode_ == Mode::kNearest) v = std::nearbyint(v);
      coord[s] = std::isnan(v) ? -kFar : std::clamp(v, -kFar, kFar);
    }
    const int per_dim = mode_ == Mode::kNearest ? 1 : mode_ == Mode::kLinear ? 2 : 4;
    int64_t first[3];
    float w[3][4];
    for (int s = 0; s < spatial_; ++s) {
      const float base = mode_ == Mode::kNearest ? coord[s] : std::floor(coord[s]);
      const float t = coord[s] - base;
      first[s] = static_cast<int64_t>(base) - (mode_ == Mode::kCubic ? 1 : 0);
      if (mode_ == Mode::kNearest) w[s][0] = 1;
      if (mode_ == Mode::kLinear) w[s][0] = 1 - t, w[s][1] = t;
      if (mode_ == Mode::kCubic) cubic_coefficients(t, w[s]);
    }
    int count = 1;
    for (int s = 0; s < spatial_; ++s) count *= per_dim;
    for (int tap = 0; tap < count; ++tap) {
      int64_t offset = 0;
      float weight = 1;
      for (int s = 0, rest = tap; s < spatial_; ++s, rest /= per_dim) {
        const int k = rest % per_dim;
        const int64_t index = tap_index(first[s] + k, s);
        weight *= w[s][k];
        offset = offset < 0 || index < 0 ? -1 : offset * size_[s] + index;
      }
      offsets[tap] = offset;
      weights[tap] = weight;
    }
    return count;
  }

  TensorDesc x_, grid_, out_;
  Mode mode_;
  Padding padding_;
  bool align_;
  int spatial_ = 2;
  int64_t size_[3] = {1, 1, 1};
  float lo_[3] = {0, 0, 0}, hi_[3] = {0, 0, 0};
  int64_t plane_ = 0, points_ = 0;
};

std::unique_ptr<Kernel> make_grid_sample(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs X and grid");
  const auto &xd = spec.inputs[0].dims, &gd = spec.inputs[1].dims;
  const int spatial = static_cast<int>(xd.size()) - 2;
  if ((spatial != 2 && spatial != 3) || gd.size() != xd.size() || gd.back() != spatial || gd[0] != xd[0])
    return refuse(spec, error, "X " + dims_str(xd) + " and grid " + dims_str(gd) + ": a 4-D or 5-D X needs a grid [N, out..., " + std::to_string(spatial) + "]");
  for (const auto& t : {spec.inputs[0], spec.inputs[1], spec.outputs[0]})
    if (t.dtype != ACL_FLOAT && t.dtype != ACL_FLOAT16) return refuse(spec, error, std::string("dtype ") + dtype_name(t.dtype) + " is not supported (FLOAT, FLOAT16)");
  std::vector<int64_t> want = {xd[0], xd[1]};
  want.insert(want.end(), gd.begin() + 1, gd.end() - 1);
  if (spec.outputs[0].dims != want) return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  for (int s = 0; s < spatial; ++s)
    if (xd[static_cast<size_t>(2 + s)] < 1) return refuse(spec, error, "X has an empty spatial dim: " + dims_str(xd));
  const std::string mode = spec.attrs ? spec.attrs->get_string("mode", "linear") : "linear";
  const std::string padding = spec.attrs ? spec.attrs->get_string("padding_mode", "zeros") : "zeros";
  Mode m = Mode::kLinear;
  if (mode == "nearest") m = Mode::kNearest;
  else if (mode == "cubic" && spatial == 2) m = Mode::kCubic;
  else if (mode != "linear") return refuse(spec, error, "mode='" + mode + "' is not supported here (linear, nearest; cubic for 4-D X)");
  Padding p = Padding::kZeros;
  if (padding == "border") p = Padding::kBorder;
  else if (padding == "reflection") p = Padding::kReflection;
  else if (padding != "zeros") return refuse(spec, error, "padding_mode='" + padding + "' is not supported (zeros, border, reflection)");
  const bool align = spec.attrs != nullptr && spec.attrs->get_int("align_corners", 0) != 0;
  return std::make_unique<GridSampleKernel>(spec, m, p, align);
}

}  // namespace

ASCENDSIM_KERNEL(GridSample, "", make_grid_sample);

}  // namespace ascendsim::kernels
