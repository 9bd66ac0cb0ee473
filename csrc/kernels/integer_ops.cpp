// Integer products of 8-bit tensors: MatMulInteger and ConvInteger (int32 = (a - a_zero_point) x (b -
// b_zero_point)) and QLinearMatMul / QLinearConv, the same product requantized as onnxruntime does:
//   y = saturate(nearbyint(float(acc [+ int32 bias]) * (a_scale * b_scale / y_scale)) + y_zero_point).
//
// Operands are widened to int32 with their zero point subtracted (a per tensor, or per row of a / per output
// channel of a convolution's weight for b), so padding and products need no correction terms. The products
// are exact int32 loops (i-k-j order); a convolution is im2col per image and group (padding reads the zero
// point, i.e. 0 after the subtraction) then the same loop. MatMul operands broadcast their batch dims; 1-D
// operands are promoted as numpy.matmul promotes them.
#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

bool int8_dtype(aclDataType d) { return d == ACL_INT8 || d == ACL_UINT8; }

// A per-tensor or per-index (row / column / channel) parameter: its values, read at run time.
struct Param {
  int index = -1;  // node input, -1 when absent (0 / 1.0)
  aclDataType dtype = ACL_INT8;
  int64_t count = 1;
  float scale_at(const void* const* in, int64_t i) const {
    if (index < 0) return 1.0f;
    float v;
    load_float(dtype, in[index], count == 1 ? 0 : i, 1, 1, &v);
    return v;
  }
  int32_t zero_at(const void* const* in, int64_t i) const {
    if (index < 0) return 0;
    int64_t v;
    load_int(dtype, in[index], count == 1 ? 0 : i, 1, 1, &v);
    return static_cast<int32_t>(v);
  }
};

// Param of input `index`: absent, a scalar, or `per` values; false (with the message) for another shape.
bool make_param(const NodeSpec& spec, int index, int64_t per, const char* what, Param* out, std::string* error) {
  if (static_cast<size_t>(index) >= spec.inputs.size() || (static_cast<size_t>(index) < spec.present.size() && !spec.present[static_cast<size_t>(index)]))
    return true;
  const TensorDesc& t = spec.inputs[static_cast<size_t>(index)];
  if (t.numel() != 1 && (t.dims.size() != 1 || t.dims[0] != per))
    return fail_spec(spec, error, std::string(what) + " of shape " + dims_str(t.dims) + " must be a scalar or hold " + std::to_string(per) + " values");
  *out = Param{index, t.dtype, t.numel()};
  return true;
}

// The output stage shared by both ops: int32 out, or requantized with the scales and the output zero point.
struct Output {
  bool requantize = false;
  aclDataType dtype = ACL_INT32;
  Param a_scale, b_scale, y_scale, y_zero;
  int bias = -1;  // QLinearConv's int32 bias input
  // Stores acc[i] for the output elements [at, at + n) of row `row` (a's row, or the convolution's output channel,
  // which indexes the weight's per-channel scale), columns from `col` (the second operand's per-column scale).
  void store(const void* const* in, void* out, int64_t at, const int32_t* acc, int64_t n, int64_t row, int64_t col,
             bool per_column) const {
    for (int64_t i = 0; i < n; ++i) {
      int64_t value = acc[i];
      if (requantize) {
        if (bias >= 0) value += static_cast<const int32_t*>(in[bias])[row];
        const float scale = a_scale.scale_at(in, row) * b_scale.scale_at(in, per_column ? col + i : row) / y_scale.scale_at(in, 0);
        const float y = std::nearbyint(static_cast<float>(value) * scale) + static_cast<float>(y_zero.zero_at(in, 0));
        const float low = dtype == ACL_INT8 ? -128.0f : 0.0f, high = dtype == ACL_INT8 ? 127.0f : 255.0f;
        value = std::isnan(y) ? 0 : static_cast<int64_t>(std::clamp(y, low, high));
      }
      store_int(dtype, &value, 1, out, at + i);
    }
  }
};

// C (m x n) = A (m x k) * B (k x n), int32 exact.
void int_gemm(const int32_t* a, const int32_t* b, int32_t* c, int64_t m, int64_t n, int64_t k) {
  std::fill(c, c + m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const int32_t av = a[i * k + p];
      if (av == 0) continue;
      const int32_t* brow = b + p * n;
      int32_t* crow = c + i * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
    }
}

bool make_output(const NodeSpec& spec, bool qlinear, int64_t rows, int64_t cols, Output* out, std::string* error) {
  out->dtype = spec.outputs[0].dtype;
  if (!qlinear) return out->dtype == ACL_INT32 || fail_spec(spec, error, "the output must be INT32");
  out->requantize = true;
  if (!int8_dtype(out->dtype)) return fail_spec(spec, error, "the output must be INT8 or UINT8");
  for (int i : {1, 4, 6}) {
    const aclDataType d = spec.inputs[static_cast<size_t>(i)].dtype;
    if (d != ACL_FLOAT && d != ACL_FLOAT16) return fail_spec(spec, error, "the scales must be FLOAT or FLOAT16");
  }
  return make_param(spec, 1, rows, "the first operand's scale", &out->a_scale, error) &&
         make_param(spec, 4, cols, "the second operand's scale", &out->b_scale, error) &&
         make_param(spec, 6, 1, "y_scale", &out->y_scale, error) && make_param(spec, 7, 1, "y_zero_point", &out->y_zero, error);
}

std::unique_ptr<Kernel> make_matmul_integer(const NodeSpec& spec, std::string* error) {
  const bool q = spec.op_type == "QLinearMatMul";
  const size_t ai = 0, bi = q ? 3 : 1;
  if (spec.inputs.size() < (q ? 8u : 2u) || spec.outputs.size() != 1) return refuse(spec, error, q ? "needs 8 inputs" : "needs inputs A and B");
  const TensorDesc a = spec.inputs[ai], b = spec.inputs[bi];
  if (!int8_dtype(a.dtype) || !int8_dtype(b.dtype)) return refuse(spec, error, "A and B must be INT8 or UINT8");
  std::vector<int64_t> ad = a.dims, bd = b.dims;
  if (ad.empty() || bd.empty()) return refuse(spec, error, "A and B must not be scalars");
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  if (bd[bd.size() - 2] != k) return refuse(spec, error, "inner dimensions differ: " + dims_str(a.dims) + " x " + dims_str(b.dims));
  std::vector<int64_t> abatch(ad.begin(), ad.end() - 2), bbatch(bd.begin(), bd.end() - 2), batch;
  if (!broadcast_shapes({abatch, bbatch}, &batch)) return refuse(spec, error, "batch dims do not broadcast");
  if (spec.outputs[0].numel() != product(batch) * m * n) return refuse(spec, error, "the output shape does not fit");
  Param azp, bzp;
  Output out;
  if (!make_param(spec, 2, m, "a_zero_point", &azp, error) || !make_param(spec, q ? 5 : 3, n, "b_zero_point", &bzp, error) ||
      !make_output(spec, q, m, n, &out, error))
    return nullptr;
  const BroadcastPlan plan = plan_broadcast(batch, {abatch, bbatch});
  const int64_t batches = product(batch);
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    parallel_for(batches, 1, [&](int64_t b0, int64_t b1) {
      std::vector<int32_t> av(static_cast<size_t>(m * k)), bv(static_cast<size_t>(k * n)), acc(static_cast<size_t>(m * n));
      for (int64_t t = b0; t < b1; ++t) {
        // The batch's operand offsets through the broadcasting plan (its rows are the batch's dims but the last).
        const int64_t row = plan.dims.empty() ? 0 : t / plan.inner(), col = plan.dims.empty() ? 0 : t % plan.inner();
        const int64_t a_off = plan.dims.empty() ? 0 : plan.row_offset(0, row) + col * plan.strides[0].back();
        const int64_t b_off = plan.dims.empty() ? 0 : plan.row_offset(1, row) + col * plan.strides[1].back();
        for (int64_t i = 0; i < m * k; ++i) {
          int64_t v;
          load_int(a.dtype, in[ai], a_off * m * k + i, 1, 1, &v);
          av[static_cast<size_t>(i)] = static_cast<int32_t>(v) - azp.zero_at(in, i / k);
        }
        for (int64_t i = 0; i < k * n; ++i) {
          int64_t v;
          load_int(b.dtype, in[bi], b_off * k * n + i, 1, 1, &v);
          bv[static_cast<size_t>(i)] = static_cast<int32_t>(v) - bzp.zero_at(in, i % n);
        }
        int_gemm(av.data(), bv.data(), acc.data(), m, n, k);
        for (int64_t i = 0; i < m; ++i) out.store(in, outputs[0], (t * m + i) * n, acc.data() + i * n, n, i, 0, true);
      }
    });
  });
}

std::unique_ptr<Kernel> make_conv_integer(const NodeSpec& spec, std::string* error) {
  const bool q = spec.op_type == "QLinearConv";
  const size_t wi = q ? 3 : 1;
  if (spec.inputs.size() < (q ? 8u : 2u) || spec.outputs.size() != 1) return refuse(spec, error, q ? "needs 8 or 9 inputs" : "needs inputs x and w");
  const TensorDesc x = spec.inputs[0], w = spec.inputs[wi];
  if (!int8_dtype(x.dtype) || !int8_dtype(w.dtype)) return refuse(spec, error, "x and w must be INT8 or UINT8");
  const size_t spatial = x.dims.size() >= 3 ? x.dims.size() - 2 : 0;
  if ((spatial != 1 && spatial != 2) || w.dims.size() != x.dims.size()) return refuse(spec, error, "only 1-D and 2-D convolutions are supported, x " + dims_str(x.dims));
  const int64_t group = spec.attrs ? spec.attrs->get_int("group", 1) : 1;
  const int64_t batch = x.dims[0], channels = x.dims[1], maps = w.dims[0], per_group = w.dims[1];
  if (group < 1 || channels != per_group * group || maps % group) return refuse(spec, error, "channels " + std::to_string(channels) + " and weight " + dims_str(w.dims) + " do not fit group " + std::to_string(group));
  std::vector<int64_t> size(x.dims.begin() + 2, x.dims.end()), kernel(w.dims.begin() + 2, w.dims.end());
  std::vector<int64_t> strides = spec.attrs ? spec.attrs->get_ints("strides", std::vector<int64_t>(spatial, 1)) : std::vector<int64_t>(spatial, 1);
  std::vector<int64_t> dilations = spec.attrs ? spec.attrs->get_ints("dilations", std::vector<int64_t>(spatial, 1)) : std::vector<int64_t>(spatial, 1);
  std::vector<int64_t> pads = spec.attrs ? spec.attrs->get_ints("pads", std::vector<int64_t>(2 * spatial, 0)) : std::vector<int64_t>(2 * spatial, 0);
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial) return refuse(spec, error, "strides/dilations/pads do not fit the spatial rank");
  if (const std::string problem = window_attrs_problem(size, kernel, strides, dilations, pads); !problem.empty()) return refuse(spec, error, problem);
  if (spatial == 1) {  // as 2-D with a height of 1
    size.insert(size.begin(), 1), kernel.insert(kernel.begin(), 1), strides.insert(strides.begin(), 1), dilations.insert(dilations.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  std::vector<int64_t> out_size(2);
  for (size_t s = 0; s < 2; ++s) out_size[s] = (size[s] + pads[s] + pads[s + 2] - dilations[s] * (kernel[s] - 1) - 1) / strides[s] + 1;
  if (spec.outputs[0].numel() != batch * maps * out_size[0] * out_size[1] || out_size[0] < 1 || out_size[1] < 1) return refuse(spec, error, "the output shape does not fit");
  Param xzp, wzp;
  Output out;
  if (!make_param(spec, 2, 1, "the input's zero point", &xzp, error) || !make_param(spec, q ? 5 : 3, maps, "the weight's zero point", &wzp, error) ||
      !make_output(spec, q, 1, maps, &out, error))
    return nullptr;
  if (q && spec.inputs.size() > 8 && (spec.present.size() <= 8 || spec.present[8])) {
    if (spec.inputs[8].dtype != ACL_INT32 || spec.inputs[8].numel() != maps) return refuse(spec, error, "the bias must hold one INT32 per output channel");
    out.bias = 8;
  }
  const int64_t rows = per_group * kernel[0] * kernel[1], points = out_size[0] * out_size[1], maps_per_group = maps / group;
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    parallel_for(batch * group, 1, [&](int64_t u0, int64_t u1) {
      std::vector<int32_t> cols(static_cast<size_t>(rows * points)), weights(static_cast<size_t>(maps_per_group * rows)), acc(static_cast<size_t>(maps_per_group * points));
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t img = u / group, g = u % group;
        const int32_t zero = xzp.zero_at(in, 0);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t c = r / (kernel[0] * kernel[1]), kh = r / kernel[1] % kernel[0], kw = r % kernel[1];
          const int64_t plane = (img * channels + g * per_group + c) * size[0] * size[1];
          for (int64_t p = 0; p < points; ++p) {
            const int64_t ih = p / out_size[1] * strides[0] - pads[0] + kh * dilations[0];
            const int64_t iw = p % out_size[1] * strides[1] - pads[1] + kw * dilations[1];
            int64_t v = zero;  // padding holds the zero point: 0 once it is subtracted
            if (ih >= 0 && ih < size[0] && iw >= 0 && iw < size[1]) load_int(x.dtype, in[0], plane + ih * size[1] + iw, 1, 1, &v);
            cols[static_cast<size_t>(r * points + p)] = static_cast<int32_t>(v) - zero;
          }
        }
        for (int64_t mi = 0; mi < maps_per_group; ++mi)
          for (int64_t r = 0; r < rows; ++r) {
            int64_t v;
            const int64_t map = g * maps_per_group + mi;
            load_int(w.dtype, in[wi], map * rows + r, 1, 1, &v);
            weights[static_cast<size_t>(mi * rows + r)] = static_cast<int32_t>(v) - wzp.zero_at(in, map);
          }
        int_gemm(weights.data(), cols.data(), acc.data(), maps_per_group, points, rows);
        for (int64_t mi = 0; mi < maps_per_group; ++mi) {
          const int64_t map = g * maps_per_group + mi;
          out.store(in, outputs[0], (img * maps + map) * points, acc.data() + mi * points, points, map, 0, false);  // per channel
        }
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(MatMulInteger, "", make_matmul_integer);
ASCENDSIM_KERNEL(QLinearMatMul, "", make_matmul_integer);
ASCENDSIM_KERNEL(ConvInteger, "", make_conv_integer);
ASCENDSIM_KERNEL(QLinearConv, "", make_conv_integer);

}  // namespace ascendsim::kernels
