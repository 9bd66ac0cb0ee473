// Conv (1-D and 2-D, NCHW): groups, dilations, pads, strides, auto_pad, optional bias, fused activation.
//
// General path (see general()): per image and group, the output is computed in L2-sized column blocks:
// im2col of the block (none for a 1x1, stride 1, unpadded conv, which reads the image in place), then the
// product with the bias and the activation. When the weights are a float32 constant (the usual case), the
// product runs on the path the active kernel variant runs fastest at its shape (product_path.h): our own
// register tiles over the weights packed once at build (OpenBLAS would pack the weights, or for a wide
// plane the image, again on every call), or OpenBLAS; the weights then take twice their memory. Weights
// given at run time go to OpenBLAS. 3x3 stride-1 convs with constant float32 weights run as Winograd
// F(2x2, 3x3) (winograd.h), or, where timing both at build finds it faster (small planes), on the general path;
// convs of at most 4 input channels (stems) run direct (stem_conv.h), or where timing finds it faster, general;
// depthwise convs (group == C == M) take their own direct path (depthwise.h). Float16 storage is widened to float32; ROUND_INPUTS_FP16 rounds inputs to float16 values.
#include <algorithm>

#include "kernels/conv_attrs.h"
#include "kernels/depthwise.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/product_path.h"
#include "kernels/stem_conv.h"
#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"
#include "kernels/winograd.h"

namespace ascendsim::kernels {
namespace {

// im2col block of the general path (64 KiB): written and then read by the product while it is in L2 (a
// MobileNetV2 stem, 3 -> 32 channels on 224x224, in the network: 480 us with 512 KiB blocks, 390 us so).
constexpr int64_t kBlockFloats = int64_t{1} << 14;
constexpr int64_t kMinBlock = 256;                  // its narrowest column block
constexpr int64_t kMinSplitBlock = 64;              // narrowest block when blocks are shared by threads
constexpr int64_t kPackedColumns = 100;             // largest output plane (10x10) split by weight panels
constexpr int64_t kMinIm2colFloats = 16384;         // im2col per pool chunk when rows are shared out
constexpr int64_t kMinSumFloats = 32768;            // fused-sum pass per pool chunk
constexpr int64_t kTimedConv = int64_t{1} << 21;    // multiply-adds of the direct product: Winograd / stem timed against it

class ConvKernel final : public Kernel {
 public:
  ConvKernel(const NodeSpec& spec, ConvGeometry g, Activation act) : x_(spec.inputs[0]), w_(spec.inputs[1]), out_(spec.outputs[0]), g_(g), act_(act) {
    round_ = (spec.flags & kRoundInputsFp16) != 0;
    if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2])) {
      has_bias_ = true;
      b_ = spec.inputs[2];
    }
    if (spec.inputs.size() > 3) {  // fused_sum (make_conv checked it)
      has_sum_ = true;
      z_ = spec.inputs[3];
    }
    cg_ = g.c / g.group;
    mg_ = g.m / g.group;
    kk_ = cg_ * g.kh * g.kw;
    spatial_ = g.oh * g.ow;
    pointwise_ = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
    depthwise_ = g.group == g.c && g.m == g.c && g.group > 1;
    // Column block of the general path: ~64 KiB of im2col, a multiple of 16 columns, at least kMinBlock
    // (narrower GEMMs lose more to packing than the cache saves); the blocks about equal (784 columns in
    // blocks of 256 left a last block of 16, which the tiles run narrow: 208, 208, 208, 160).
    block_ = std::min(std::max<int64_t>(spatial_, 1), std::max<int64_t>(kMinBlock, kBlockFloats / std::max<int64_t>(kk_, 1) / 16 * 16));
    if (block_ < spatial_) block_ = (even_part(spatial_, block_) + 15) / 16 * 16;
    const bool constant_fp32 = spec.constant_data.size() > 1 && spec.constant_data[1] != nullptr && w_.dtype == ACL_FLOAT;
    std::vector<float> rounded;  // the weights under ROUND_INPUTS_FP16 (kept below for the depthwise path only)
    const float* weights = constant_fp32 ? rounded_constant(static_cast<const float*>(spec.constant_data[1]), w_.numel(), round_, &rounded)
                                         : nullptr;
    if (constant_fp32 && WinogradConv::suits(g)) winograd_ = std::make_unique<WinogradConv>(g, weights);
    if (constant_fp32 && own_loops_allowed() && StemConv::suits(g)) stem_ = std::make_unique<StemConv>(g, weights);
    clamps_ = activation_bounds(act_, &clamp_.lo, &clamp_.hi);
    // With several threads, the pool runs whole blocks (im2col, bias, GEMM and activation all parallel)
    // when an im2col conv gives every thread kMinSplitBlock columns (a single 196-column block, 14x14, ran
    // its im2col and epilogue on one thread while only the GEMM was split), or a pointwise conv has two
    // blocks per thread (with fewer, splitting the GEMM by rows packs only part of the weights per
    // thread: whole 98-column blocks of a 576-channel 14x14 pointwise conv measured slower). The block
    // count is then a multiple of the thread count with equal blocks: 784 columns in blocks of 256 gave
    // one thread 512 columns and the other 272. Other convs, and planes of at most kPackedColumns positions,
    // split each block's product (and im2col) instead.
    const int64_t threads = num_threads(), natural = (spatial_ + block_ - 1) / block_;
    if (threads > 1 && spatial_ > kPackedColumns && (pointwise_ ? natural >= 2 * threads : spatial_ >= threads * kMinSplitBlock)) {
      int64_t blocks = std::max<int64_t>(threads, natural);
      blocks = (blocks + threads - 1) / threads * threads;
      block_ = (spatial_ + blocks - 1) / blocks;
      by_block_ = true;
    }
    const bool direct = winograd_ || stem_;
    const bool timed = timing_candidates() && g.n * g.m * spatial_ * kk_ >= kTimedConv;
    const bool time_direct = direct && timed;
    const bool time_groups = !direct && !depthwise_ && constant_fp32 && g.group > 1 && timed;
    if (!depthwise_ && constant_fp32 && (!direct || time_direct)) {
      constant_.reserve(static_cast<size_t>(g.group));
      for (int64_t gi = 0; gi < g.group; ++gi) {
        if (time_groups) {
          constant_.emplace_back(weights + gi * mg_ * kk_, mg_, kk_, kk_, ProductPath::kPacked);
        } else {
          constant_.emplace_back(weights + gi * mg_ * kk_, mg_, kk_, kk_, block_, 1);
        }
      }
    }
    if (time_direct) keep_faster_of_direct_and_general(weights);
    if (time_groups) keep_faster_of_group_products(weights);
    if (depthwise_) rounded_weights_ = std::move(rounded);
  }

  std::string path() const override {
    if (winograd_) return "Winograd F(2x2, 3x3), products on " + product_path_name(winograd_->product_path());
    if (stem_) return "direct (few input channels)";
    if (depthwise_) return depthwise_path(g_);
    const std::string product = constant_.empty() ? product_path_name(ProductPath::kLibrary)
                                                  : product_path_name(constant_.front().path());
    return (pointwise_ ? "pointwise, " : "im2col, ") + product;
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const float* x = float_input(x_, inputs[0], round_, 1);
    // The weights as the path reads them: Winograd and the constant products hold their own transformed copies.
    const float* w = winograd_ || stem_ || !constant_.empty() ? nullptr
                     : !rounded_weights_.empty()     ? rounded_weights_.data()
                                                     : float_input(w_, inputs[1], round_, 2);
    const float* bias = has_bias_ ? float_input(b_, inputs[2], false, 4) : nullptr;
    const float* sum = has_sum_ ? float_input(z_, inputs[3], false, 13) : nullptr;
    int64_t total = out_.numel();
    float* out = out_.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(total));
    if (total > 0) {
      // The Winograd, stem and depthwise paths take no sum: they run without the activation, then sum and
      // activation follow in one pass (the memory plan never puts a Conv's output on one of its inputs).
      const Activation none;
      if (winograd_) {
        winograd_->run(x, bias, sum != nullptr ? none : act_, out);
      } else if (stem_) {
        stem_->run(x, bias, sum != nullptr ? none : act_, out);
      } else if (depthwise_) {
        depthwise_conv(g_, x, w, bias, sum != nullptr ? none : act_, out);
      } else {
        general(x, w, bias, sum, out);
      }
      if (sum != nullptr && (winograd_ || stem_ || depthwise_))
        parallel_for(total, kMinSumFloats, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) out[i] += sum[i];
          apply_activation(act_, out + i0, i1 - i0);
        });
    }
    if (out_.dtype != ACL_FLOAT) store_float(out_.dtype, out, total, outputs[0], 0);
  }

 private:
  // General path, per image and group: the output is cut into column blocks of block_ positions; per block,
  // im2col fills a kk x block matrix (a 1x1 stride-1 unpadded conv reads the image in place), the product
  // adds the bias (and the fused sum) and clamps a Relu/Clip (product_path.h: on the packed weights' tiles as
  // they write C, or around one OpenBLAS sgemm), and any other activation runs on the block while it is in
  // cache. Blocks hold ~64 KiB of im2col (the full matrix of a 56x56 3x3 conv is 7 MiB), and at least 256
  // columns.
  // With by_block_ (see the constructor) the pool runs whole blocks (one region per conv, single-threaded
  // GEMMs); otherwise the blocks run in turn and each GEMM is split over the pool.
  void general(const float* x, const float* w, const float* bias, const float* sum, float* out) const {
    const ConvGeometry& g = g_;
    const int64_t blocks = (spatial_ + block_ - 1) / block_;
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t gi = 0; gi < g.group; ++gi) {
        const float* image = x + (n * g.c + gi * cg_) * g.h * g.w;
        const float* wg = w != nullptr ? w + gi * mg_ * kk_ : nullptr;  // (null: the constant products)
        const float* bg = bias != nullptr ? bias + gi * mg_ : nullptr;
        const float* zg = sum != nullptr ? sum + (n * g.m + gi * mg_) * spatial_ : nullptr;
        float* dst = out + (n * g.m + gi * mg_) * spatial_;
        auto run_blocks = [&](int64_t b0, int64_t b1) {
          float* col = pointwise_ ? nullptr : scratch_floats(5, static_cast<size_t>(kk_ * block_));
          for (int64_t blk = b0; blk < b1; ++blk) {
            int64_t p0 = blk * block_, np = std::min(block_, spatial_ - p0);
            if (!pointwise_ && by_block_) {
              im2col(image, col, p0, np, 0, kk_);
            } else if (!pointwise_) {  // the blocks run in turn: their im2col rows are shared out
              parallel_for(kk_, std::max<int64_t>(1, kMinIm2colFloats / np),
                           [&](int64_t r0, int64_t r1) { im2col(image, col, p0, np, r0, r1); });
            }
            const float* b = pointwise_ ? image + p0 : col;
            int64_t ldb = pointwise_ ? spatial_ : np;
            GemmEpilogue e = clamp_;
            e.bias = bg;
            e.sum = zg != nullptr ? zg + p0 : nullptr;
            if (constant_.empty()) {  // weights given at run time
              sgemm_epilogue(wg, kk_, mg_, kk_, b, ldb, np, e, dst + p0, spatial_);
            } else {
              constant_[static_cast<size_t>(gi)].multiply(b, ldb, np, e, dst + p0, spatial_);
            }
            if (act_.op >= 0 && !clamps_)
              for (int64_t m = 0; m < mg_; ++m) apply_activation(act_, dst + m * spatial_ + p0, np);
          }
        };
        if (by_block_) {
          parallel_for(blocks, 1, run_blocks);
        } else {
          run_blocks(0, blocks);
        }
      }
    }
  }

  // Rows [r0, r1) and columns [p0, p0 + np) of the im2col matrix of one image and group into col (kk x np).
  void im2col(const float* image, float* col, int64_t p0, int64_t np, int64_t r0, int64_t r1) const {
    const ConvGeometry& g = g_;
    for (int64_t r = r0; r < r1; ++r) {
      int64_t c = r / (g.kh * g.kw), ki = (r / g.kw) % g.kh, kj = r % g.kw;
      const float* plane = image + c * g.h * g.w;
      int64_t off = kj * g.dw - g.pw;
      // Valid output columns ow: 0 <= ow * sw + off < W.
      int64_t lo_all = std::clamp<int64_t>((-off + g.sw - 1) / g.sw, 0, g.ow);
      int64_t hi_all = std::clamp<int64_t>((g.w - off + g.sw - 1) / g.sw, lo_all, g.ow);
      float* row = col + r * np;
      for (int64_t p = p0; p < p0 + np;) {
        int64_t oh = p / g.ow, ow0 = p % g.ow, ow1 = std::min(g.ow, ow0 + (p0 + np - p));
        float* d = row + (p - p0) - ow0;  // indexed by ow
        int64_t ih = oh * g.sh - g.ph + ki * g.dh;
        if (ih < 0 || ih >= g.h) {
          std::fill(d + ow0, d + ow1, 0.0f);
        } else {
          int64_t lo = std::clamp(lo_all, ow0, ow1), hi = std::clamp(hi_all, lo, ow1);
          std::fill(d + ow0, d + lo, 0.0f);
          if (hi > lo) row_loops().gather(plane + ih * g.w + off + lo * g.sw, g.sw, d + lo, hi - lo);
          std::fill(d + hi, d + ow1, 0.0f);
        }
        p += ow1 - ow0;
      }
    }
  }

  // Winograd multiplies 2.25x less than the direct product, but on small planes its 4x4 tiles pad the output
  // (a 7x7 plane computes 8x8) and its 16 products are narrow (16 tiles for 7x7): there the im2col product on
  // the same register tiles measured 5-20% faster (Zen 5). The stem path has no product for OpenBLAS to win.
  // So a large enough conv times its direct path and the general one once per process and shape
  // (product_path.h) and keeps the faster; the other's data is dropped.
  // "conv 64 -> 64 3x3 stride 1x1 on 1x56x56": a timing's name (first_is_faster remembers it by that).
  std::string timed_name() const {
    const ConvGeometry& g = g_;
    return "conv " + std::to_string(g.c) + " -> " + std::to_string(g.m) + " " + std::to_string(g.kh) + "x" +
           std::to_string(g.kw) + " stride " + std::to_string(g.sh) + "x" + std::to_string(g.sw) + " on " +
           std::to_string(g.n) + "x" + std::to_string(g.h) + "x" + std::to_string(g.w);
  }

  // A grouped conv runs a product per group, each below the products' own timing floor (a 32-group 3x3 conv of 128
  // channels on 28x28: 4 x 36 x 784), so the whole conv is timed on our tiles and on OpenBLAS instead, through the
  // pool as the network runs it: alone, OpenBLAS ran that conv 17% faster; ShuffleNet's grouped 1x1 convs, timed
  // product by product on one thread, ran twice as long on it inside the network at 2 threads.
  void keep_faster_of_group_products(const float* weights) {
    const ConvGeometry& g = g_;
    std::vector<ConstantMatrix> library;
    library.reserve(static_cast<size_t>(g.group));
    for (int64_t gi = 0; gi < g.group; ++gi) library.emplace_back(weights + gi * mg_ * kk_, mg_, kk_, kk_, ProductPath::kLibrary);
    ScratchProduct scratch(g.n * g.c * g.h * g.w, g.n * g.m * spatial_);
    auto run = [&] { general(scratch.in(), nullptr, nullptr, nullptr, scratch.out()); };
    const ProductPath path = faster_product_path(timed_name() + ", " + std::to_string(g.group) + " groups", run, [&] {
      constant_.swap(library);
      run();
      constant_.swap(library);
    });
    if (path == ProductPath::kLibrary) constant_.swap(library);
  }

  void keep_faster_of_direct_and_general(const float* weights) {
    const ConvGeometry& g = g_;
    ScratchProduct scratch(g.n * g.c * g.h * g.w, g.n * g.m * spatial_);
    const bool direct = first_is_faster(
        timed_name(), winograd_ ? "Winograd" : "direct",
        [&] {
          if (winograd_) {
            winograd_->run(scratch.in(), nullptr, act_, scratch.out());
          } else {
            stem_->run(scratch.in(), nullptr, act_, scratch.out());
          }
        },
        "im2col", [&] { general(scratch.in(), weights, nullptr, nullptr, scratch.out()); });
    if (direct) {
      constant_.clear();
    } else {
      winograd_.reset();
      stem_.reset();
    }
  }

  TensorDesc x_, w_, out_, b_, z_;  // z_: the fused sum
  ConvGeometry g_;
  Activation act_;
  bool round_ = false, has_bias_ = false, has_sum_ = false, pointwise_ = false, depthwise_ = false;
  int64_t cg_ = 0, mg_ = 0, kk_ = 0, spatial_ = 0, block_ = 1;
  bool by_block_ = false;  // the pool runs whole column blocks (else each block's GEMM is split)
  std::vector<ConstantMatrix> constant_;  // per group, when the weights are a float32 constant
  std::vector<float> rounded_weights_;    // a depthwise conv's constant weights rounded to float16 values
  GemmEpilogue clamp_;                    // the products' Relu/Clip bounds (the bias is per group)
  bool clamps_ = false;                   // the activation is those bounds (else it runs after the product)
  std::unique_ptr<WinogradConv> winograd_;
  std::unique_ptr<StemConv> stem_;
};

std::unique_ptr<Kernel> make_conv(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.empty()) return refuse(spec, error, "needs inputs X and W");
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (i < spec.present.size() && !spec.present[i]) continue;
    aclDataType d = spec.inputs[i].dtype;
    if (d != ACL_FLOAT && d != ACL_FLOAT16) return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported (FLOAT, FLOAT16)");
  }
  ConvGeometry g;
  if (!read_conv_geometry(spec, spec.inputs[0].dims, spec.inputs[1].dims, &g, error)) return nullptr;
  const std::vector<int64_t> want = spec.inputs[0].dims.size() == 3 ? std::vector<int64_t>{g.n, g.m, g.ow}
                                                                     : std::vector<int64_t>{g.n, g.m, g.oh, g.ow};
  if (!check_conv_operands(spec, g, want, error)) return nullptr;
  Activation act;
  if (!parse_activation(spec, &act, error)) return nullptr;
  return std::make_unique<ConvKernel>(spec, g, act);
}

}  // namespace

ASCENDSIM_KERNEL(Conv, "", make_conv);

}  // namespace ascendsim::kernels
