// Products with a constant operand (a layer's weights) run on whichever path is faster on this CPU at their shape:
// our register tiles over the operand packed once at build (gemm.h's PackedMatrix and PackedColumns), or
// OpenBLAS. Under ASCENDSIM_PRODUCTS=auto (the default; read when a kernel is built) a product of at least
// kTimedProduct multiply-adds (counting together those of one shape that an execution runs) is timed once per
// process and shape on both paths, as cuDNN's benchmark mode does, and the faster is kept, OpenBLAS only when it
// wins by kLibraryMargin (docs/kernels.md gives the cost at load and why the margin); smaller ones take the packed
// path, as OpenBLAS's per-call packing of the constant then costs more than the product. ASCENDSIM_PRODUCTS=packed
// or =openblas forces one path, to compare them (`ascendsim bench kernels`) or to make runs repeat bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/gemm.h"

namespace ascendsim::kernels {

enum class ProductPath { kPacked, kLibrary };

// The path of a product of m x k by k x n multiply-adds with the constant on the `left` (A: a convolution's
// weights) or the right (B: a MatMul's weights), run `repeats` times by each execution of the kernel (a
// Winograd conv's products of every position and block; else 1): timed when all of them reach kTimedProduct. `packed` and
// `library` each run the product once on scratch operands: what auto times.
ProductPath choose_product_path(bool left, int64_t m, int64_t k, int64_t n, int64_t repeats,
                                const std::function<void()>& packed, const std::function<void()>& library);
// The path of products of `multiply_adds` in all per execution when they are not timed: forced by
// ASCENDSIM_PRODUCTS, or packed below the timing's floor; none when they are to be timed (faster_product_path).
std::optional<ProductPath> untimed_path(int64_t multiply_adds);
// The faster path of products that `packed` and `library` each run once (a caller's own timing of a whole
// kernel, named by `what`), with the margin OpenBLAS must win by.
ProductPath faster_product_path(const std::string& what, const std::function<void()>& packed,
                                const std::function<void()>& library);
// Whether candidates are timed (ASCENDSIM_PRODUCTS=auto) rather than forced.
bool timing_candidates();
// Runs `first` and `second` (a warm-up run each, then timed runs alternating; the fastest counts) once per process
// and `what` (which names the shape: "product A*B 256 x 256 x 196"), logs the times at info level, and answers
// whether `first` was at least as fast as `second` would be with its time multiplied by `margin` (1: plainly the
// faster); later calls with the same `what` get the same answer untimed.
bool first_is_faster(const std::string& what, const char* first_name, const std::function<void()>& first,
                     const char* second_name, const std::function<void()>& second, double margin = 1.0);
// For the kernel-variant log: "packed tiles 16x6 / 6x16 (AVX2)" or "OpenBLAS sgemm (Haswell)".
std::string product_path_name(ProductPath path);
// The same for a matrix-vector product on sgemm's streamed rows (gemm.h): "streamed matrix-vector rows (avx512)".
std::string streamed_rows_path_name();

// The operands a timed product runs on: `in_size` input values 0.5 and `out_size` output values, mapped when first
// used (choose_product_path may not time at all) in huge pages (page_memory.h), as the device memory that a
// model's tensors live in: on small pages a strided read of B missed the TLB on every row, which a network never
// does, and the timing favoured OpenBLAS (which packs B) for that alone.
class ScratchProduct {
 public:
  ScratchProduct(int64_t in_size, int64_t out_size) : in_size_(in_size), out_size_(out_size) {}
  ~ScratchProduct();
  ScratchProduct(const ScratchProduct&) = delete;
  ScratchProduct& operator=(const ScratchProduct&) = delete;
  const float* in();
  float* out();

 private:
  int64_t in_size_, out_size_;
  float* in_ = nullptr;
  float* out_ = nullptr;
};

// C (m x n) = epilogue(A (m x k) * B (k x n)) on OpenBLAS, all row-major: C preset to the bias and sum, one
// sgemm adding the product (beta 1: OpenBLAS then skips its zeroing pass), then the clamp.
void sgemm_epilogue(const float* a, int64_t lda, int64_t m, int64_t k, const float* b, int64_t ldb, int64_t n,
                    const GemmEpilogue& e, float* c, int64_t ldc);

// A constant m x k left operand on its path (choose_product_path, for `repeats` products about `n` columns wide
// per execution).
class ConstantMatrix {
 public:
  ConstantMatrix(const float* a, int64_t m, int64_t k, int64_t lda, int64_t n, int64_t repeats);
  // The same on `path`, untimed (a caller that times the products in its own way).
  ConstantMatrix(const float* a, int64_t m, int64_t k, int64_t lda, ProductPath path);
  // C (m x n, leading dim ldc) = epilogue(A * B (k x n, leading dim ldb)).
  void multiply(const float* b, int64_t ldb, int64_t n, const GemmEpilogue& e, float* c, int64_t ldc) const;
  ProductPath path() const { return packed_ ? ProductPath::kPacked : ProductPath::kLibrary; }

 private:
  void copy_rows(const float* a, int64_t lda);  // the library path's operand
  int64_t m_, k_;
  std::optional<PackedMatrix> packed_;
  std::vector<float> rows_;  // the library path's copy, row-major
};

}  // namespace ascendsim::kernels
