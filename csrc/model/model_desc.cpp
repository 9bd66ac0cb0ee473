// The model descriptions of the process (see model_desc.h) and the model-file reader they share with loading.
#include "model/model_desc.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include <sys/stat.h>

#include "acl/error_codes/ge_error_codes.h"
#include "core/error.h"
#include "core/handle_registry.h"

namespace ascendsim::model {
namespace {

HandleRegistry<aclmdlDesc>& descs() {
  static auto* registry = new HandleRegistry<aclmdlDesc>("model desc");  // outlives late destructors at exit
  return *registry;
}

}  // namespace

aclmdlDesc* add_desc(const char* api) {
  return static_cast<aclmdlDesc*>(descs().add(std::make_shared<aclmdlDesc>(), api));
}

bool remove_desc(const aclmdlDesc* handle) { return descs().remove(handle) != nullptr; }

std::shared_ptr<aclmdlDesc> find_desc(const aclmdlDesc* handle, const char* api) {
  if (handle == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelDesc' is NULL", api);
    return nullptr;
  }
  auto desc = descs().find(handle);
  if (!desc)
    fail(ACL_ERROR_INVALID_PARAM, "%s: model description %p is not live (destroyed or never created)", api,
         static_cast<const void*>(handle));
  return desc;
}

aclError read_model_file(const char* path, const char* api, std::vector<uint8_t>* out) {
  struct stat info {};
  if (::stat(path, &info) != 0)
    return fail(static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID), "%s: cannot open model file \"%s\": %s",
                api, path, std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return fail(static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID),
                "%s: model path \"%s\" is not a regular file", api, path);
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr)
    return fail(static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID), "%s: cannot open model file \"%s\": %s",
                api, path, std::strerror(errno));
  bool ok = true;
  try {
    out->assign(static_cast<size_t>(info.st_size), 0);
  } catch (const std::exception&) {
    ok = false;
  }
  ok = ok && (out->empty() || std::fread(out->data(), 1, out->size(), file) == out->size());
  std::fclose(file);
  if (!ok)
    return fail(static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID),
                "%s: cannot read the %lld bytes of model file \"%s\"", api, static_cast<long long>(info.st_size), path);
  return ACL_SUCCESS;
}

}  // namespace ascendsim::model
