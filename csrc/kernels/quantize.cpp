// Linear quantization: QuantizeLinear  y = saturate(nearbyint(x / scale) + zero_point)  (round half to even,
// saturated to the output integer type) and DequantizeLinear  y = (x - zero_point) * scale, computed in float32
// as onnxruntime does. The scale (and zero point) is one value per tensor, one per entry of `axis` (1-D), or
// one per block of `block_size` entries along `axis` (opset 21: the rank of x). The compiler always gives
// QuantizeLinear its zero point (its dtype is the output's); DequantizeLinear's may be absent (0).
#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kBlock = 256;

// fn(start, n) for the blocks of kBlock elements (the last one shorter) covering [0, count), over the pool.
template <class Fn>
void for_blocks(int64_t count, Fn fn) {
  parallel_for((count + kBlock - 1) / kBlock, 16, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fn(b * kBlock, std::min(kBlock, count - b * kBlock));
  });
}

// Which scale element each element of x uses: index = ((i / inner) / dim) * count + ((i / inner) % dim) / block
// * inner_p + i % inner_p, with inner_p = inner for blocked parameters and 0 otherwise.
struct ParamIndex {
  int64_t inner = 1, dim = 1, block = 1, count = 1;
  bool scalar = true, blocked = false;
  int64_t operator()(int64_t i) const {
    if (scalar) return 0;
    const int64_t line = i / inner, along = line % dim;
    if (!blocked) return along;
    return (line / dim * count + along / block) * inner + i % inner;
  }
};

bool plan_params(const NodeSpec& spec, ParamIndex* p, std::string* error) {
  const auto& xd = spec.inputs[0].dims;
  const TensorDesc& scale = spec.inputs[1];
  const bool has_zero = spec.inputs.size() > 2 && (spec.present.size() < 3 || spec.present[2]);
  if (has_zero && spec.inputs[2].dims != scale.dims) return fail_spec(spec, error, "the zero point's shape differs from the scale's");
  const int64_t block = spec.attrs ? spec.attrs->get_int("block_size", 0) : 0;
  if (scale.numel() == 1 && scale.dims.size() <= 1 && block == 0) return true;
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", 1) : 1;
  if (!norm_axis(given, static_cast<int64_t>(xd.size()), &axis)) return fail_spec(spec, error, "axis " + std::to_string(given) + " is out of range");
  const auto a = static_cast<size_t>(axis);
  p->scalar = false;
  p->inner = product(xd, a + 1);
  p->dim = xd[a];
  if (block == 0) {
    if (scale.dims != std::vector<int64_t>{xd[a]}) return fail_spec(spec, error, "a per-axis scale must be [" + std::to_string(xd[a]) + "], got " + dims_str(scale.dims));
    return true;
  }
  std::vector<int64_t> want(xd);
  want[a] = (xd[a] + block - 1) / std::max<int64_t>(block, 1);
  if (block < 1 || scale.dims != want) return fail_spec(spec, error, "a blocked scale must be " + dims_str(want) + ", got " + dims_str(scale.dims));
  p->blocked = true;
  p->block = block;
  p->count = want[a];
  return true;
}

bool quantized_dtype(aclDataType d) { return d == ACL_INT8 || d == ACL_UINT8 || d == ACL_INT16 || d == ACL_UINT16; }

std::unique_ptr<Kernel> make_quantize(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 3 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs x, y_scale and y_zero_point");
  const TensorDesc x = spec.inputs[0], out = spec.outputs[0];
  const aclDataType sd = spec.inputs[1].dtype;
  if ((x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16 && x.dtype != ACL_INT32) || (sd != ACL_FLOAT && sd != ACL_FLOAT16))
    return refuse(spec, error, "x must be FLOAT, FLOAT16 or INT32 and the scale FLOAT or FLOAT16");
  if (!quantized_dtype(out.dtype) || spec.inputs[2].dtype != out.dtype || out.dims != x.dims)
    return refuse(spec, error, std::string("the output (") + dtype_name(out.dtype) + ") must be INT8, UINT8, INT16 or UINT16 like the zero point, of x's shape");
  ParamIndex p;
  if (!plan_params(spec, &p, error)) return nullptr;
  const int64_t count = x.numel();
  const float low = out.dtype == ACL_INT8 ? -128.0f : out.dtype == ACL_INT16 ? -32768.0f : 0.0f;
  const float high = out.dtype == ACL_INT8 ? 127.0f : out.dtype == ACL_UINT8 ? 255.0f : out.dtype == ACL_INT16 ? 32767.0f : 65535.0f;
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    for_blocks(count, [&](int64_t start, int64_t n) {
      float v[kBlock];
      int64_t q[kBlock];
      load_float(x.dtype, in[0], start, 1, n, v);
      for (int64_t i = 0; i < n; ++i) {
        float scale;
        int64_t zero;
        load_float(sd, in[1], p(start + i), 1, 1, &scale);
        load_int(out.dtype, in[2], p(start + i), 1, 1, &zero);
        const float y = std::nearbyint(v[i] / scale) + static_cast<float>(zero);
        q[i] = std::isnan(y) ? 0 : static_cast<int64_t>(std::clamp(y, low, high));
      }
      store_int(out.dtype, q, n, outputs[0], start);
    });
  });
}

std::unique_ptr<Kernel> make_dequantize(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.inputs.size() > 3 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs x, x_scale and (optional) x_zero_point");
  const TensorDesc x = spec.inputs[0], out = spec.outputs[0];
  const aclDataType sd = spec.inputs[1].dtype;
  if (!quantized_dtype(x.dtype) && x.dtype != ACL_INT32) return refuse(spec, error, std::string("x has dtype ") + dtype_name(x.dtype) + "; supported: INT8, UINT8, INT16, UINT16, INT32");
  if ((sd != ACL_FLOAT && sd != ACL_FLOAT16) || out.dtype != sd || out.dims != x.dims) return refuse(spec, error, "the scale and output must be FLOAT or FLOAT16, the output of x's shape");
  const bool has_zero = spec.inputs.size() == 3 && (spec.present.size() < 3 || spec.present[2]);
  if (has_zero && spec.inputs[2].dtype != x.dtype) return refuse(spec, error, "the zero point's dtype differs from x's");
  ParamIndex p;
  if (!plan_params(spec, &p, error)) return nullptr;
  const int64_t count = x.numel();
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    for_blocks(count, [&](int64_t start, int64_t n) {
      int64_t v[kBlock];
      float y[kBlock];
      load_int(x.dtype, in[0], start, 1, n, v);
      for (int64_t i = 0; i < n; ++i) {
        float scale;
        int64_t zero = 0;
        load_float(sd, in[1], p(start + i), 1, 1, &scale);
        if (has_zero) load_int(x.dtype, in[2], p(start + i), 1, 1, &zero);
        y[i] = static_cast<float>(v[i] - zero) * scale;
      }
      store_float(out.dtype, y, n, outputs[0], start);
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(QuantizeLinear, "", make_quantize);
ASCENDSIM_KERNEL(DequantizeLinear, "", make_dequantize);

}  // namespace ascendsim::kernels
