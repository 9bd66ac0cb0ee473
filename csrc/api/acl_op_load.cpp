// acl_op.h: loading single-operator models. aclopSetModelDir loads every .om of a directory tree once per
// process (GE: a second successful call is ACL_ERROR_REPEAT_INITIALIZE); aclopLoad loads one model image
// from memory. Both register what they load so aclopExecute* can run it (op/op_model_loader.h).
// ascendsimCheckOpModel checks an image without registering it (atc --singleop's compile-time check).
#include <climits>
#include <cstdlib>
#include <mutex>

#include "acl/acl.h"
#include "ascendsim/ascendsim_ext.h"
#include "core/error.h"
#include "op/op_model_loader.h"

using namespace ascendsim;

extern "C" {

aclError aclopSetModelDir(const char* modelDir) {
  ASCENDSIM_CHECK_NOT_NULL(modelDir);
  char resolved[PATH_MAX];
  if (realpath(modelDir, resolved) == nullptr)
    return fail(ACL_ERROR_READ_MODEL_FAILURE, "%s: path %s is invalid: cannot convert to realpath", __func__, modelDir);
  static std::mutex mutex;
  static bool loaded_once = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded_once) return fail(ACL_ERROR_REPEAT_INITIALIZE, "%s: repeatedly set model dir", __func__);
  size_t loaded = 0;
  if (aclError ret = op::load_op_model_dir(resolved, __func__, &loaded)) return ret;
  loaded_once = true;
  return ACL_SUCCESS;
}

aclError aclopLoad(const void* model, size_t modelSize) {
  ASCENDSIM_CHECK_NOT_NULL(model);
  if (modelSize == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: the value of modelSize[0] can't be zero", __func__);
  return op::load_op_model(model, modelSize, "the model in memory", __func__);
}

aclError ascendsimCheckOpModel(const void* model, size_t modelSize) {
  ASCENDSIM_CHECK_NOT_NULL(model);
  if (modelSize == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: the value of modelSize[0] can't be zero", __func__);
  return op::check_op_model(model, modelSize, __func__);
}

}  // extern "C"
