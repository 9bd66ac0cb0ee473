// The two loops the elementwise programs are made of, in the variant's namespace: the float unary loop
// (simd/elementwise_loops.cpp, also the fused epilogue's) and the step interpreter (simd/elementwise_step.cpp).
#pragma once
#include <cstdint>

#include "kernels/simd/elementwise_loops.h"
#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {

void unary_float(const Step& s, const float* x, float* o, int64_t n);
void exec_step(const Step& s, int64_t n, void* const* slot, void* out);

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
