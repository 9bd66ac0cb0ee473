// The product paths (see product_path.h).
#include "kernels/product_path.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "core/log.h"
#include "kernels/isa.h"
#include "kernels/page_memory.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMinClampFloats = 16384;      // clamp pass per pool chunk
constexpr int64_t kTimedProduct = int64_t{1} << 21;  // multiply-adds (~20 us): below, packed without timing
constexpr int kTimedRuns = 3;                   // per path, after one warm-up run each, alternating; the fastest counts
// OpenBLAS must beat the packed tiles by this factor to be chosen. The timing runs on operands in cache, where the
// two paths were within a few percent at a network's shapes; inside the network the weights come from memory, and
// there the packed path (weights read once, already packed) measured 7-15% faster than OpenBLAS (which packs them
// on every call) at those same shapes: 1x1 convs 320 -> 1280 on 7x7 767 vs 861 us, 1152 -> 320 679 vs 746 us,
// with the caches flushed between runs (Zen 3, AVX2); whole MobileNetV2 / EfficientNet-B0 1-3.5% faster packed.
constexpr double kLibraryMargin = 1.1;

double seconds(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The timed choices of this process, by what was timed ("product A*B 256 x 256 x 196"): whether the first
// candidate won.
std::mutex choices_mutex;
std::map<std::string, bool> choices;

}  // namespace

bool timing_candidates() { return products_mode() == ProductsMode::kAuto; }

bool first_is_faster(const std::string& what, const char* first_name, const std::function<void()>& first,
                     const char* second_name, const std::function<void()>& second, double margin) {
  {
    std::lock_guard<std::mutex> lock(choices_mutex);
    if (auto found = choices.find(what); found != choices.end()) return found->second;
  }
  first();
  second();
  double first_best = 1e30, second_best = 1e30;
  for (int run = 0; run < kTimedRuns; ++run) {
    first_best = std::min(first_best, seconds(first));
    second_best = std::min(second_best, seconds(second));
  }
  const bool won = first_best <= second_best * margin;
  log(kLogInfo, "KERNELS", "%s: %s %.1f us, %s %.1f us: %s", what.c_str(), first_name, first_best * 1e6, second_name,
      second_best * 1e6, won ? first_name : second_name);
  std::lock_guard<std::mutex> lock(choices_mutex);
  choices.emplace(what, won);
  return won;
}

ScratchProduct::~ScratchProduct() {
  unmap_floats(in_, static_cast<size_t>(in_size_));
  unmap_floats(out_, static_cast<size_t>(out_size_));
}

const float* ScratchProduct::in() {
  if (in_ == nullptr) {
    in_ = map_floats(static_cast<size_t>(in_size_));
    std::fill(in_, in_ + in_size_, 0.5f);
  }
  return in_;
}

float* ScratchProduct::out() {
  if (out_ == nullptr) out_ = map_floats(static_cast<size_t>(out_size_));
  return out_;
}

ProductPath choose_product_path(bool left, int64_t m, int64_t k, int64_t n, int64_t repeats,
                                const std::function<void()>& packed, const std::function<void()>& library) {
  if (const std::optional<ProductPath> untimed = untimed_path(m * k * n * repeats)) return *untimed;
  const std::string what = std::string("product ") + (left ? "A*B " : "A*B' ") + std::to_string(m) + " x " +
                           std::to_string(k) + " x " + std::to_string(n);
  return faster_product_path(what, packed, library);
}

std::optional<ProductPath> untimed_path(int64_t multiply_adds) {
  const ProductsMode how = products_mode();
  if (how != ProductsMode::kAuto) return how == ProductsMode::kPacked ? ProductPath::kPacked : ProductPath::kLibrary;
  if (multiply_adds < kTimedProduct) return ProductPath::kPacked;
  return std::nullopt;
}

ProductPath faster_product_path(const std::string& what, const std::function<void()>& packed,
                                const std::function<void()>& library) {
  return first_is_faster(what, "packed", packed, "OpenBLAS", library, kLibraryMargin) ? ProductPath::kPacked
                                                                                       : ProductPath::kLibrary;
}

std::string product_path_name(ProductPath path) {
  if (path == ProductPath::kLibrary) return std::string("OpenBLAS sgemm (") + scipy_openblas_get_corename() + ")";
  return std::string("packed tiles ") + gemm_tiles().shape;
}

std::string streamed_rows_path_name() { return std::string("streamed matrix-vector rows (") + active_isa_name() + ")"; }

void sgemm_epilogue(const float* a, int64_t lda, int64_t m, int64_t k, const float* b, int64_t ldb, int64_t n,
                    const GemmEpilogue& e, float* c, int64_t ldc) {
  const bool preset = e.bias != nullptr || e.sum != nullptr;
  if (preset)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < n; ++j)
        c[r * ldc + j] = (e.bias != nullptr ? e.bias[r] : 0.0f) + (e.sum != nullptr ? e.sum[r * ldc + j] : 0.0f);
  sgemm(false, false, m, n, k, 1.0f, a, lda, b, ldb, preset ? 1.0f : 0.0f, c, ldc);
  if (e.lo == -__builtin_inff() && e.hi == __builtin_inff()) return;
  parallel_for(m, std::max<int64_t>(1, kMinClampFloats / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < n; ++j) c[r * ldc + j] = std::min(std::max(c[r * ldc + j], e.lo), e.hi);
  });
}

ConstantMatrix::ConstantMatrix(const float* a, int64_t m, int64_t k, int64_t lda, int64_t n, int64_t repeats)
    : ConstantMatrix(a, m, k, lda, ProductPath::kPacked) {
  copy_rows(a, lda);
  ScratchProduct scratch(k * n, m * n);  // B and C for the timing
  const ProductPath path = choose_product_path(
      true, m, k, n, repeats, [&] { packed_->multiply(scratch.in(), n, n, GemmEpilogue{}, scratch.out(), n); },
      [&] { sgemm_epilogue(rows_.data(), k, m, k, scratch.in(), n, n, GemmEpilogue{}, scratch.out(), n); });
  if (path == ProductPath::kPacked) {
    rows_ = {};
  } else {
    packed_.reset();
  }
}

ConstantMatrix::ConstantMatrix(const float* a, int64_t m, int64_t k, int64_t lda, ProductPath path) : m_(m), k_(k) {
  if (path == ProductPath::kPacked) {
    packed_.emplace(a, m, k, lda);
    return;
  }
  copy_rows(a, lda);
}

void ConstantMatrix::copy_rows(const float* a, int64_t lda) {
  rows_.resize(static_cast<size_t>(m_ * k_));
  for (int64_t r = 0; r < m_; ++r) std::copy(a + r * lda, a + r * lda + k_, rows_.begin() + r * k_);
}

void ConstantMatrix::multiply(const float* b, int64_t ldb, int64_t n, const GemmEpilogue& e, float* c,
                              int64_t ldc) const {
  if (packed_) {
    packed_->multiply(b, ldb, n, e, c, ldc);
    return;
  }
  sgemm_epilogue(rows_.data(), k_, m_, k_, b, ldb, n, e, c, ldc);
}

}  // namespace ascendsim::kernels
