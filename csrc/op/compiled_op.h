// A compiled single operator: the registry kernel(s) built for one concrete signature (static shapes,
// attribute values, constant input values), with the byte sizes its tensors need. Built once per signature
// by the operator cache (op_cache.h) and shared by every call, handle and stream that matches it.
//
// Running: the kernel input transposes of the lowering (BatchMatMul adj_x1/adj_x2, Conv2D NHWC) run the
// registry's Transpose kernel into scratch buffers first; constant inputs the lowering computed (Slice's starts)
// are given to the kernel from this object. An output the kernel writes in another layout (Conv2D NHWC) or
// dtype (ArgMax's INT64 vs INT32) goes to scratch and through its stages: the registry's Transpose, then its
// Cast, the last stage writing the caller's buffer. Kernels and scratch buffers are per object, so run() holds
// the object's mutex: two streams running one cached operator take turns (the kernels parallelise internally).
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/kernel.h"
#include "op/lower.h"

namespace ascendsim::op {

class CompiledOp {
 public:
  // Lowers `call` for `op` and builds its kernels; ACL_SUCCESS or the recorded error.
  static aclError build(const CannOp& op, const OpCall& call, std::shared_ptr<CompiledOp>* out);

  const Lowering& lowering() const { return lowering_; }
  // The CANN op type, for trace labels: it points into the operator table, which lives as long as the process.
  const char* type_name() const { return type_name_; }
  size_t input_bytes(size_t i) const { return input_bytes_[i]; }    // per CANN input (0: absent)
  size_t output_bytes(size_t i) const { return output_bytes_[i]; }  // per CANN output
  size_t num_inputs() const { return input_bytes_.size(); }
  size_t num_outputs() const { return output_bytes_.size(); }

  // inputs/outputs: the CANN tensors' addresses (null for an absent input).
  void run(const void* const* inputs, void* const* outputs);

 private:
  const char* type_name_ = "";
  Lowering lowering_;
  std::vector<size_t> input_bytes_, output_bytes_;
  // An output's conversion after the main kernel: `stages[s]` reads `scratch[s]` and writes `scratch[s + 1]`,
  // the last stage the caller's buffer. No stages: the main kernel writes the caller's buffer.
  struct OutputPath {
    std::vector<std::unique_ptr<kernels::Kernel>> stages;
    std::vector<std::vector<uint8_t>> scratch;
  };
  aclError build_output(const OpCall& call, size_t i, kernels::TensorDesc* kernel_desc);

  std::unique_ptr<kernels::Kernel> main_;
  std::vector<std::unique_ptr<kernels::Kernel>> transposes_;  // per kernel input; null: used as is
  std::vector<std::vector<uint8_t>> input_scratch_;
  std::vector<std::vector<int64_t>> constants_;  // per kernel input: the values of a lowering constant
  std::vector<OutputPath> outputs_;              // per output
  std::vector<const void*> kernel_inputs_;
  std::vector<void*> kernel_outputs_;
  std::mutex mutex_;
};

}  // namespace ascendsim::op
