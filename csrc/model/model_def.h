// ModelDef: an offline model (.om, docs/om-format.md) as the loader validated and decoded it. Everything the
// runtime needs to describe (aclmdlGetDesc) and execute the model, independent of the file layout; the
// weight bytes stay in the caller's file image (`weights` points into it).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_mdl.h"
#include "kernels/attrs.h"

namespace ascendsim::model {

constexpr uint32_t kNone = 0xFFFFFFFFu;

enum class TensorKind : uint32_t { FeatureMap = 0, Weight = 1, Input = 2, Output = 3 };

struct TensorDef {
  std::string name;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  TensorKind kind = TensorKind::FeatureMap;
  uint32_t io_index = kNone;  // Input/Output: the model input/output index
  uint64_t offset = 0;        // FeatureMap: in the arena; Weight: in the weights
  uint64_t size = 0;
  std::vector<int64_t> dims;  // single-operator inputs/outputs: -1 dynamic dims, or {-2} (unknown rank)
};

struct NodeDef {
  std::string name;
  std::string op_type;
  std::string domain;
  uint32_t stream = 0;
  std::vector<uint32_t> inputs;   // tensor ids; kNone for an absent optional input
  std::vector<uint32_t> outputs;  // tensor ids
  kernels::Attrs attrs;
  uint32_t flags = 0;             // kernels::kRoundOutputsFp16 | kRoundInputsFp16 | kView
  // Single-operator models (docs/om-format.md §10.4): the ATC type of each INT / INTS attribute that is not a
  // plain int (the ATTR aux: 1 bool, 2 data type). Kernels read ints; aclopExecute* matches types with it.
  std::map<std::string, uint32_t> atc_types;
};

enum class TaskType : uint32_t { Kernel = 0, EventRecord = 1, EventWait = 2 };

struct TaskDef {
  TaskType type = TaskType::Kernel;
  uint32_t stream = 0;
  uint32_t arg = 0;   // Kernel: the node; EventRecord/EventWait: the event id
  uint32_t node = 0;
};

// One executable graph; a gear model has one per gear (same order as the gears).
struct PlanDef {
  uint64_t feature_map_size = 0;
  std::vector<TensorDef> tensors;
  std::vector<NodeDef> nodes;           // in execution order
  uint32_t stream_count = 1;
  uint32_t event_count = 0;
  std::vector<uint32_t> input_ids;      // per model input; kNone for ascend_mbatch_shape_data
  std::vector<uint32_t> output_ids;
  std::vector<int64_t> gear_values;     // empty for a static model
  std::vector<TaskDef> tasks;           // in global order (docs/om-format.md §6)
};

// A model input or output as aclmdlGetDesc reports it (GE's ModelTensorDescBaseInfo).
struct IoDesc {
  std::string name;
  size_t size = 0;                      // bytes of the largest gear
  aclFormat format = ACL_FORMAT_ND;
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims;            // -1 on dynamic axes
  std::vector<int64_t> dims_v2;         // the largest gear's shape
  std::vector<std::pair<int64_t, int64_t>> shape_range;
};

// Static AIPP of one input (MODEL_AIPP_INFO, docs/om-format.md §7): the raw 200-byte record decoded.
struct AippDef {
  uint32_t input_index = 0;
  aclAippInfo info{};                   // the scalar fields; outDims filled per plan
  std::vector<std::vector<int64_t>> out_dims_per_plan;
  std::vector<std::vector<int64_t>> src_dims_per_plan;  // MODEL_AIPP_IMAGE_DIMS (1.3): srcDims per plan
  aclFormat out_format = ACL_FORMAT_NCHW;
  aclDataType out_dtype = ACL_FLOAT;
};

struct ModelDef {
  std::string name;
  std::string soc_version;
  bool single_op = false;               // MODEL_DEF flag SINGLE_OP: one "cann" node (docs/om-format.md §10)
  bool dynamic_shape = false;           // MODEL_DEF flag DYNAMIC_SHAPE (1.4): the v2 runtime runs it (§11)
  uint32_t dynamic_type = 0;            // 0 fixed, 1 batch, 2 image (HW), 3 dims
  uint32_t gear_dim_count = 0;
  uint32_t precision_mode = 0;
  uint32_t dynamic_input_index = kNone;
  std::vector<PlanDef> plans;
  // (format 1.5, docs/om-format.md §12) the If/Loop subgraphs of a dynamic-shape model, in index order; each
  // one's input_ids/output_ids are its own inputs and outputs (a node's `then_branch`/`else_branch`/`body`
  // attribute is an index here).
  std::vector<PlanDef> subgraphs;
  std::vector<IoDesc> inputs;
  std::vector<IoDesc> outputs;
  std::vector<std::vector<int64_t>> gears;          // the gear values, one entry per plan
  std::vector<std::string> designate_shape_order;   // dynamic dims: inputs carrying -1 dims, in order
  std::vector<AippDef> aipp;
  const uint8_t* weights = nullptr;     // into the file image given to parse_om
  uint64_t weight_size = 0;
};

// Validates and decodes a whole .om file image (docs/om-format.md §9, the loader checklist). On failure
// records the real error code with a message (aclGetRecentErrMsg) and returns it: a truncated or corrupted
// file -> ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID / ACL_ERROR_PARSE_MODEL; a model for another SoC than
// `soc_version` -> the real runtime's refusal; an .om made by Huawei's ATC -> a message to rebuild it with
// ascendsim's atc.
aclError parse_om(const uint8_t* data, size_t size, const std::string& soc_version, ModelDef* out);

}  // namespace ascendsim::model
