// The kernel interface, shared by model execution and (later) single operators.
//
// At load time the executor asks the registry for the factory of each node's (op type, domain) and calls
// it with the node's static description (dtypes, shapes, attributes, constant inputs): the factory checks
// what it supports and precomputes everything (strides, broadcasting, im2col sizes, the fused program) into
// a Kernel object, or returns null with a message naming what is not supported. At run time the executor
// only calls Kernel::run with the tensors' addresses: no lookups, no allocation on the hot path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/attrs.h"

namespace ascendsim::kernels {

constexpr int kMaxRank = 8;

struct TensorDesc {
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * aclDataTypeSize(dtype); }
};

// Node flags of the .om NODE record (docs/om-format.md §4.4).
constexpr uint32_t kRoundOutputsFp16 = 1u << 0;
constexpr uint32_t kRoundInputsFp16 = 1u << 1;
constexpr uint32_t kView = 1u << 2;

struct NodeSpec {
  std::string name;
  std::string op_type;
  std::string domain;                       // "" (ONNX) or "ascendsim"
  const Attrs* attrs = nullptr;
  std::vector<TensorDesc> inputs;           // an absent optional input has present[i] == false
  std::vector<bool> present;
  std::vector<const void*> constant_data;   // a constant (weight) input's bytes, else nullptr
  std::vector<TensorDesc> outputs;
  uint32_t flags = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // inputs[i] is null for an absent optional input. Outputs may alias inputs of elementwise kernels
  // (in place, docs/om-format.md §4.3): element i of an output is written only after element i of every
  // input was read.
  virtual void run(const void* const* inputs, void* const* outputs) = 0;
  // The path this kernel runs where its op has several, for the load-time log (docs/kernels.md), e.g.
  // "Winograd F(2x2, 3x3), products on packed tiles 16x6 / 6x16 (AVX2)"; empty for an op with one path.
  virtual std::string path() const { return {}; }
};

// Returns the kernel, or null with `*error` saying what is not supported (op, dtype, attribute value).
using KernelFactory = std::unique_ptr<Kernel> (*)(const NodeSpec& spec, std::string* error);

bool register_kernel(std::string_view op_type, std::string_view domain, KernelFactory factory);
KernelFactory find_kernel(std::string_view op_type, std::string_view domain);
// Calls `factory`; host memory that runs out while it precomputes (the tables of a hostile model's huge
// dims) is a refusal saying so, not an exception through the C API.
std::unique_ptr<Kernel> build_kernel(KernelFactory factory, const NodeSpec& spec, std::string* error);
std::vector<std::string> registered_kernels();  // "Op" or "domain::Op", sorted

}  // namespace ascendsim::kernels

// In a kernel's .cpp: ASCENDSIM_KERNEL(Relu, "", make_relu); registration runs at library load. (Node flags
// need no wrapper: the executor applies ROUND_OUTPUTS_FP16 after every node, csrc/model/loaded_model.cpp, and
// the cube kernels read ROUND_INPUTS_FP16 themselves.)
#define ASCENDSIM_KERNEL(name, domain, factory) \
  static const bool ascendsim_kernel_registered_##name = ::ascendsim::kernels::register_kernel(#name, domain, factory)
