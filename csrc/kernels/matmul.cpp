// MatMul (numpy matmul: 1-D promotion, broadcast batch dims, optional fused bias and activation) and Gemm
// (alpha, beta, transA, transB, broadcast C, fused activation) on sgemm (gemm.h: OpenBLAS, threaded by the pool).
// A MatMul whose B is a float32 constant without batch dims (a layer's weights), and a Gemm whose B is one (with
// A not transposed), pack it once at build (a Gemm's as alpha * op(B)) and multiply on PackedColumns, which adds
// a row bias and clamps a Relu/Clip as it writes, where that path is the faster one (product_path.h): OpenBLAS
// would pack the weights again on every call (measured ~15% slower on a BERT encoder with AVX-512).
//
// Float16 storage is widened to float32 (scratch) and computed in float32; ROUND_INPUTS_FP16 rounds float32
// inputs to float16 values first (cube-unit semantics: fp16 operands, fp32 accumulation). A MatMul whose
// B has no batch dims and whose A is contiguous runs as one (batch*M) x K x N gemm; otherwise one gemm per
// broadcast batch index.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/product_path.h"
#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

bool float_dtype_ok(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16; }

// Adds `bias` (broadcast to out_dims) to `out` in place.
void add_broadcast(float* out, const std::vector<int64_t>& out_dims, const float* bias, const std::vector<int64_t>& bias_dims) {
  BroadcastPlan plan = plan_broadcast(out_dims, {bias_dims});
  int64_t rows = plan.rows(), inner = plan.inner(), stride = plan.strides[0].back();
  for (int64_t r = 0; r < rows; ++r) {
    const float* b = bias + plan.row_offset(0, r);
    float* o = out + r * inner;
    if (stride == 0) {
      float v = b[0];
      for (int64_t j = 0; j < inner; ++j) o[j] += v;
    } else {
      for (int64_t j = 0; j < inner; ++j) o[j] += b[j];
    }
  }
}

// A constant right-hand operand B (k x n, row-major) packed for our column tiles, kept where that path beats
// OpenBLAS at the product's rows (product_path.h), with the part of the epilogue it applies as C is written: a
// bias per column and the clamp of a Relu/Clip, when the node has a row bias and no other activation. A single
// row of A stays with sgemm's matrix-vector products, untimed: they read B once with many sums in flight, where a
// column tile has two chains per panel (a classifier's 2048 x 1000 Gemm, B from memory: 530-540 us packed,
// 350-370 sgemv).
class PackedRight {
 public:
  PackedRight(const float* w, int64_t rows, int64_t k, int64_t n, bool row_bias, const Activation& act) : k_(k), n_(n) {
    if (rows == 1) return;
    columns_ = std::make_unique<PackedColumns>(w, k, n, n);
    ScratchProduct scratch(rows * k, rows * n);  // A and C for the timing
    const ProductPath path = choose_product_path(
        false, rows, k, n, 1, [&] { columns_->multiply(scratch.in(), k, rows, nullptr, -INFINITY, INFINITY, scratch.out(), n); },
        [&] { sgemm(false, false, rows, n, k, 1.0f, scratch.in(), k, w, n, 0.0f, scratch.out(), n); });
    if (path == ProductPath::kLibrary) columns_.reset();
    float lo = 0, hi = 0;
    epilogue_ = row_bias && activation_bounds(act, &lo, &hi);
    if (epilogue_) lo_ = lo, hi_ = hi;
  }
  bool packed() const { return columns_ != nullptr; }
  // Whether multiply() adds the row bias and applies the activation.
  bool takes_epilogue() const { return epilogue_; }
  // C (rows x n) = A (rows x k, contiguous) * B, then the epilogue when it takes it.
  void multiply(const float* a, int64_t rows, const float* bias, float* c) const {
    columns_->multiply(a, k_, rows, epilogue_ ? bias : nullptr, lo_, hi_, c, n_);
  }

 private:
  int64_t k_, n_;
  std::unique_ptr<PackedColumns> columns_;  // null: OpenBLAS is the faster path
  bool epilogue_ = false;
  float lo_ = -INFINITY, hi_ = INFINITY;  // the clamp when epilogue_, else none
};

// A MatMul's or Gemm's path: the packed weights, else sgemm's (its streamed rows, or OpenBLAS).
std::string sgemm_path_name(bool packed, bool streamed_rows, bool ta, bool tb, int64_t m, int64_t n, int64_t k) {
  if (packed) return product_path_name(ProductPath::kPacked);
  if (streamed_rows && streams_rows(ta, tb, m, n, k)) return streamed_rows_path_name();
  return product_path_name(ProductPath::kLibrary);
}

// The epilogue a product's path left undone, row by row over the pool while each row is in cache: + row_bias
// (n values; may be null), then the activation.
void finish_rows(float* out, int64_t rows, int64_t n, const float* row_bias, const Activation& act) {
  parallel_for(rows, std::max<int64_t>(1, 16384 / n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* row = out + r * n;
      if (row_bias != nullptr) row_loops().add(row, row_bias, n);
      apply_activation(act, row, n);
    }
  });
}

class MatMulKernel final : public Kernel {
 public:
  MatMulKernel(const NodeSpec& spec, Activation act) : a_(spec.inputs[0]), b_(spec.inputs[1]), out_(spec.outputs[0]), act_(act) {
    round_ = (spec.flags & kRoundInputsFp16) != 0;
    if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2])) {
      has_bias_ = true;
      bias_ = spec.inputs[2];
    }
    std::vector<int64_t> ad = a_.dims, bd = b_.dims;
    if (ad.size() == 1) ad.insert(ad.begin(), 1);
    if (bd.size() == 1) bd.push_back(1);
    m_ = ad[ad.size() - 2];
    k_ = ad.back();
    n_ = bd.back();
    std::vector<int64_t> abatch(ad.begin(), ad.end() - 2), bbatch(bd.begin(), bd.end() - 2);
    broadcast_shapes({abatch, bbatch}, &batch_);
    batches_ = product(batch_);
    if (bbatch.empty() || product(bbatch) == 1) {
      fold_ = abatch == batch_;  // A's batch is the output's: one tall gemm
    }
    plan_ = plan_broadcast(batch_, {abatch, bbatch});
    // A bias of N values (every dim 1 but the last) is added per output row inside the epilogue.
    row_bias_ = has_bias_ && n_ > 0 && bias_.numel() == n_ && !bias_.dims.empty() && bias_.dims.back() == n_;
    full_out_ = batch_;
    full_out_.push_back(m_);
    full_out_.push_back(n_);
    const bool constant_fp32 = spec.constant_data.size() > 1 && spec.constant_data[1] != nullptr && b_.dtype == ACL_FLOAT;
    const float* w = constant_fp32 ? rounded_constant(static_cast<const float*>(spec.constant_data[1]), b_.numel(), round_, &rounded_b_)
                                   : nullptr;
    if (w != nullptr && fold_ && bd.size() == 2 && k_ > 0 && n_ > 1) {
      packed_b_.emplace(w, batches_ * m_, k_, n_, row_bias_, act_);
      if (!packed_b_->packed()) packed_b_.reset();
    }
    if (packed_b_) rounded_b_ = {};  // the packed copy is all the product reads
  }

  std::string path() const override {
    return sgemm_path_name(packed_b_.has_value(), streamed_rows_, false, false, fold_ ? batches_ * m_ : m_, n_, k_);
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const float* a = float_input(a_, inputs[0], round_, 1);
    const float* b = packed_b_ ? nullptr : !rounded_b_.empty() ? rounded_b_.data() : float_input(b_, inputs[1], round_, 2);
    int64_t total = out_.numel();
    float* out = out_.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(total));
    if (total > 0) {
      const float* bias = has_bias_ ? float_input(bias_, inputs[2], false, 4) : nullptr;
      if (k_ == 0) {
        std::fill(out, out + total, 0.0f);
      } else if (packed_b_) {  // with a row bias and a Relu/Clip (or none), the whole epilogue as C is written
        packed_b_->multiply(a, batches_ * m_, bias, out);
      } else if (fold_) {
        gemm(a, b, out, batches_ * m_);
      } else {
        for (int64_t i = 0; i < batches_; ++i) {
          int64_t ai = offset(0, i), bi = offset(1, i);
          gemm(a + ai * m_ * k_, b + bi * k_ * n_, out + i * m_ * n_, m_);
        }
      }
      if (bias != nullptr && !row_bias_) add_broadcast(out, full_out_, bias, bias_.dims);
      if (!(packed_b_ && packed_b_->takes_epilogue()) && (row_bias_ || act_.op >= 0))
        finish_rows(out, total / n_, n_, row_bias_ ? bias : nullptr, act_);
    }
    if (out_.dtype != ACL_FLOAT) store_float(out_.dtype, out, total, outputs[0], 0);
  }

 private:
  int64_t offset(size_t k, int64_t i) const {
    int64_t rows = plan_.rows(), inner = plan_.inner();
    (void)rows;
    return plan_.row_offset(k, i / inner) + (i % inner) * plan_.strides[k].back();
  }
  void gemm(const float* a, const float* b, float* c, int64_t m) const {
    sgemm(false, false, m, n_, k_, 1.0f, a, k_, b, n_, 0.0f, c, n_, streamed_rows_);
  }

  TensorDesc a_, b_, out_, bias_;
  Activation act_;
  bool round_ = false, has_bias_ = false, row_bias_ = false, fold_ = false;
  bool streamed_rows_ = own_loops_allowed();  // sgemm's (at build, as the packed path)
  std::vector<float> rounded_b_;  // constant weights rounded to float16 values (ROUND_INPUTS_FP16), unpacked
  int64_t m_ = 0, k_ = 0, n_ = 0, batches_ = 1;
  std::vector<int64_t> batch_, full_out_;
  BroadcastPlan plan_;
  std::optional<PackedRight> packed_b_;  // B, when it is a float32 constant without batch dims
};

// What MatMul and Gemm cannot take: fewer than two operands, a non-float operand or output (empty: fine).
std::optional<std::string> operand_problem(const NodeSpec& spec) {
  if (spec.inputs.size() < 2 || spec.outputs.empty()) return std::string("needs inputs A and B");
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (i < spec.present.size() && !spec.present[i]) continue;
    if (!float_dtype_ok(spec.inputs[i].dtype))
      return std::string("dtype ") + dtype_name(spec.inputs[i].dtype) + " is not supported (FLOAT, FLOAT16)";
  }
  if (!float_dtype_ok(spec.outputs[0].dtype)) return std::string("output dtype is not FLOAT or FLOAT16");
  return std::nullopt;
}

std::unique_ptr<Kernel> make_matmul(const NodeSpec& spec, std::string* error) {
  if (auto problem = operand_problem(spec)) return refuse(spec, error, *problem);
  const auto &ad = spec.inputs[0].dims, &bd = spec.inputs[1].dims;
  if (ad.empty() || bd.empty()) return refuse(spec, error, "inputs must not be scalars");
  int64_t k1 = ad.back(), k2 = bd.size() == 1 ? bd[0] : bd[bd.size() - 2];
  if (k1 != k2) return refuse(spec, error, "inner dimensions differ: " + dims_str(ad) + " x " + dims_str(bd));
  std::vector<int64_t> abatch(ad.begin(), ad.end() - std::min<size_t>(2, ad.size()));
  std::vector<int64_t> bbatch(bd.begin(), bd.end() - std::min<size_t>(2, bd.size()));
  std::vector<int64_t> batch;
  if (!broadcast_shapes({abatch, bbatch}, &batch)) return refuse(spec, error, "batch dims do not broadcast: " + dims_str(ad) + " x " + dims_str(bd));
  std::vector<int64_t> out = batch;
  if (ad.size() > 1) out.push_back(ad[ad.size() - 2]);
  if (bd.size() > 1) out.push_back(bd.back());
  if (out != spec.outputs[0].dims)
    return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(out));
  if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2])) {
    std::vector<int64_t> full = batch, joined;
    full.push_back(ad.size() > 1 ? ad[ad.size() - 2] : 1);
    full.push_back(bd.size() > 1 ? bd.back() : 1);
    std::vector<int64_t> bias = spec.inputs[2].dims;
    if (!broadcast_shapes({bias, out}, &joined) || joined != out)
      return refuse(spec, error, "fused bias " + dims_str(bias) + " does not broadcast to the output " + dims_str(out));
  }
  Activation act;
  if (!parse_activation(spec, &act, error)) return nullptr;
  return std::make_unique<MatMulKernel>(spec, act);
}

class GemmKernel final : public Kernel {
 public:
  GemmKernel(const NodeSpec& spec, Activation act, int64_t m, int64_t n, int64_t k)
      : a_(spec.inputs[0]), b_(spec.inputs[1]), out_(spec.outputs[0]), act_(act), m_(m), n_(n), k_(k) {
    round_ = (spec.flags & kRoundInputsFp16) != 0;
    alpha_ = static_cast<float>(spec.attrs ? spec.attrs->get_float("alpha", 1.0) : 1.0);
    beta_ = static_cast<float>(spec.attrs ? spec.attrs->get_float("beta", 1.0) : 1.0);
    ta_ = spec.attrs && spec.attrs->get_int("transA", 0) != 0;
    tb_ = spec.attrs && spec.attrs->get_int("transB", 0) != 0;
    if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2])) {
      has_c_ = true;
      c_ = spec.inputs[2];
    }
    if (spec.constant_data.size() > 1 && spec.constant_data[1] != nullptr && b_.dtype == ACL_FLOAT) {
      const float* w = rounded_constant(static_cast<const float*>(spec.constant_data[1]), b_.numel(), round_, &rounded_b_);
      // Packed as alpha * op(B) when C is nothing to the product (absent, or beta 0) or a bias per column.
      const bool row_c = has_c_ && c_.numel() == n_ && !c_.dims.empty() && c_.dims.back() == n_;
      if (!ta_ && k_ > 0 && n_ > 1 && (!has_c_ || beta_ == 0.0f || row_c)) {
        std::vector<float> op_b(static_cast<size_t>(k_ * n_));
        for (int64_t kk = 0; kk < k_; ++kk)
          for (int64_t j = 0; j < n_; ++j) op_b[static_cast<size_t>(kk * n_ + j)] = alpha_ * (tb_ ? w[j * k_ + kk] : w[kk * n_ + j]);
        packed_b_.emplace(op_b.data(), m_, k_, n_, has_c_ && beta_ != 0.0f, act_);
        if (packed_b_->packed()) {
          rounded_b_ = {};  // the packed copy is all the product reads
        } else {
          packed_b_.reset();
        }
      }
    }
  }

  std::string path() const override { return sgemm_path_name(packed_b_.has_value(), streamed_rows_, ta_, tb_, m_, n_, k_); }

  void run(const void* const* inputs, void* const* outputs) override {
    const float* a = float_input(a_, inputs[0], round_, 1);
    const int64_t total = m_ * n_;
    float* out = out_.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(total));
    if (packed_b_) {
      run_packed(a, inputs[2], out);
    } else {
      run_library(a, inputs, out);
    }
    if (out_.dtype != ACL_FLOAT) store_float(out_.dtype, out, total, outputs[0], 0);
  }

 private:
  // C = A * alpha op(B) on the packed columns, + beta * C's row, then the activation.
  void run_packed(const float* a, const void* c_input, float* out) const {
    const float* row = nullptr;
    if (has_c_ && beta_ != 0.0f) {
      row = float_input(c_, c_input, false, 4);
      if (beta_ != 1.0f) {
        float* scaled = scratch_floats(5, static_cast<size_t>(n_));
        for (int64_t j = 0; j < n_; ++j) scaled[j] = beta_ * row[j];
        row = scaled;
      }
    }
    packed_b_->multiply(a, m_, row, out);
    if (!packed_b_->takes_epilogue()) finish_rows(out, m_, n_, row, act_);
  }

  void run_library(const float* a, const void* const* inputs, float* out) const {
    const float* b = !rounded_b_.empty() ? rounded_b_.data() : float_input(b_, inputs[1], round_, 2);
    const int64_t total = m_ * n_;
    float beta = 0.0f;
    if (has_c_ && beta_ != 0.0f) {
      const float* c = float_input(c_, inputs[2], false, 4);
      std::fill(out, out + total, 0.0f);
      add_broadcast(out, {m_, n_}, c, c_.dims);
      if (beta_ != 1.0f)
        for (int64_t i = 0; i < total; ++i) out[i] *= beta_;
      beta = 1.0f;
    }
    if (k_ > 0) {
      sgemm(ta_, tb_, m_, n_, k_, alpha_, a, ta_ ? m_ : k_, b, tb_ ? k_ : n_, beta, out, n_, streamed_rows_);
    } else if (beta == 0.0f) {
      std::fill(out, out + total, 0.0f);
    }
    apply_activation(act_, out, total);
  }

  TensorDesc a_, b_, out_, c_;
  Activation act_;
  int64_t m_, n_, k_;
  float alpha_ = 1, beta_ = 1;
  bool ta_ = false, tb_ = false, round_ = false, has_c_ = false;
  bool streamed_rows_ = own_loops_allowed();  // sgemm's (at build, as the packed path)
  std::vector<float> rounded_b_;  // constant weights rounded to float16 values once (ROUND_INPUTS_FP16)
  std::optional<PackedRight> packed_b_;  // alpha * op(B), when B is a float32 constant and A is not transposed
};

std::unique_ptr<Kernel> make_gemm(const NodeSpec& spec, std::string* error) {
  if (auto problem = operand_problem(spec)) return refuse(spec, error, *problem);
  const auto &ad = spec.inputs[0].dims, &bd = spec.inputs[1].dims;
  if (ad.size() != 2 || bd.size() != 2) return refuse(spec, error, "A " + dims_str(ad) + " and B " + dims_str(bd) + " must be 2-D");
  bool ta = spec.attrs && spec.attrs->get_int("transA", 0) != 0, tb = spec.attrs && spec.attrs->get_int("transB", 0) != 0;
  int64_t m = ta ? ad[1] : ad[0], k = ta ? ad[0] : ad[1], k2 = tb ? bd[1] : bd[0], n = tb ? bd[0] : bd[1];
  if (k != k2) return refuse(spec, error, "inner dimensions differ: A " + dims_str(ad) + ", B " + dims_str(bd));
  if (spec.outputs[0].dims != std::vector<int64_t>{m, n})
    return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str({m, n}));
  if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2])) {
    std::vector<int64_t> joined;
    if (!broadcast_shapes({spec.inputs[2].dims, {m, n}}, &joined) || joined != std::vector<int64_t>{m, n})
      return refuse(spec, error, "C " + dims_str(spec.inputs[2].dims) + " does not broadcast to " + dims_str({m, n}));
  }
  Activation act;
  if (!parse_activation(spec, &act, error)) return nullptr;
  return std::make_unique<GemmKernel>(spec, act, m, n, k);
}

}  // namespace

ASCENDSIM_KERNEL(MatMul, "", make_matmul);
ASCENDSIM_KERNEL(Gemm, "", make_gemm);

}  // namespace ascendsim::kernels
