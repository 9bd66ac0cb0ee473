// The loops of the elementwise kernels (elementwise.cpp builds the programs and walks the blocks), one table per
// kernel variant (simd/elementwise_loops.cpp): the ops, the steps of a program, and what runs them.
#pragma once
#include <cstdint>

#include "acl/acl_base.h"

namespace ascendsim::kernels {

enum Op {
  kSqrt, kExp, kLog, kAbs, kNeg, kReciprocal, kFloor, kCeil, kRelu, kSigmoid, kTanh, kHardSigmoid, kErf,
  kSoftplus, kElu, kSelu, kLeakyRelu, kSign, kRound, kSin, kCos, kSoftsign, kNot, kHardSwish, kGelu, kSilu,
  kIdentity, kCast,
  kAdd, kSub, kMul, kDiv, kPow, kMod, kAnd, kOr, kXor, kPRelu, kMax, kMin,
  kEqual, kGreater, kLess, kGreaterOrEqual, kLessOrEqual,
  kWhere, kClip,
  kMulAdd,  // a * b + c, Relu after when `flag`: a fused Mul and Add (elementwise.cpp's fuse_multiply_add)
};

enum Kind { kF = 0, kI = 1 };  // a slot holds float32 or int64 values

struct Step {
  Op op = kIdentity;
  int in[3] = {0, 0, 0};
  int nin = 0;
  Kind kind = kF;         // result kind
  Kind in_kind[3] = {kF, kF, kF};
  float alpha = 0, beta = 0, gamma = 0;
  bool flag = false;      // Mod fmod=1; Gelu approximate=tanh; MulAdd then Relu
  aclDataType to = ACL_FLOAT;
};

inline int arity(Op op) {
  if (op <= kCast) return 1;
  if (op <= kLessOrEqual) return 2;
  return 3;
}

struct ElementwiseLoops {
  // One float unary op (also the epilogue activation) over n values; x may equal o.
  void (*unary)(const Step& s, const float* x, float* o, int64_t n);
  // One step over n elements: slot[k] is the memory of slot k, `out` the step's result.
  void (*step)(const Step& s, int64_t n, void* const* slot, void* out);
  // One float32 Add/Sub/Mul/Div of two same-shape operands read in place.
  void (*binary)(Op op, const float* a, const float* b, float* o, int64_t n);
};

const ElementwiseLoops& elementwise_loops();

}  // namespace ascendsim::kernels
