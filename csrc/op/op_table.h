// The table of supported CANN operators (cann_ops.def) as data: per CANN op type, the registry kernel that
// runs it, the lowering family that translates its inputs and attributes, its input/output counts and the
// attributes that only change name (with CANN's default where it differs from the kernel's).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ascendsim::op {

enum class Family {
#define CANN_FAMILY(f) f,
  CANN_FAMILY(Unary) CANN_FAMILY(Gelu) CANN_FAMILY(Cast) CANN_FAMILY(Binary) CANN_FAMILY(Compare)
  CANN_FAMILY(Select) CANN_FAMILY(MatMul) CANN_FAMILY(BatchMatMul) CANN_FAMILY(Conv2D) CANN_FAMILY(Pool)
  CANN_FAMILY(PoolV) CANN_FAMILY(Softmax) CANN_FAMILY(Reduce) CANN_FAMILY(ArgMax) CANN_FAMILY(Transpose)
  CANN_FAMILY(Reshape) CANN_FAMILY(Concat) CANN_FAMILY(Split) CANN_FAMILY(Gather) CANN_FAMILY(Pad)
  CANN_FAMILY(Tile) CANN_FAMILY(Expand) CANN_FAMILY(Fill) CANN_FAMILY(TransData) CANN_FAMILY(Gemm)
  CANN_FAMILY(Slice) CANN_FAMILY(StridedSlice) CANN_FAMILY(LayerNorm)
#undef CANN_FAMILY
};

struct AttrRename {
  std::string cann, kernel;
  bool has_default = false;
  double default_value = 0;
  bool default_is_int = false;
};

struct CannOp {
  std::string name;          // CANN op type
  std::string kernel;        // registry kernel (ONNX name; TransData: ascendsim domain)
  Family family;
  int min_inputs, max_inputs;  // max -1: any number (dynamic input)
  int outputs;                 // -1: any number (dynamic output)
  std::vector<AttrRename> renames;
};

// The operator `type`, or null when CANN's op type is not supported.
const CannOp* find_cann_op(std::string_view type);
std::vector<std::string> cann_op_names();  // sorted

}  // namespace ascendsim::op
