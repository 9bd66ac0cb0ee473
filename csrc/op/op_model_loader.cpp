// Loading single-operator models (see op_model_loader.h).
#include "op/op_model_loader.h"

#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "acl/acl.h"

#include "core/error.h"
#include "core/log.h"
#include "model/model_def.h"
#include "op/op_cache.h"
#include "op/op_check.h"
#include "runtime/runtime.h"

namespace ascendsim::op {
namespace {

constexpr int kMaxDepth = 3;  // GE's OM_DIR_MAX_DEPTH: the directory itself and two levels below it

// The signature a single-op model describes: its one node's tensors in node order.
aclError to_call(const model::ModelDef& def, const std::string& origin, const char* api, OpCall* call) {
  if (def.plans.size() != 1 || def.plans[0].nodes.size() != 1 || def.plans[0].nodes[0].domain != "cann")
    return fail(ACL_ERROR_PARSE_MODEL, "%s: %s is not a single-operator model (atc --singleop writes them: one "
                "node of a CANN operator)", api, origin.c_str());
  const model::PlanDef& plan = def.plans[0];
  const model::NodeDef& node = plan.nodes[0];
  call->type = node.op_type;
  call->attrs = node.attrs;
  call->attr_types = node.atc_types;
  auto tensor = [&](uint32_t id, OpTensor* t) {
    if (id == model::kNone || id >= plan.tensors.size()) {
      t->absent = true;
      return;
    }
    const model::TensorDef& td = plan.tensors[id];
    t->dtype = td.dtype;
    t->format = td.format;
    t->dims = td.dims;
    if (td.kind == model::TensorKind::Weight && def.weights != nullptr && td.offset + td.size <= def.weight_size) {
      t->values = std::make_shared<const std::vector<uint8_t>>(def.weights + td.offset, def.weights + td.offset + td.size);
      t->is_const = true;
    }
    const auto& io = td.kind == model::TensorKind::Input ? def.inputs : def.outputs;
    if ((td.kind == model::TensorKind::Input || td.kind == model::TensorKind::Output) && td.io_index < io.size())
      t->ranges = io[td.io_index].shape_range;
  };
  for (uint32_t id : node.inputs) tensor(id, &call->inputs.emplace_back());
  for (uint32_t id : node.outputs) tensor(id, &call->outputs.emplace_back());
  return ACL_SUCCESS;
}

void list_models(const std::string& dir, int depth, std::vector<std::string>* files, bool* ok) {
  if (depth <= 0) return;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    *ok = false;
    return;
  }
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name, path = dir + "/" + name;
    if (name == "." || name == "..") continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {  // some file systems do not fill d_type
      struct stat st {};
      if (lstat(path.c_str(), &st) == 0) type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
    }
    if (type == DT_DIR) {
      list_models(path, depth - 1, files, ok);
    } else if (type == DT_REG && name.size() > 3 && name.compare(name.size() - 3, 3, ".om") == 0) {
      files->push_back(path);
    }
  }
  closedir(d);
}

// The signature of a model image: parsed (against `soc`; empty: any), one CANN node, a known op type.
aclError read_op_model(const void* data, size_t size, const std::string& soc, const std::string& origin,
                       const char* api, OpCall* call) {
  model::ModelDef def;
  if (model::parse_om(static_cast<const uint8_t*>(data), size, soc, &def) != ACL_SUCCESS) {
    const std::string why = aclGetRecentErrMsg();
    return fail(ACL_ERROR_DESERIALIZE_MODEL, "%s: %s is not a valid single-operator model: %s", api, origin.c_str(),
                why.c_str());
  }
  call->api = api;
  if (aclError ret = to_call(def, origin, api, call)) return ret;
  if (find_cann_op(call->type) == nullptr)
    return fail(ACL_ERROR_PARSE_MODEL, "%s: %s holds op type '%s', which ascendsim does not run", api, origin.c_str(),
                call->type.c_str());
  return ACL_SUCCESS;
}

}  // namespace

aclError load_op_model(const void* data, size_t size, const std::string& origin, const char* api) {
  OpCall call;
  if (aclError ret = read_op_model(data, size, Runtime::instance().soc_name(), origin, api, &call)) return ret;
  register_op(call, origin);
  return ACL_SUCCESS;
}

aclError check_op_model(const void* data, size_t size, const char* api) {
  OpCall call;
  if (aclError ret = read_op_model(data, size, "", "the model", api, &call)) return ret;
  return check_signature(*find_cann_op(call.type), call);
}

aclError load_op_model_dir(const std::string& dir, const char* api, size_t* loaded) {
  std::vector<std::string> files;
  bool ok = true;
  list_models(dir, kMaxDepth, &files, &ok);
  if (!ok) return fail(ACL_ERROR_READ_MODEL_FAILURE, "%s: cannot list the directory tree of %s", api, dir.c_str());
  *loaded = 0;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof())
      return fail(ACL_ERROR_READ_MODEL_FAILURE, "%s: cannot read the model file %s", api, path.c_str());
    if (bytes.empty() || load_op_model(bytes.data(), bytes.size(), path, api) != ACL_SUCCESS) {
      log(kLogWarning, "OP", "%s: can not parse model %s, skip it", api, path.c_str());
      continue;
    }
    ++*loaded;
  }
  if (*loaded == 0) log(kLogWarning, "OP", "%s: no model is loaded from %s", api, dir.c_str());
  return ACL_SUCCESS;
}

}  // namespace ascendsim::op
