// One single-operator call as the aclop* functions describe it, independent of the C handles: the CANN op
// type, its input and output tensors (dtype, formats, dims with -1 for dynamic axes, shape ranges, and the
// values of inputs whose values are known on the host: aclSetTensorConst data or host-placed buffers) and
// its attributes in the kernels' decoded form (CANN names). `lower` (lower.h) turns it into the registry
// kernel's NodeSpec; op_registry.h matches it against compiled and loaded operators.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/attrs.h"

namespace ascendsim::op {

struct OpTensor {
  bool absent = false;  // an omitted optional input (GE: dtype and format both UNDEFINED)
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;          // origin format
  aclFormat storage_format = ACL_FORMAT_UNDEFINED;  // UNDEFINED: as the origin
  std::vector<int64_t> dims;                        // origin dims; -1 dynamic, {-2} unknown rank
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per dim, for dynamic dims
  std::shared_ptr<const std::vector<uint8_t>> values;  // host values, when known
  bool is_const = false;                            // values came from aclSetTensorConst / a WEIGHT
  aclMemType placement = ACL_MEMTYPE_DEVICE;        // aclSetTensorPlaceMent
  bool is_static() const;
};

struct OpCall {
  const char* api = "";  // for messages
  std::string type;
  std::vector<OpTensor> inputs, outputs;
  kernels::Attrs attrs;
  // The setter type of int-valued attributes that are not plain ints (1: bool, 2: data type), as GE tells
  // aclopSetAttrBool(..., 1) from aclopSetAttrInt(..., 1) when it matches a model (docs/om-format.md §10.4).
  std::map<std::string, uint32_t> attr_types;
};

// "[2,3]"-style text of a tensor for messages: "ACL_FLOAT ND [2,3]".
std::string tensor_text(const OpTensor& t);
const char* dtype_text(aclDataType dtype);
const char* format_text(aclFormat format);

}  // namespace ascendsim::op
