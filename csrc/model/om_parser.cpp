// parse_om: validates and decodes an ascendsim .om file image into a ModelDef (docs/om-format.md, the
// checklist of §9). The walk mirrors python/ascendsim/compiler/om_reader.py check for check, so that both
// accept exactly the same files (the tests feed both the same corrupted images): GE header -> partition
// table -> MODEL_DEF (header, plans, tensors, nodes, attributes) -> TASK_INFO -> MODEL_INOUT_INFO.
//
// Hostile input: every read goes through Span, whose range checks compute `offset + count * itemsize` in
// 64 bits without overflow (count <= (limit - offset) / itemsize), so no record is read outside its
// partition whatever the counts and offsets say. Checks throw a ParseError internally; parse_om turns it
// into the recorded error (ascendsim::fail) and the return code:
//   * GE header and partition table -> ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID (145006), as GE's
//     ModelParserBase does for a bad magic or a payload length that does not match the file;
//   * anything inside the partitions -> ACL_ERROR_PARSE_MODEL (100013) (inferred: GE reports protobuf
//     parse failures of MODEL_DEF through its own partition codes; ACL's "parse model" code is the closest);
//   * a file with GE's header that ascendsim's compiler did not write (an .om built by Huawei's ATC) ->
//     ACL_ERROR_PARSE_MODEL with a message asking to rebuild it with ascendsim's atc;
//   * a model for another SoC than the emulated one -> ACL_ERROR_GE_LOAD_MODEL (545001) (inferred).
// The SHA-256 of the payload is not verified (allowed by §2; loading stays O(metadata), weights untouched).
#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "acl/error_codes/ge_error_codes.h"
#include "core/error.h"
#include "kernels/attrs.h"
#include "model/model_def.h"
#include "model/plan_overlap.h"

namespace ascendsim::model {
namespace {

struct ParseError {
  aclError code;
  std::string message;
};

[[noreturn]] __attribute__((format(printf, 2, 3))) void reject(aclError code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  char text[512];
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  throw ParseError{code, text};
}

constexpr aclError kBadFile = static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID);
constexpr aclError kBadModel = ACL_ERROR_PARSE_MODEL;

#define CHECK_FILE(cond, ...) \
  do {                        \
    if (!(cond)) reject(kBadFile, __VA_ARGS__); \
  } while (0)
#define CHECK_MODEL(cond, ...) \
  do {                         \
    if (!(cond)) reject(kBadModel, __VA_ARGS__); \
  } while (0)

// [offset, offset + count * itemsize) inside [0, limit), without overflow.
bool inside(uint64_t offset, uint64_t count, uint64_t itemsize, uint64_t limit) {
  if (offset > limit) return false;
  if (itemsize == 0 || count == 0) return true;
  return count <= (limit - offset) / itemsize;
}

// The .om fields are little-endian and Span reads them by copying their bytes: on a big-endian host every field
// would come out byte-swapped, so such a build stops here rather than parsing garbage.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "om_parser reads the little-endian .om format in place");

// A bounded view of bytes (a partition, a section, a TLV value). Readers take offsets already checked.
class Span {
 public:
  Span() = default;
  Span(const uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint64_t size() const { return size_; }
  const uint8_t* data() const { return data_; }
  bool has(uint64_t offset, uint64_t count, uint64_t itemsize) const { return inside(offset, count, itemsize, size_); }
  Span sub(uint64_t offset, uint64_t size) const { return Span(data_ + offset, size); }
  template <typename T>
  T get(uint64_t offset) const {
    T value;
    std::memcpy(&value, data_ + offset, sizeof(T));  // little-endian host (the static_assert above)
    return value;
  }
  uint8_t u8(uint64_t o) const { return get<uint8_t>(o); }
  uint16_t u16(uint64_t o) const { return get<uint16_t>(o); }
  uint32_t u32(uint64_t o) const { return get<uint32_t>(o); }
  uint64_t u64(uint64_t o) const { return get<uint64_t>(o); }
  int32_t i32(uint64_t o) const { return get<int32_t>(o); }
  int64_t i64(uint64_t o) const { return get<int64_t>(o); }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// Strict UTF-8 (as Python's decoder: no overlongs, no surrogates, nothing above U+10FFFF).
bool valid_utf8(const uint8_t* s, uint64_t n) {
  uint64_t i = 0;
  while (i < n) {
    const uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    uint32_t need = 0, lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (n - i <= need) return false;
    if (s[i + 1] < lo || s[i + 1] > hi) return false;
    for (uint32_t k = 2; k <= need; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return false;
    i += need + 1;
  }
  return true;
}

// aclDataType values a tensor may have (docs §4.3) and their item sizes; 0 = unknown.
uint64_t itemsize_of(uint32_t dtype) {
  switch (dtype) {
    case 0: case 3: case 8: return 4;  // FLOAT, INT32, UINT32
    case 1: case 6: case 7: return 2;  // FLOAT16, INT16, UINT16
    case 2: case 4: case 12: return 1;  // INT8, UINT8, BOOL
    case 9: case 10: case 11: return 8;  // INT64, UINT64, DOUBLE
    default: return 0;
  }
}

bool known_format(uint32_t format) {
  switch (format) {
    case 0: case 1: case 2: case 3: case 4: case 12: case 16: case 27: case 29: case 30: case 32: case 33:
      return true;
    default:
      return false;
  }
}

// product of dims (all >= 0) in 64 bits; false on overflow.
bool product(const std::vector<int64_t>& dims, uint64_t* out) {
  uint64_t p = 1;
  for (int64_t d : dims)
    if (d == 0) {
      *out = 0;
      return true;
    }
  for (int64_t d : dims) {
    const uint64_t u = static_cast<uint64_t>(d);
    if (p > std::numeric_limits<uint64_t>::max() / u) return false;
    p *= u;
  }
  *out = p;
  return true;
}

constexpr uint64_t kHeaderSize = 256;
constexpr uint32_t kMagic = 0x444F4D49u;
constexpr uint32_t kPartitionTypes[4] = {0, 1, 2, 8};
constexpr const char* kPartitionNames[4] = {"MODEL_DEF", "WEIGHTS_DATA", "TASK_INFO", "MODEL_INOUT_INFO"};
constexpr uint64_t kModelDefHeader = 96, kPlanSize = 64, kTensorSize = 104, kNodeSize = 48, kAttrSize = 24;
constexpr uint32_t kMaxPlans = 100, kMaxRank = 8, kMaxAttrDepth = 8;
constexpr uint32_t kNodeFlags = 15;  // ROUND_OUTPUTS_FP16, ROUND_INPUTS_FP16, VIEW, SHAPE_DEPENDENT (1.4)
constexpr uint32_t kFlagDynamicGears = 1, kFlagSingleOp = 2, kFlagDynamicShape = 4, kFlagControlFlow = 8;  // MODEL_DEF flags
constexpr uint32_t kMaxSubgraphs = 1024, kMaxSubgraphIo = 65536;
constexpr unsigned kPlanIndexSubgraph = 1000;  // plan numbers in messages: subgraph i is "plan 1000+i"
constexpr uint32_t kIntLists = 8, kAuxBool = 1, kAuxDataType = 2;  // §4.5 / §10.4

class Parser {
 public:
  Parser(const uint8_t* data, uint64_t size, ModelDef* out) : file_(data, size), m_(*out) {}

  void run() {
    header();
    partitions();
    model_def();
    task_info();
    inout();
    CHECK_MODEL(m_.inputs.size() == input_count_ && m_.outputs.size() == output_count_,
                "MODEL_INOUT_INFO describes %zu inputs and %zu outputs, MODEL_DEF has %u and %u", m_.inputs.size(),
                m_.outputs.size(), input_count_, output_count_);
    aipp_src_dims();
  }

  bool magic_ok = false;          // the GE header magic matched
  std::string user_define_info;  // "ascendsim" in files of ascendsim's compiler

 private:
  // ---- §2 GE header ----
  void header() {
    CHECK_FILE(file_.size() >= kHeaderSize, "file of %llu bytes is shorter than the 256-byte model file header",
               static_cast<unsigned long long>(file_.size()));
    const uint32_t magic = file_.u32(0);
    CHECK_FILE(magic == kMagic, "bad magic 0x%08X (expected 0x%08X, \"IMOD\"): not an offline model file", magic,
               kMagic);
    char info[33] = {};
    std::memcpy(info, file_.data() + 120, 32);
    user_define_info = info;
    magic_ok = true;
    CHECK_FILE(file_.u32(4) == kHeaderSize, "bad headsize %u (expected 256)", file_.u32(4));
    const uint32_t length = file_.u32(76);
    const uint64_t model_length = file_.u64(184);
    const uint64_t payload = model_length != 0 ? model_length : length;
    CHECK_FILE(payload == file_.size() - kHeaderSize,
               "payload length %llu in the header does not match the file size %llu - 256",
               static_cast<unsigned long long>(payload), static_cast<unsigned long long>(file_.size()));
    CHECK_FILE(model_length != 0, "only the 64-bit partition table (model_length != 0) is supported");
    CHECK_FILE(file_.u8(80) == 0, "encrypted models (is_encrypt %u) are not supported", file_.u8(80));
    CHECK_FILE(file_.u8(81) <= 1, "is_checksum %u is neither 0 (CHECK) nor 1 (UNCHECK)", file_.u8(81));
    const uint32_t model_num = file_.u32(156);
    CHECK_FILE(model_num <= 1, "model_num %u: only one model per file is supported", model_num);
  }

  // ---- §3 partition table ----
  void partitions() {
    const uint64_t base = kHeaderSize;
    CHECK_FILE(file_.has(base, 1, 8), "the file ends inside the partition table");
    const uint32_t count = file_.u32(base);
    CHECK_FILE(count == 4 && file_.has(base + 8, count, 24), "bad partition count %u (expected 4)", count);
    const uint64_t table_end = base + 8 + 24ull * count;
    uint64_t cursor = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t entry = base + 8 + 24ull * i;
      const uint32_t type = file_.u32(entry);
      const uint64_t offset = file_.u64(entry + 8), size = file_.u64(entry + 16);
      CHECK_FILE(type == kPartitionTypes[i], "partition %u has type %u, expected %u (%s)", i, type,
                 kPartitionTypes[i], kPartitionNames[i]);
      CHECK_FILE(offset == cursor, "partition %s offset %llu != expected %llu", kPartitionNames[i],
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(cursor));
      CHECK_FILE(file_.has(table_end + offset, size, 1), "partition %s runs past the end of the file",
                 kPartitionNames[i]);
      part_[i] = file_.sub(table_end + offset, size);
      cursor += size;
    }
    CHECK_FILE(table_end + cursor == file_.size(), "the partitions do not consume the payload exactly");
  }

  // ---- §4.1 MODEL_DEF header ----
  void model_def() {
    const Span d = part_[0];
    CHECK_MODEL(d.size() >= kModelDefHeader, "MODEL_DEF is shorter than its 96-byte header");
    CHECK_MODEL(std::memcmp(d.data(), "ASMD", 4) == 0, "MODEL_DEF magic is not \"ASMD\"");
    const uint16_t major = d.u16(4), minor = d.u16(6);
    CHECK_MODEL(major == 1, "MODEL_DEF format version %u.%u; this runtime reads 1.x", major, minor);
    const uint32_t header_size = d.u32(8), flags = d.u32(12), plan_count = d.u32(16), plan_offset = d.u32(20);
    const uint32_t str_offset = d.u32(24), str_size = d.u32(28), attr_offset = d.u32(32), attr_size = d.u32(36);
    const uint64_t weight_size = d.u64(40);
    const uint32_t name = d.u32(48), soc = d.u32(52);
    input_count_ = d.u32(56);
    output_count_ = d.u32(60);
    const uint32_t dynamic_type = d.u32(64), gear_dims = d.u32(68), precision = d.u32(72);
    const uint32_t dynamic_index = d.u32(76);
    CHECK_MODEL(header_size >= kModelDefHeader && header_size <= d.size(), "bad MODEL_DEF header size %u",
                header_size);
    CHECK_MODEL(plan_count >= 1 && plan_count <= kMaxPlans && d.has(plan_offset, plan_count, kPlanSize),
                "plan_count %u or plan table out of bounds", plan_count);
    CHECK_MODEL(d.has(str_offset, str_size, 1) && d.has(attr_offset, attr_size, 1),
                "string/attr section out of bounds");
    strings_ = d.sub(str_offset, str_size);
    CHECK_MODEL(str_size > 0 && strings_.u8(0) == 0 && strings_.u8(str_size - 1) == 0,
                "the string table must start and end with NUL");
    blob_ = d.sub(attr_offset, attr_size);
    CHECK_MODEL(weight_size == part_[1].size(), "weight size %llu differs from the WEIGHTS_DATA partition (%llu)",
                static_cast<unsigned long long>(weight_size), static_cast<unsigned long long>(part_[1].size()));
    CHECK_MODEL(dynamic_type <= 3, "dynamic_type %u unknown (0..3)", dynamic_type);
    CHECK_MODEL(precision <= 3, "precision_mode %u unknown (0..3)", precision);
    const bool dims_ok = dynamic_type == 3 ? gear_dims >= 1 && gear_dims <= uint64_t{kMaxRank} * input_count_
                                           : gear_dims == dynamic_type;  // FIXED 0, BATCH 1, IMAGE 2
    CHECK_MODEL(dims_ok, "gear_dim_count %u does not fit dynamic_type %u", gear_dims, dynamic_type);
    const bool fixed = dynamic_type == 0;
    CHECK_MODEL((flags & ~(kFlagDynamicGears | kFlagSingleOp | kFlagDynamicShape | kFlagControlFlow)) == 0 &&
                    ((flags & kFlagDynamicGears) != 0) != fixed,
                "flags 0x%x: unknown bits or dynamic flag not matching dynamic_type", flags);
    m_.single_op = (flags & kFlagSingleOp) != 0;
    m_.dynamic_shape = (flags & kFlagDynamicShape) != 0;
    CHECK_MODEL(!m_.dynamic_shape || (minor >= 4 && fixed && !m_.single_op),
                "dynamic-shape flag in a format %u.%u model of dynamic_type %u (needs format 1.4, FIXED, not "
                "single-operator)", major, minor, dynamic_type);
    CHECK_MODEL(!m_.single_op || (minor >= 2 && fixed),
                "single-operator flag in a format %u.%u model of dynamic_type %u (needs format 1.2 and FIXED)",
                major, minor, dynamic_type);
    CHECK_MODEL(fixed ? plan_count == 1 : plan_count >= 2, "plan_count %u for dynamic_type %u", plan_count,
                dynamic_type);
    CHECK_MODEL(fixed ? dynamic_index == kNone : dynamic_index == input_count_ - 1,
                "dynamic_input_index %u for %u inputs and dynamic_type %u", dynamic_index, input_count_, dynamic_type);
    m_.name = string_at(name);
    m_.soc_version = string_at(soc);
    m_.dynamic_type = dynamic_type;
    m_.gear_dim_count = gear_dims;
    m_.precision_mode = precision;
    m_.dynamic_input_index = dynamic_index;
    m_.weights = part_[1].data();
    m_.weight_size = weight_size;
    // (1.5) the subgraph table: bytes 80..87 of the header, 0 in older files (their reserved bytes)
    const uint32_t sub_count = d.u32(80), sub_offset = d.u32(84);
    const bool control_flow = (flags & kFlagControlFlow) != 0;
    CHECK_MODEL(control_flow == (sub_count > 0) && (!control_flow || (minor >= 5 && m_.dynamic_shape)),
                "control-flow flag %d with %u subgraphs in a format %u.%u model (needs format 1.5, a dynamic-shape "
                "model and at least one subgraph)", control_flow ? 1 : 0, sub_count, major, minor);
    CHECK_MODEL(sub_count <= kMaxSubgraphs && d.has(sub_offset, sub_count, kPlanSize),
                "subgraph_count %u or subgraph table out of bounds", sub_count);
    m_.plans.resize(plan_count);
    for (uint32_t i = 0; i < plan_count; ++i) plan(plan_offset + kPlanSize * i, i, &m_.plans[i]);
    const uint32_t model_inputs = input_count_, model_outputs = output_count_;
    m_.subgraphs.resize(sub_count);
    for (uint32_t i = 0; i < sub_count; ++i) {  // a SUBGRAPH record: a PLAN with its own input/output counts
      const uint64_t offset = sub_offset + kPlanSize * i;
      input_count_ = d.u32(offset + 44);
      output_count_ = d.u32(offset + 48);
      CHECK_MODEL(input_count_ <= kMaxSubgraphIo && output_count_ <= kMaxSubgraphIo,
                  "subgraph %u: %u inputs, %u outputs (at most %u)", i, input_count_, output_count_, kMaxSubgraphIo);
      plan(offset, kPlanIndexSubgraph + i, &m_.subgraphs[i]);
    }
    input_count_ = model_inputs;
    output_count_ = model_outputs;
    for (const PlanDef& p : m_.plans)
      if (!p.gear_values.empty()) m_.gears.push_back(p.gear_values);
  }

  std::string string_at(uint64_t id) const {
    CHECK_MODEL(id < strings_.size(), "string id %llu outside the string table (%llu bytes)",
                static_cast<unsigned long long>(id), static_cast<unsigned long long>(strings_.size()));
    const uint8_t* begin = strings_.data() + id;
    const uint64_t n = std::strlen(reinterpret_cast<const char*>(begin));  // the table ends with NUL
    CHECK_MODEL(valid_utf8(begin, n), "string id %llu is not valid UTF-8", static_cast<unsigned long long>(id));
    return std::string(reinterpret_cast<const char*>(begin), n);
  }

  // u32[count] at `offset` of `s`, 4-aligned and in bounds.
  static std::vector<uint32_t> u32_array(Span s, uint64_t offset, uint64_t count, const char* what) {
    CHECK_MODEL(offset % 4 == 0 && s.has(offset, count, 4), "%s out of bounds or misaligned", what);
    std::vector<uint32_t> out(count);
    if (count) std::memcpy(out.data(), s.data() + offset, 4 * count);
    return out;
  }
  static std::vector<int64_t> i64_array(Span s, uint64_t offset, uint64_t count, const char* what) {
    CHECK_MODEL(offset % 4 == 0 && s.has(offset, count, 8), "%s out of bounds or misaligned", what);
    std::vector<int64_t> out(count);
    if (count) std::memcpy(out.data(), s.data() + offset, 8 * count);
    return out;
  }

  // ---- §4.2 PLAN ----
  void plan(uint64_t offset, unsigned plan_index, PlanDef* p) {
    const Span d = part_[0];
    p->feature_map_size = d.u64(offset);
    const uint32_t tensor_count = d.u32(offset + 8), tensor_offset = d.u32(offset + 12);
    const uint32_t node_count = d.u32(offset + 16), node_offset = d.u32(offset + 20);
    p->stream_count = d.u32(offset + 24);
    p->event_count = d.u32(offset + 28);
    const uint32_t in_offset = d.u32(offset + 32), out_offset = d.u32(offset + 36), gear_offset = d.u32(offset + 40);
    CHECK_MODEL(d.has(tensor_offset, tensor_count, kTensorSize), "plan %u: tensor_count %u/tensor table out of bounds",
                plan_index, tensor_count);
    CHECK_MODEL(d.has(node_offset, node_count, kNodeSize), "plan %u: node_count %u/node table out of bounds",
                plan_index, node_count);
    CHECK_MODEL(p->stream_count >= 1 && p->stream_count <= std::max<uint32_t>(node_count, 1),
                "plan %u: stream_count %u not in 1..%u", plan_index, p->stream_count,
                std::max<uint32_t>(node_count, 1));
    CHECK_MODEL(p->event_count <= uint64_t{node_count} * node_count, "plan %u: event_count %u exceeds the node pairs",
                plan_index, p->event_count);
    p->tensors.resize(tensor_count);
    for (uint32_t i = 0; i < tensor_count; ++i) tensor(tensor_offset + kTensorSize * i, i, *p, &p->tensors[i]);
    std::vector<uint32_t> produced(tensor_count, 0);
    p->nodes.resize(node_count);
    attr_budget_ = 64 * (blob_.size() / kAttrSize) + 1024;
    for (uint32_t i = 0; i < node_count; ++i) node(node_offset + kNodeSize * i, i, *p, &p->nodes[i], &produced);
    for (uint32_t t = 0; t < tensor_count; ++t)
      CHECK_MODEL(p->tensors[t].kind != TensorKind::Output || produced[t] == 1,
                  "plan %u: OUTPUT tensor %u is written by %u nodes, not exactly one", plan_index, t, produced[t]);
    if (m_.single_op) single_op_plan(*p);
    // (a dynamic-shape model has no arena: its feature maps are allocated per execution)
    const std::string overlap = m_.dynamic_shape ? std::string() : plan_overlap_problem(*p);
    CHECK_MODEL(overlap.empty(), "plan %u: %s", plan_index, overlap.c_str());
    p->input_ids = u32_array(d, in_offset, input_count_, "input ids");
    p->output_ids = u32_array(d, out_offset, output_count_, "output ids");
    for (uint32_t k = 0; k < input_count_; ++k) {
      const uint32_t t = p->input_ids[k];
      if (k == m_.dynamic_input_index) {
        CHECK_MODEL(t == kNone, "input %u (ascend_mbatch_shape_data) must have no tensor", k);
        continue;
      }
      CHECK_MODEL(t < tensor_count && p->tensors[t].kind == TensorKind::Input && p->tensors[t].io_index == k,
                  "plan %u: model input %u: tensor id %u is not the INPUT tensor with io_index %u", plan_index, k, t,
                  k);
    }
    for (uint32_t k = 0; k < output_count_; ++k) {
      const uint32_t t = p->output_ids[k];
      CHECK_MODEL(t < tensor_count && p->tensors[t].kind == TensorKind::Output && p->tensors[t].io_index == k,
                  "plan %u: model output %u: tensor id %u is not the OUTPUT tensor with io_index %u", plan_index, k, t,
                  k);
    }
    if (m_.gear_dim_count != 0) {
      p->gear_values = i64_array(d, gear_offset, m_.gear_dim_count, "gear values");
      bool positive = gear_offset != 0;
      for (int64_t v : p->gear_values) positive = positive && v > 0;
      CHECK_MODEL(positive, "plan %u: gear values missing or not positive", plan_index);
    }
  }

  // §10.6: one node in the "cann" domain, every input a tensor, no feature map.
  static void single_op_plan(const PlanDef& p) {
    CHECK_MODEL(p.nodes.size() == 1 && p.nodes[0].domain == "cann",
                "single-operator model with %zu nodes or a domain other than \"cann\"", p.nodes.size());
    for (uint32_t id : p.nodes[0].inputs)
      CHECK_MODEL(id != kNone, "single-operator model: a node input without a tensor");
    for (const TensorDef& t : p.tensors)
      CHECK_MODEL(t.kind != TensorKind::FeatureMap, "single-operator model with a FEATURE_MAP tensor");
  }

  // ---- §4.3 TENSOR ----
  void tensor(uint64_t offset, uint32_t i, const PlanDef& p, TensorDef* t) {
    const Span d = part_[0];
    const uint32_t name = d.u32(offset), dtype = d.u32(offset + 4), format = d.u32(offset + 8);
    const uint32_t kind = d.u32(offset + 12), rank = d.u32(offset + 16), io_index = d.u32(offset + 20);
    const uint64_t t_offset = d.u64(offset + 24), t_size = d.u64(offset + 32);
    CHECK_MODEL(rank <= kMaxRank, "tensor %u: rank %u > 8", i, rank);
    const uint64_t itemsize = itemsize_of(dtype);
    CHECK_MODEL(itemsize != 0, "tensor %u: unknown dtype %u", i, dtype);
    CHECK_MODEL(known_format(format), "tensor %u: unknown format %u", i, format);
    CHECK_MODEL(kind <= 3, "tensor %u: unknown kind %u (0..3)", i, kind);
    // single-operator inputs/outputs may have -1 dims or be the unknown-rank shape {-2} (§10.3), with size 0;
    // so may every non-weight tensor of a dynamic-shape model (§11), its feature maps having no offset
    const bool dynamic_ok = (m_.single_op && (kind == 2 || kind == 3)) || (m_.dynamic_shape && kind != 1);
    bool dynamic = false, valid = true;
    t->dims.resize(rank);
    for (uint32_t k = 0; k < kMaxRank; ++k) {
      const int64_t dim = d.i64(offset + 40 + 8 * k);
      if (k >= rank) {
        valid = valid && dim == 0;
        continue;
      }
      t->dims[k] = dim;
      dynamic = dynamic || dim < 0;
      valid = valid && (dim >= 0 || (dynamic_ok && (dim == -1 || (dim == -2 && rank == 1))));
    }
    CHECK_MODEL(valid, "tensor %u: dims negative or unused dims non-zero", i);
    uint64_t elements = 0;
    CHECK_MODEL(dynamic ? t_size == 0
                        : product(t->dims, &elements) && elements <= std::numeric_limits<uint64_t>::max() / itemsize &&
                              t_size == elements * itemsize,
                "tensor %u: size %llu != product(dims) x itemsize", i, static_cast<unsigned long long>(t_size));
    t->kind = static_cast<TensorKind>(kind);
    if (t->kind == TensorKind::FeatureMap || t->kind == TensorKind::Weight) {
      const uint64_t limit = t->kind == TensorKind::Weight ? m_.weight_size
                             : m_.dynamic_shape                ? (t_offset == 0 ? t_size : 0)
                                                               : p.feature_map_size;
      CHECK_MODEL(t_offset % 512 == 0 && inside(t_offset, t_size, 1, limit),
                  "tensor %u: [%llu, +%llu) not aligned or outside its region", i,
                  static_cast<unsigned long long>(t_offset), static_cast<unsigned long long>(t_size));
      CHECK_MODEL(io_index == kNone, "tensor %u: io_index %u must be NONE", i, io_index);
    } else {
      const uint32_t count = t->kind == TensorKind::Input ? input_count_ : output_count_;
      CHECK_MODEL(io_index < count && io_index != m_.dynamic_input_index && t_offset == 0,
                  "tensor %u: io_index %u not a model %s or offset not 0", i, io_index,
                  t->kind == TensorKind::Input ? "input" : "output");
    }
    t->name = string_at(name);
    t->dtype = static_cast<aclDataType>(dtype);
    t->format = static_cast<aclFormat>(format);
    t->io_index = io_index;
    t->offset = t_offset;
    t->size = t_size;
  }

  // ---- §4.4 NODE ----
  void node(uint64_t offset, uint32_t i, const PlanDef& p, NodeDef* n, std::vector<uint32_t>* produced) {
    const Span d = part_[0];
    const uint32_t name = d.u32(offset), op = d.u32(offset + 4), domain = d.u32(offset + 8);
    n->stream = d.u32(offset + 12);
    const uint32_t n_in = d.u32(offset + 16), n_out = d.u32(offset + 20), io_offset = d.u32(offset + 24);
    const uint32_t a_offset = d.u32(offset + 28), a_count = d.u32(offset + 32);
    n->flags = d.u32(offset + 36);
    const uint64_t tensor_count = p.tensors.size();
    std::vector<uint32_t> io = u32_array(d, io_offset, uint64_t{n_in} + n_out, "node tensor ids");
    for (uint32_t k = 0; k < n_in; ++k)
      CHECK_MODEL(io[k] < tensor_count || io[k] == kNone, "node %u: bad input tensor id %u", i, io[k]);
    for (uint64_t k = n_in; k < io.size(); ++k)
      CHECK_MODEL(io[k] < tensor_count, "node %u: bad output tensor id %u", i, io[k]);
    for (uint64_t k = n_in; k < io.size(); ++k) {
      const TensorKind kind = p.tensors[io[k]].kind;
      CHECK_MODEL(kind == TensorKind::FeatureMap || kind == TensorKind::Output,
                  "node %u: output tensor %u is a weight or model input; it cannot be written", i, io[k]);
      ++(*produced)[io[k]];
    }
    CHECK_MODEL(n->stream < p.stream_count, "node %u: stream %u >= stream count %u", i, n->stream, p.stream_count);
    CHECK_MODEL((n->flags & ~kNodeFlags) == 0, "node %u: unknown flags 0x%x", i, n->flags);
    CHECK_MODEL(blob_.has(a_offset, a_count, kAttrSize), "node %u: attributes out of bounds", i);
    try {
      decode_attrs(a_offset, a_count, 0, &n->attrs, &n->atc_types);
    } catch (ParseError& error) {
      error.message = "node " + std::to_string(i) + ": attribute: " + error.message;
      throw;
    }
    n->name = string_at(name);
    n->op_type = string_at(op);
    n->domain = string_at(domain);
    n->inputs.assign(io.begin(), io.begin() + n_in);
    n->outputs.assign(io.begin() + n_in, io.end());
  }

  // ---- §4.5 ATTR ----
  void span(uint64_t offset, uint64_t count, uint64_t itemsize, const char* what) const {
    CHECK_MODEL(offset % 8 == 0 && blob_.has(offset, count, itemsize),
                "%s misaligned or outside the attribute blob", what);
  }

  void decode_attrs(uint64_t offset, uint64_t count, uint32_t depth, kernels::Attrs* attrs,
                    std::map<std::string, uint32_t>* atc_types = nullptr) {
    CHECK_MODEL(depth <= kMaxAttrDepth, "attributes nested deeper than 8 DICTS levels");
    span(offset, count, kAttrSize, "ATTR records");
    CHECK_MODEL(count <= attr_budget_, "more attribute records than the attribute blob holds (self-referring DICTS)");
    attr_budget_ -= count;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t r = offset + kAttrSize * i;
      const uint32_t name = blob_.u32(r), type = blob_.u32(r + 4), n = blob_.u32(r + 8), aux = blob_.u32(r + 12);
      const uint64_t value = blob_.u64(r + 16);
      CHECK_MODEL(type <= 7 || (type == kIntLists && m_.single_op),
                  "attribute type %u is unknown (0..7; 8 in a single-operator model)", type);
      CHECK_MODEL(aux_valid(type, n, aux), "attribute aux %u is invalid for type %u", aux, type);
      kernels::AttrValue v;
      decode_value(type, n, value, depth, &v);
      const std::string key = string_at(name);
      if ((type == 0 || type == 3) && aux != 0) {
        check_aux_values(aux, v);
        if (atc_types != nullptr) (*atc_types)[key] = aux;
      }
      attrs->set(key, std::move(v));
    }
  }

  // DICTS: aux 1 = one dict; single-operator models (§10.4): INT aux 0 int / 1 bool / 2 data type, INTS 0 / 1.
  bool aux_valid(uint32_t type, uint32_t n, uint32_t aux) const {
    if (type == 7) return aux == 0 || (aux == 1 && n == 1);
    if (m_.single_op && type == 0) return aux <= kAuxDataType;
    if (m_.single_op && type == 3) return aux <= kAuxBool;
    return aux == 0;
  }

  // A bool is 0 or 1, a data type an aclDataType of §4.3.
  static void check_aux_values(uint32_t aux, const kernels::AttrValue& v) {
    if (aux == kAuxBool) {
      bool ok = v.type == kernels::AttrValue::Type::Ints || v.i == 0 || v.i == 1;  // INTS: every element below
      for (int64_t b : v.ints) ok = ok && (b == 0 || b == 1);
      CHECK_MODEL(ok, "bool attribute value is not 0 or 1");
    } else if (aux == kAuxDataType) {
      CHECK_MODEL(v.i >= 0 && v.i <= 0xFFFFFFFF && itemsize_of(static_cast<uint32_t>(v.i)) != 0,
                  "data type attribute value %lld is not a known aclDataType", static_cast<long long>(v.i));
    }
  }

  // INT_LISTS (§4.5): i64 len[n], then the values of every list.
  void decode_int_lists(uint32_t n, uint64_t value, std::vector<std::vector<int64_t>>* out) const {
    span(value, n, 8, "INT_LISTS lengths");
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; ++k) {
      const int64_t len = blob_.i64(value + 8ull * k);
      CHECK_MODEL(len >= 0 && static_cast<uint64_t>(len) <= blob_.size() / 8 - total,
                  "INT_LISTS length %lld negative or past the attribute blob", static_cast<long long>(len));
      total += static_cast<uint64_t>(len);
    }
    const uint64_t values = value + 8ull * n;
    span(values, total, 8, "INT_LISTS values");
    out->resize(n);
    uint64_t at = values;
    for (uint32_t k = 0; k < n; ++k) {
      const uint64_t len = static_cast<uint64_t>(blob_.i64(value + 8ull * k));
      (*out)[k].resize(len);
      if (len) std::memcpy((*out)[k].data(), blob_.data() + at, 8 * len);
      at += 8 * len;
    }
  }

  void decode_value(uint32_t type, uint32_t n, uint64_t value, uint32_t depth, kernels::AttrValue* v) {
    using T = kernels::AttrValue::Type;
    CHECK_MODEL(type > 2 || n == 1, "scalar attribute of type %u has count %u, not 1", type, n);
    switch (type) {
      case 0:
        v->type = T::Int;
        v->i = static_cast<int64_t>(value);
        return;
      case 1:
        v->type = T::Float;
        std::memcpy(&v->f, &value, 8);
        return;
      case 2:
        v->type = T::String;
        v->s = string_at(value);
        return;
      case 3:
      case 4:
        span(value, n, 8, type == 3 ? "INTS" : "FLOATS");
        if (type == 3) {
          v->type = T::Ints;
          v->ints.resize(n);
          if (n) std::memcpy(v->ints.data(), blob_.data() + value, 8ull * n);
        } else {
          v->type = T::Floats;
          v->floats.resize(n);
          if (n) std::memcpy(v->floats.data(), blob_.data() + value, 8ull * n);
        }
        return;
      case 5:
        span(value, n, 4, "STRINGS");
        v->type = T::Strings;
        for (uint32_t k = 0; k < n; ++k) v->strings.push_back(string_at(blob_.u32(value + 4ull * k)));
        return;
      case 6:
        v->type = T::Tensor;
        decode_tensor(n, value, &v->tensor);
        return;
      case kIntLists:
        v->type = T::IntLists;
        decode_int_lists(n, value, &v->int_lists);
        return;
      default:
        v->type = T::Dicts;
        span(value, n, 16, "DICTS table");
        for (uint32_t k = 0; k < n; ++k) {
          const uint32_t count = blob_.u32(value + 16ull * k);
          const uint64_t at = blob_.u64(value + 16ull * k + 8);
          auto dict = std::make_shared<kernels::Attrs>();
          decode_attrs(at, count, depth + 1, dict.get());
          v->dicts.push_back(std::move(dict));
        }
        return;
    }
  }

  void decode_tensor(uint32_t n, uint64_t value, kernels::AttrTensor* t) const {
    span(value, 1, 8, "TENSOR header");
    const uint32_t dtype = blob_.u32(value), rank = blob_.u32(value + 4);
    const uint64_t itemsize = itemsize_of(dtype);
    CHECK_MODEL(itemsize != 0 && rank <= kMaxRank, "TENSOR attribute: dtype %u unknown or rank %u > 8", dtype, rank);
    span(value + 8, rank, 8, "TENSOR dims");
    t->dims.resize(rank);
    bool ok = true;
    for (uint32_t k = 0; k < rank; ++k) {
      t->dims[k] = blob_.i64(value + 8 + 8ull * k);
      ok = ok && t->dims[k] >= 0;
    }
    uint64_t elements = 0;
    CHECK_MODEL(ok && product(t->dims, &elements) && elements == n,
                "TENSOR attribute: dims negative or not %u elements", n);
    const uint64_t data = value + 8 + 8ull * rank;
    CHECK_MODEL(blob_.has(data, n, itemsize), "TENSOR attribute data of %u elements runs past the attribute blob", n);
    t->dtype = static_cast<aclDataType>(dtype);
    t->data.assign(blob_.data() + data, blob_.data() + data + n * itemsize);
  }

  // ---- §6 TASK_INFO ----
  void task_info() {
    const Span d = part_[2];
    CHECK_MODEL(d.size() >= 16, "TASK_INFO is shorter than its header");
    CHECK_MODEL(std::memcmp(d.data(), "ASTK", 4) == 0 && d.u16(4) == 1, "bad TASK_INFO magic or version");
    const uint32_t header_size = d.u32(8), plan_count = d.u32(12);
    CHECK_MODEL(plan_count == m_.plans.size(), "TASK_INFO has %u plans, MODEL_DEF %zu", plan_count, m_.plans.size());
    CHECK_MODEL(header_size >= 16 && d.has(header_size, plan_count, 8),
                "TASK_INFO header_size %u or task directory out of bounds", header_size);
    for (uint32_t pi = 0; pi < plan_count; ++pi) {
      PlanDef& p = m_.plans[pi];
      const uint32_t count = d.u32(header_size + 8ull * pi), offset = d.u32(header_size + 8ull * pi + 4);
      CHECK_MODEL(offset % 8 == 0 && d.has(offset, count, 16), "plan %u: task list out of bounds", pi);
      uint32_t next_node = 0;
      std::unordered_set<uint32_t> recorded;  // not sized by event_count: a hostile count may be 2^32 - 1
      p.tasks.resize(count);
      for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = offset + 16ull * i;
        TaskDef& t = p.tasks[i];
        const uint32_t type = d.u32(at);
        t.stream = d.u32(at + 4);
        t.arg = d.u32(at + 8);
        t.node = d.u32(at + 12);
        CHECK_MODEL(type <= 2, "plan %u task %u: unknown type %u", pi, i, type);
        t.type = static_cast<TaskType>(type);
        CHECK_MODEL(t.stream < p.stream_count, "plan %u task %u: bad stream %u", pi, i, t.stream);
        if (t.type == TaskType::Kernel) {
          CHECK_MODEL(t.arg == next_node && t.node == next_node, "plan %u task %u: kernels must follow node order", pi,
                      i);
          CHECK_MODEL(next_node < p.nodes.size() && p.nodes[next_node].stream == t.stream,
                      "plan %u task %u: stream differs from the node's", pi, i);
          ++next_node;
        } else {
          CHECK_MODEL(t.arg < p.event_count, "plan %u task %u: event id %u >= %u", pi, i, t.arg, p.event_count);
          // a record follows its node's kernel, a wait precedes its node's kernel, on that node's stream
          const int64_t anchor = t.type == TaskType::EventRecord ? int64_t{next_node} - 1 : int64_t{next_node};
          CHECK_MODEL(int64_t{t.node} == anchor && t.node < p.nodes.size() && p.nodes[t.node].stream == t.stream,
                      "plan %u task %u: event task for node %u out of place or on the wrong stream", pi, i, t.node);
          if (t.type == TaskType::EventRecord)
            recorded.insert(t.arg);
          else
            CHECK_MODEL(recorded.count(t.arg) != 0, "plan %u task %u: waits for event %u before it is recorded", pi,
                        i, t.arg);
        }
      }
      CHECK_MODEL(next_node == p.nodes.size(), "plan %u: %u kernels for %zu nodes", pi, next_node, p.nodes.size());
    }
  }

  // ---- §7 MODEL_INOUT_INFO ----
  void inout() {
    const Span d = part_[3];
    uint64_t cursor = 0;
    while (cursor < d.size()) {
      CHECK_MODEL(d.has(cursor, 1, 8), "truncated TLV header in MODEL_INOUT_INFO");
      const uint32_t type = d.u32(cursor), length = d.u32(cursor + 4);
      CHECK_MODEL(d.has(cursor + 8, length, 1), "TLV value runs past MODEL_INOUT_INFO");
      const Span v = d.sub(cursor + 8, length);
      cursor += 8ull + length;
      if (type > 6 && type != 100 && type != 101) continue;  // unknown TLV types are skipped, as GE does
      // MODEL_DYNAMIC_OUTPUT_SHAPE may be empty (no list at all); every other known type starts with a count
      CHECK_MODEL(length >= 4 || (type == 5 && length == 0), "TLV type %u: value of %u bytes too short", type, length);
      switch (type) {
        case 0: m_.inputs = descs(v); break;
        case 1: m_.outputs = descs(v); break;
        case 2: (void)i64_array(v, 4, v.u32(0), "dynamic batch"); break;  // the plans carry the gears
        case 3: case 4: vec_int_int(v); break;
        case 5: if (length != 0) (void)vec_str(v); break;
        case 6: m_.designate_shape_order = vec_str(v); break;
        case 100: aipp(v); break;
        default: aipp_image_dims(v); break;
      }
    }
  }

  static std::vector<IoDesc> descs(Span v) {
    const uint32_t count = v.u32(0);
    CHECK_MODEL(uint64_t{count} * 32 <= v.size(), "tensor description count %u out of bounds", count);
    std::vector<IoDesc> out(count);
    uint64_t cursor = 4;
    for (IoDesc& desc : out) {
      CHECK_MODEL(v.has(cursor, 1, 32), "truncated tensor description");
      desc.size = v.u64(cursor);
      const uint32_t format = static_cast<uint32_t>(v.i32(cursor + 8)), dt = static_cast<uint32_t>(v.i32(cursor + 12));
      const uint32_t name_len = v.u32(cursor + 16), dims_len = v.u32(cursor + 20), v2_len = v.u32(cursor + 24);
      const uint32_t range_len = v.u32(cursor + 28);
      cursor += 32;
      CHECK_MODEL(v.has(cursor, uint64_t{name_len} + dims_len + v2_len + range_len, 1),
                  "tensor description out of bounds");
      CHECK_MODEL(dims_len % 8 == 0 && v2_len % 8 == 0 && range_len % 16 == 0 && dims_len <= 64 && v2_len <= 64,
                  "tensor description: dims/dimsV2/shape range lengths invalid");
      CHECK_MODEL(itemsize_of(dt) != 0 && known_format(format), "tensor description: dtype %u or format %u unknown",
                  dt, format);
      CHECK_MODEL(valid_utf8(v.data() + cursor, name_len), "tensor description name is not valid UTF-8");
      desc.name.assign(reinterpret_cast<const char*>(v.data() + cursor), name_len);
      desc.format = static_cast<aclFormat>(format);
      desc.dtype = static_cast<aclDataType>(dt);
      cursor += name_len;
      desc.dims.resize(dims_len / 8);
      if (dims_len) std::memcpy(desc.dims.data(), v.data() + cursor, dims_len);
      cursor += dims_len;
      desc.dims_v2.resize(v2_len / 8);
      if (v2_len) std::memcpy(desc.dims_v2.data(), v.data() + cursor, v2_len);
      cursor += v2_len;
      for (uint32_t k = 0; k < range_len / 16; ++k)
        desc.shape_range.emplace_back(v.i64(cursor + 16ull * k), v.i64(cursor + 16ull * k + 8));
      cursor += range_len;
    }
    return out;
  }

  static std::vector<std::vector<int64_t>> vec_int_int(Span v) {
    const uint32_t n = v.u32(0);
    const std::vector<uint32_t> parts = u32_array(v, 4, n, "gear sizes");
    uint64_t cursor = 4 + 4ull * n;
    std::vector<std::vector<int64_t>> rows;
    for (uint32_t part : parts) {
      CHECK_MODEL(v.has(cursor, part, 8), "gear values out of bounds");
      std::vector<int64_t> row(part);
      if (part) std::memcpy(row.data(), v.data() + cursor, 8ull * part);
      rows.push_back(std::move(row));
      cursor += 8ull * part;
    }
    return rows;
  }

  static std::vector<std::string> vec_str(Span v) {
    const uint32_t n = v.u32(0);
    const std::vector<uint32_t> lengths = u32_array(v, 4, n, "string lengths");
    uint64_t cursor = 4 + 4ull * n;
    std::vector<std::string> items;
    for (uint32_t length : lengths) {
      CHECK_MODEL(v.has(cursor, length, 1), "string out of bounds");
      CHECK_MODEL(valid_utf8(v.data() + cursor, length), "input name is not valid UTF-8");
      items.emplace_back(reinterpret_cast<const char*>(v.data() + cursor), length);
      cursor += length;
    }
    return items;
  }

  void aipp(Span v) {
    CHECK_MODEL(v.size() >= 8, "truncated MODEL_AIPP_INFO");
    const uint32_t count = v.u32(0), plan_count = v.u32(4);
    CHECK_MODEL(plan_count == m_.plans.size() && count <= input_count_, "MODEL_AIPP_INFO: %u records for %u plans",
                count, plan_count);
    // each record is >= 200 bytes: bound the count by the value before allocating (an AippDef is ~300 KB)
    CHECK_MODEL(count <= (v.size() - 8) / 200, "MODEL_AIPP_INFO record out of bounds");
    std::vector<AippDef> records(count);
    uint64_t c = 8;
    for (AippDef& a : records) {
      CHECK_MODEL(v.has(c, 1, 200), "MODEL_AIPP_INFO record out of bounds");
      aclAippInfo& info = a.info;
      a.input_index = v.u32(c);
      const uint32_t aipp_type = v.u32(c + 4);
      info.inputFormat = static_cast<aclAippInputFormat>(v.u32(c + 8));
      info.srcImageSizeW = v.i32(c + 12);
      info.srcImageSizeH = v.i32(c + 16);
      int8_t sw[8];
      std::memcpy(sw, v.data() + c + 20, 8);
      info.cropSwitch = sw[0];
      info.resizeSwitch = sw[1];
      info.paddingSwitch = sw[2];
      info.cscSwitch = sw[3];
      info.rbuvSwapSwitch = sw[4];
      info.axSwapSwitch = sw[5];
      info.singleLineMode = sw[6];
      int32_t* ints[] = {&info.loadStartPosW, &info.loadStartPosH, &info.cropSizeW, &info.cropSizeH,
                         &info.resizeOutputW, &info.resizeOutputH, &info.leftPaddingSize, &info.rightPaddingSize,
                         &info.topPaddingSize, &info.bottomPaddingSize, &info.matrixR0C0, &info.matrixR0C1,
                         &info.matrixR0C2, &info.matrixR1C0, &info.matrixR1C1, &info.matrixR1C2, &info.matrixR2C0,
                         &info.matrixR2C1, &info.matrixR2C2, &info.outputBias0, &info.outputBias1, &info.outputBias2,
                         &info.inputBias0, &info.inputBias1, &info.inputBias2, &info.meanChn0, &info.meanChn1,
                         &info.meanChn2, &info.meanChn3};
      for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); ++k) *ints[k] = v.i32(c + 28 + 4 * k);
      float* floats[] = {&info.minChn0, &info.minChn1, &info.minChn2, &info.minChn3,
                         &info.varReciChn0, &info.varReciChn1, &info.varReciChn2, &info.varReciChn3};
      for (size_t k = 0; k < 8; ++k) *floats[k] = v.get<float>(c + 144 + 4 * k);
      // c + 176: cpadding_value, no aclAippInfo member
      const uint32_t src_format = v.u32(c + 180), src_dtype = v.u32(c + 184);
      const uint32_t out_format = v.u32(c + 188), out_dtype = v.u32(c + 192), out_rank = v.u32(c + 196);
      c += 200;
      CHECK_MODEL(out_rank <= kMaxRank && a.input_index < input_count_,
                  "MODEL_AIPP_INFO: out_rank %u or input_index %u out of range", out_rank, a.input_index);
      const std::vector<int64_t> dims = i64_array(v, c, uint64_t{plan_count} * out_rank, "AIPP output dims");
      c += 8ull * plan_count * out_rank;
      CHECK_MODEL(aipp_type == 1, "unknown AIPP type %u", aipp_type);
      CHECK_MODEL(known_format(src_format) && known_format(out_format), "MODEL_AIPP_INFO: unknown format");
      CHECK_MODEL(itemsize_of(src_dtype) != 0 && itemsize_of(out_dtype) != 0, "MODEL_AIPP_INFO: unknown dtype");
      info.srcFormat = static_cast<aclFormat>(src_format);
      info.srcDatatype = static_cast<aclDataType>(src_dtype);
      a.out_format = static_cast<aclFormat>(out_format);
      a.out_dtype = static_cast<aclDataType>(out_dtype);
      for (uint32_t pi = 0; pi < plan_count; ++pi)
        a.out_dims_per_plan.emplace_back(dims.begin() + uint64_t{pi} * out_rank,
                                         dims.begin() + uint64_t{pi + 1} * out_rank);
    }
    CHECK_MODEL(c == v.size(), "MODEL_AIPP_INFO has trailing bytes");
    m_.aipp = std::move(records);
    have_aipp_ = true;
  }

  // MODEL_AIPP_IMAGE_DIMS (format 1.3): per MODEL_AIPP_INFO record and plan the image's [N, H, W, C].
  void aipp_image_dims(Span v) {
    CHECK_MODEL(have_aipp_, "MODEL_AIPP_IMAGE_DIMS before MODEL_AIPP_INFO");
    const uint64_t count = v.size() >= 8 ? v.u32(0) : 0, plans = v.size() >= 8 ? v.u32(4) : 0;
    CHECK_MODEL(v.size() >= 8 && count == m_.aipp.size() && plans == m_.plans.size() &&
                    v.size() == 8 + 32 * count * plans,
                "MODEL_AIPP_IMAGE_DIMS does not match MODEL_AIPP_INFO");
    const std::vector<int64_t> dims = i64_array(v, 8, 4 * count * plans, "AIPP image dims");
    for (uint64_t k = 0; k < count; ++k) {
      AippDef& a = m_.aipp[k];
      a.src_dims_per_plan.clear();
      for (uint64_t pi = 0; pi < plans; ++pi)
        a.src_dims_per_plan.emplace_back(dims.begin() + (k * plans + pi) * 4, dims.begin() + (k * plans + pi + 1) * 4);
    }
  }

  // aclAippInfo.outDims per plan: the input's shape in that plan (srcDims: the image dims when the file has
  // them, else the raw tensor's) and the AIPP output shape.
  void aipp_src_dims() {
    for (AippDef& a : m_.aipp) {
      aclAippInfo& info = a.info;
      const size_t plans = m_.plans.size();
      info.shapeCount = plans;
      for (size_t pi = 0; pi < plans && pi < ACL_MAX_SHAPE_COUNT; ++pi) {
        aclAippDims& out = info.outDims[pi];
        const uint32_t t = m_.plans[pi].input_ids[a.input_index];
        const std::string& name = m_.inputs[a.input_index].name;
        std::snprintf(out.srcDims.name, sizeof(out.srcDims.name), "%s", name.c_str());
        std::snprintf(out.aippOutdims.name, sizeof(out.aippOutdims.name), "%s", name.c_str());
        if (t != kNone) {
          const TensorDef& tensor = m_.plans[pi].tensors[t];
          const std::vector<int64_t>& src = a.src_dims_per_plan.empty() ? tensor.dims : a.src_dims_per_plan[pi];
          out.srcDims.dimCount = src.size();
          for (size_t k = 0; k < src.size(); ++k) out.srcDims.dims[k] = src[k];
          out.srcSize = tensor.size;
          info.srcDimNum = src.size();
        }
        const std::vector<int64_t>& dims = a.out_dims_per_plan[pi];
        out.aippOutdims.dimCount = dims.size();
        uint64_t elements = 1;
        for (size_t k = 0; k < dims.size(); ++k) {
          out.aippOutdims.dims[k] = dims[k];
          elements *= dims[k] > 0 ? static_cast<uint64_t>(dims[k]) : 0;
        }
        out.aippOutSize = elements * itemsize_of(a.out_dtype);
      }
    }
  }

  Span file_;
  Span part_[4];
  Span strings_;
  Span blob_;
  uint32_t input_count_ = 0;
  uint32_t output_count_ = 0;
  bool have_aipp_ = false;  // MODEL_AIPP_INFO was read
  uint64_t attr_budget_ = 0;
  ModelDef& m_;
};

// "Ascend910B1" and "Ascend910B" run the same models; "Ascend310P3" does not: compare up to the letter that
// follows the chip number (the SoC family).
std::string soc_family(const std::string& soc) {
  size_t i = 0;
  while (i < soc.size() && !std::isdigit(static_cast<unsigned char>(soc[i]))) ++i;
  while (i < soc.size() && std::isdigit(static_cast<unsigned char>(soc[i]))) ++i;
  if (i < soc.size() && std::isalpha(static_cast<unsigned char>(soc[i]))) ++i;
  return soc.substr(0, i);
}

}  // namespace

aclError parse_om(const uint8_t* data, size_t size, const std::string& soc_version, ModelDef* out) {
  if ((data == nullptr && size != 0) || out == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "parse_om: %s is NULL", out == nullptr ? "output" : "model data");
  static const uint8_t kEmpty = 0;
  if (data == nullptr) data = &kEmpty;  // an empty image (an empty file): rejected below as too short
  ModelDef model;
  Parser parser(data, size, &model);
  try {
    parser.run();
  } catch (const ParseError& error) {
    // GE's magic but not our signature: an .om of Huawei's ATC (or another tool), whatever check failed.
    if (parser.magic_ok && parser.user_define_info != "ascendsim")
      return fail(ACL_ERROR_PARSE_MODEL,
                  "this .om was not written by ascendsim's compiler (userdefineinfo \"%s\"; an .om built by "
                  "Huawei's ATC holds Ascend kernels that cannot run here): rebuild it from the ONNX model with "
                  "`python -m ascendsim atc --model=... --framework=5 --output=... --soc_version=...` or "
                  "ascendsim.compile() (%s)",
                  parser.user_define_info.c_str(), error.message.c_str());
    return fail(error.code, "invalid model file: %s", error.message.c_str());
  } catch (const std::exception& error) {  // bad_alloc / length_error: sizes within bounds but too large
    return fail(ACL_ERROR_BAD_ALLOC, "model file: out of host memory while decoding it (%s)", error.what());
  }
  if (!soc_version.empty() && soc_family(model.soc_version) != soc_family(soc_version))
    return fail(static_cast<aclError>(ACL_ERROR_GE_LOAD_MODEL),
                "the model was compiled for %s, but this device is %s: recompile it for this device (atc "
                "--soc_version=%s), or emulate the model's SoC (ASCENDSIM_SOC_NAME=%s in the environment of the "
                "program)", model.soc_version.c_str(), soc_version.c_str(), soc_version.c_str(),
                model.soc_version.c_str());
  *out = std::move(model);
  return ACL_SUCCESS;
}

}  // namespace ascendsim::model
