// Region-of-interest pooling: RoiAlign and MaxRoiPool (onnxruntime's semantics).
//
// RoiAlign: each roi [x1, y1, x2, y2] (times spatial_scale, minus 0.5 with half_pixel) is cut into
// output_height x output_width bins; each bin averages (avg) or takes the maximum (max: of each sample's
// weighted corners, as onnxruntime computes it) of grid_h x grid_w bilinear samples (sampling_ratio, or
// ceil(bin size) when it is 0). A sample more than one pixel outside the map counts 0; one inside the last
// pixel row or column is clamped to it. A bin's samples (corner offsets, weights) are made once for its channels.
// MaxRoiPool: rois [batch, x1, y1, x2, y2] rounded to pixels, pooled_shape bins of max (an empty bin is 0).
#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMaxGrid = 256;  // samples per bin side: a hostile roi must not ask for billions

struct Sample {
  int64_t pos[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};

Sample bilinear(float y, float x, int64_t height, int64_t width) {
  Sample s;
  if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f || x > static_cast<float>(width)) return s;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  auto y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= height - 1) y_high = y_low = height - 1, y = static_cast<float>(y_low);
  if (x_low >= width - 1) x_high = x_low = width - 1, x = static_cast<float>(x_low);
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low), hy = 1 - ly, hx = 1 - lx;
  s.pos[0] = y_low * width + x_low, s.pos[1] = y_low * width + x_high;
  s.pos[2] = y_high * width + x_low, s.pos[3] = y_high * width + x_high;
  s.w[0] = hy * hx, s.w[1] = hy * lx, s.w[2] = ly * hx, s.w[3] = ly * lx;
  return s;
}

bool check_x(const NodeSpec& spec, size_t rois_cols, std::string* error) {
  if (spec.inputs[0].dims.size() != 4 || spec.inputs[1].dims.size() != 2 || spec.inputs[1].dims[1] != static_cast<int64_t>(rois_cols))
    return fail_spec(spec, error, "X " + dims_str(spec.inputs[0].dims) + " must be 4-D and rois " + dims_str(spec.inputs[1].dims) + " [num_rois, " + std::to_string(rois_cols) + "]");
  for (const auto& t : {spec.inputs[0], spec.inputs[1], spec.outputs[0]})
    if (t.dtype != ACL_FLOAT && t.dtype != ACL_FLOAT16) return fail_spec(spec, error, "X, rois and the output must be FLOAT or FLOAT16");
  return true;
}

std::unique_ptr<Kernel> make_roi_align(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 3 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs X, rois and batch_indices");
  if (!check_x(spec, 4, error)) return nullptr;
  static const Attrs kNoAttrs;
  const Attrs& attrs = spec.attrs != nullptr ? *spec.attrs : kNoAttrs;
  const TensorDesc x = spec.inputs[0], rois = spec.inputs[1], out = spec.outputs[0];
  const int64_t count = rois.dims[0], channels = x.dims[1], height = x.dims[2], width = x.dims[3];
  const int64_t oh = attrs.get_int("output_height", 1), ow = attrs.get_int("output_width", 1);
  if (spec.inputs[2].dtype != ACL_INT64 || spec.inputs[2].numel() != count) return refuse(spec, error, "batch_indices must hold one INT64 per roi");
  if (out.dims != std::vector<int64_t>{count, channels, oh, ow} || height < 1 || width < 1) return refuse(spec, error, "the output shape does not fit");
  const bool max_mode = attrs.get_string("mode", "avg") == "max";
  const bool half_pixel = attrs.get_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  const float scale = static_cast<float>(attrs.get_float("spatial_scale", 1.0));
  const int64_t ratio = std::clamp<int64_t>(attrs.get_int("sampling_ratio", 0), 0, kMaxGrid), batch = x.dims[0];
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    const float* image = float_input(x, in[0], false, 0);
    const float* boxes = float_input(rois, in[1], false, 1);
    parallel_for(count, 1, [&](int64_t r0, int64_t r1) {
      std::vector<Sample> samples;
      for (int64_t r = r0; r < r1; ++r) {
        const float* box = boxes + r * 4;
        const float offset = half_pixel ? 0.5f : 0.0f;
        const float x0 = box[0] * scale - offset, y0 = box[1] * scale - offset;
        float roi_w = box[2] * scale - offset - x0, roi_h = box[3] * scale - offset - y0;
        if (!half_pixel) roi_w = std::max(roi_w, 1.0f), roi_h = std::max(roi_h, 1.0f);
        const float bin_h = roi_h / static_cast<float>(oh), bin_w = roi_w / static_cast<float>(ow);
        const auto grid = [&](float bin) { return ratio > 0 ? ratio : std::clamp<int64_t>(static_cast<int64_t>(std::ceil(bin)), 0, kMaxGrid); };
        const int64_t grid_h = grid(bin_h), grid_w = grid(bin_w);
        const float norm = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
        const int64_t b = std::clamp<int64_t>(read_index(ACL_INT64, in[2], r), 0, batch - 1);  // (no error channel: clamped)
        for (int64_t bin = 0; bin < oh * ow; ++bin) {
          const int64_t ph = bin / ow, pw = bin % ow;
          samples.clear();
          for (int64_t iy = 0; iy < grid_h; ++iy)
            for (int64_t ix = 0; ix < grid_w; ++ix)
              samples.push_back(bilinear(y0 + static_cast<float>(ph) * bin_h + (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h),
                                         x0 + static_cast<float>(pw) * bin_w + (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w), height, width));
          for (int64_t c = 0; c < channels; ++c) {
            const float* plane = image + (b * channels + c) * height * width;
            float acc = 0;
            for (size_t k = 0; k < samples.size(); ++k) {
              const Sample& s = samples[k];
              const float v0 = s.w[0] * plane[s.pos[0]], v1 = s.w[1] * plane[s.pos[1]];
              const float v2 = s.w[2] * plane[s.pos[2]], v3 = s.w[3] * plane[s.pos[3]];
              acc = max_mode ? (k == 0 ? std::max({v0, v1, v2, v3}) : std::max({acc, v0, v1, v2, v3})) : acc + v0 + v1 + v2 + v3;
            }
            const float value = max_mode ? acc : acc / norm;
            store_float(out.dtype, &value, 1, outputs[0], (r * channels + c) * oh * ow + bin);
          }
        }
      }
    });
  });
}

std::unique_ptr<Kernel> make_max_roi_pool(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs X and rois");
  if (!check_x(spec, 5, error)) return nullptr;
  const TensorDesc x = spec.inputs[0], rois = spec.inputs[1], out = spec.outputs[0];
  const std::vector<int64_t> pooled = spec.attrs ? spec.attrs->get_ints("pooled_shape") : std::vector<int64_t>{};
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) return refuse(spec, error, "pooled_shape must be two positive ints");
  const int64_t count = rois.dims[0], batch = x.dims[0], channels = x.dims[1], height = x.dims[2], width = x.dims[3];
  if (out.dims != std::vector<int64_t>{count, channels, pooled[0], pooled[1]}) return refuse(spec, error, "the output shape does not fit");
  const float scale = static_cast<float>(spec.attrs->get_float("spatial_scale", 1.0));
  const int64_t ph_count = pooled[0], pw_count = pooled[1];
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    const float* image = float_input(x, in[0], false, 0);
    const float* boxes = float_input(rois, in[1], false, 1);
    parallel_for(count * channels, 1, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t r = u / channels, c = u % channels;
        const float* box = boxes + r * 5;
        const auto pixel = [&](float v) { return static_cast<int64_t>(std::round(std::clamp(v * scale, -1e9f, 1e9f))); };
        const int64_t b = std::clamp<int64_t>(static_cast<int64_t>(box[0]), 0, batch - 1);
        const int64_t x1 = pixel(box[1]), y1 = pixel(box[2]), x2 = pixel(box[3]), y2 = pixel(box[4]);
        const float bin_h = static_cast<float>(std::max<int64_t>(y2 - y1 + 1, 1)) / static_cast<float>(ph_count);
        const float bin_w = static_cast<float>(std::max<int64_t>(x2 - x1 + 1, 1)) / static_cast<float>(pw_count);
        const float* plane = image + (b * channels + c) * height * width;
        for (int64_t ph = 0; ph < ph_count; ++ph)
          for (int64_t pw = 0; pw < pw_count; ++pw) {
            const int64_t h0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(static_cast<float>(ph) * bin_h)) + y1, 0, height);
            const int64_t h1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<float>(ph + 1) * bin_h)) + y1, 0, height);
            const int64_t w0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(static_cast<float>(pw) * bin_w)) + x1, 0, width);
            const int64_t w1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<float>(pw + 1) * bin_w)) + x1, 0, width);
            float best = h1 <= h0 || w1 <= w0 ? 0.0f : -INFINITY;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) best = std::max(best, plane[h * width + w]);
            store_float(out.dtype, &best, 1, outputs[0], (u * ph_count + ph) * pw_count + pw);
          }
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(RoiAlign, "", make_roi_align);
ASCENDSIM_KERNEL(MaxRoiPool, "", make_max_roi_pool);

}  // namespace ascendsim::kernels
