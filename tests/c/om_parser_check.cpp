// White-box check of what parse_om (csrc/model/om_parser.cpp) decodes from a single-operator model written by
// `atc --singleop` (docs/om-format.md §10): the SINGLE_OP flag, the one "cann" node, dynamic dims (-1 and
// the unknown-rank {-2}), the constant input as a weight with its bytes, shape ranges, every ATC attribute
// type (bools, data types and lists of int lists included) and their ATC types in NodeDef::atc_types.
// The model is the file named by $OM_PARSER_CHECK_FILE: SINGLE_OP of tests/model/test_om_parser.py compiled.
// Prints "OK" on success, the failed check otherwise.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "model/model_def.h"

using ascendsim::kernels::AttrValue;
using namespace ascendsim::model;

#define CHECK(cond)                                         \
  do {                                                      \
    if (!(cond)) {                                          \
      std::printf("failed line %d: %s\n", __LINE__, #cond); \
      return 1;                                             \
    }                                                       \
  } while (0)

int main() {
  const char* path = std::getenv("OM_PARSER_CHECK_FILE");
  CHECK(path != nullptr);
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ModelDef m;
  CHECK(parse_om(image.data(), image.size(), "Ascend910B1", &m) == ACL_SUCCESS);
  CHECK(m.single_op && m.name == "checked" && m.plans.size() == 1 && m.dynamic_type == 0);
  const PlanDef& p = m.plans[0];
  CHECK(p.nodes.size() == 1 && p.feature_map_size == 0 && p.tasks.size() == 1);
  const NodeDef& n = p.nodes[0];
  CHECK(n.op_type == "Add" && n.domain == "cann" && n.name == "checked");
  CHECK(n.inputs.size() == 2 && n.outputs.size() == 1);
  const TensorDef& x = p.tensors[n.inputs[0]];
  CHECK(x.kind == TensorKind::Input && x.io_index == 0 && x.size == 0 && x.dtype == ACL_FLOAT);
  CHECK((x.dims == std::vector<int64_t>{-1, 4}));
  const TensorDef& c = p.tensors[n.inputs[1]];
  CHECK(c.kind == TensorKind::Weight && c.size == 16 && (c.dims == std::vector<int64_t>{4}));
  const float expected[4] = {1, 2, 3, 4};
  CHECK(c.offset + c.size <= m.weight_size && std::memcmp(m.weights + c.offset, expected, 16) == 0);
  const TensorDef& y = p.tensors[n.outputs[0]];
  CHECK(y.kind == TensorKind::Output && (y.dims == std::vector<int64_t>{-2}) && y.size == 0);
  CHECK(m.inputs.size() == 1 && m.outputs.size() == 1);
  CHECK((m.inputs[0].shape_range == std::vector<std::pair<int64_t, int64_t>>{{1, 16}, {4, 4}}));
  CHECK(m.inputs[0].size == 0 && (m.inputs[0].dims == std::vector<int64_t>{-1, 4}));

  const AttrValue* lli = n.attrs.find("lli");
  CHECK(lli != nullptr && lli->type == AttrValue::Type::IntLists);
  CHECK((lli->int_lists == std::vector<std::vector<int64_t>>{{1, 2}, {}, {3}}));
  CHECK(n.attrs.get_int("b", -1) == 1 && n.attrs.get_int("i", 0) == -7 && n.attrs.get_int("dt", -1) == ACL_FLOAT16);
  CHECK((n.attrs.get_ints("lb") == std::vector<int64_t>{0, 1}));
  CHECK(n.attrs.get_float("f", 0) == static_cast<double>(0.1f));
  CHECK((n.attrs.get_floats("lf", {1.0}).empty()));
  const AttrValue* ls = n.attrs.find("ls");
  CHECK(ls != nullptr && (ls->strings == std::vector<std::string>{"a", ""}));
  CHECK((n.atc_types == std::map<std::string, uint32_t>{{"b", 1}, {"lb", 1}, {"dt", 2}}));
  std::printf("OK\n");
  return 0;
}
