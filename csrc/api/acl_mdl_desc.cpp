// acl_mdl.h model descriptions: aclmdlCreateDesc/DestroyDesc, GetDescFromFile/FromMem (parse the .om,
// no model loaded), the getters (counts, sizes, dims, names, formats, data types, index by name, dynamic
// batch / HW / dims gears) and aclmdlQuerySize(FromMem). The getters read MODEL_INOUT_INFO's descriptions
// (ModelDef::inputs/outputs), as GE's aclmdlDesc does; the gears come from the plans (one per gear).
//
// Error behaviour follows hicann/ge api/acl/acl_model (model.cpp and its om2 twin): NULL arguments ->
// ACL_ERROR_INVALID_PARAM; an index out of range -> ACL_ERROR_INVALID_PARAM for the aclError getters, 0 /
// "" / ACL_FORMAT_UNDEFINED / ACL_DT_UNDEFINED for the value getters; the dynamic-dims getters require
// index == (size_t)-1; gear lists longer than the struct arrays -> ACL_ERROR_STORAGE_OVER_LIMIT.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "acl/acl.h"
#include "acl/error_codes/ge_error_codes.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "model/model_desc.h"
#include "model/model_registry.h"

using namespace ascendsim;
using ascendsim::model::IoDesc;
using ascendsim::model::ModelDef;

namespace {

// The description's ModelDef, or null with the error recorded (handle not live, or no GetDesc* yet).
std::shared_ptr<const ModelDef> model_of(const aclmdlDesc* handle, const char* api) {
  const auto desc = model::find_desc(handle, api);
  if (!desc) return nullptr;
  std::lock_guard<std::mutex> lock(desc->mutex);
  if (!desc->def) fail(ACL_ERROR_INVALID_PARAM, "%s: model description %p is empty (no aclmdlGetDesc* filled it)", api,
                       static_cast<const void*>(handle));
  return desc->def;
}

const std::vector<IoDesc>& side(const ModelDef& def, bool input) { return input ? def.inputs : def.outputs; }

// The description of input/output `index`, or null with the error recorded.
const IoDesc* io_at(const ModelDef& def, bool input, size_t index, const char* api) {
  const auto& list = side(def, input);
  if (index < list.size()) return &list[index];
  fail(ACL_ERROR_INVALID_PARAM, "%s: %s index %zu is out of range (the model has %zu %ss)", api,
       input ? "input" : "output", index, list.size(), input ? "input" : "output");
  return nullptr;
}

void fill_dims(const std::string& name, const std::vector<int64_t>& shape, aclmdlIODims* dims) {
  std::memset(dims->name, 0, sizeof(dims->name));
  std::strncpy(dims->name, name.c_str(), sizeof(dims->name) - 1);  // GE truncates long names the same way
  dims->dimCount = shape.size();
  for (size_t i = 0; i < shape.size() && i < ACL_MAX_DIM_CNT; ++i) dims->dims[i] = shape[i];
}

aclError get_dims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims, bool input, bool v2,
                  const char* api) {
  if (modelDesc == nullptr || dims == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api, modelDesc == nullptr ? "modelDesc" : "dims");
  const auto def = model_of(modelDesc, api);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const IoDesc* io = io_at(*def, input, index, api);
  if (io == nullptr) return ACL_ERROR_INVALID_PARAM;
  fill_dims(io->name, v2 && !io->dims_v2.empty() ? io->dims_v2 : io->dims, dims);
  return ACL_SUCCESS;
}

size_t io_size(aclmdlDesc* modelDesc, size_t index, bool input, const char* api) {
  const auto def = model_of(modelDesc, api);
  if (!def) return 0;
  const IoDesc* io = io_at(*def, input, index, api);
  return io == nullptr ? 0 : io->size;
}

aclError index_by_name(const aclmdlDesc* modelDesc, const char* name, size_t* index, bool input, const char* api) {
  if (modelDesc == nullptr || name == nullptr || index == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api,
                modelDesc == nullptr ? "modelDesc" : name == nullptr ? "name" : "index");
  const auto def = model_of(modelDesc, api);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const auto& list = side(*def, input);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].name == name) {
      *index = i;
      return ACL_SUCCESS;
    }
  }
  return fail(ACL_ERROR_INVALID_PARAM, "%s: the model has no %s named \"%s\"", api, input ? "input" : "output", name);
}

// Gears of a kind (1 batch, 2 HW, 3 dims) or none when the model is of another kind.
std::vector<std::vector<int64_t>> gears_of(const ModelDef& def, uint32_t kind) {
  return def.dynamic_type == kind ? def.gears : std::vector<std::vector<int64_t>>{};
}

aclError desc_from_image(aclmdlDesc* modelDesc, const uint8_t* data, size_t size, const char* api) {
  const auto desc = model::find_desc(modelDesc, api);
  if (!desc) return ACL_ERROR_INVALID_PARAM;
  auto def = std::make_shared<ModelDef>();
  // No SoC check: describing a model is allowed for any SoC (ATC users inspect models for other chips).
  const aclError ret = model::parse_om(data, size, "", def.get());
  if (ret != ACL_SUCCESS) {
    add_error_context("%s: the model cannot be described", api);
    return ret;
  }
  def->weights = nullptr;  // the image is the caller's (or a temporary): a description never reads weights
  std::lock_guard<std::mutex> lock(desc->mutex);
  desc->def = std::move(def);
  desc->model_id = 0;
  return ACL_SUCCESS;
}

aclError query_sizes(const uint8_t* data, size_t size, size_t* workSize, size_t* weightSize, const char* api) {
  ModelDef def;
  const aclError ret = model::parse_om(data, size, "", &def);
  if (ret != ACL_SUCCESS) {
    add_error_context("%s: cannot read the model's sizes", api);
    return ret;
  }
  uint64_t work = 0;
  for (const auto& plan : def.plans) work = std::max(work, plan.feature_map_size);
  *workSize = work;
  *weightSize = def.weight_size;
  return ACL_SUCCESS;
}

}  // namespace

aclmdlDesc* aclmdlCreateDesc() {
  return model::add_desc(__func__);
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  if (!model::remove_desc(modelDesc))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: model description %p is not live (destroyed twice or never created)",
                __func__, static_cast<const void*>(modelDesc));
  return ACL_SUCCESS;
}

aclError aclmdlGetDescFromFile(aclmdlDesc* modelDesc, const char* modelPath) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(modelPath);
  std::vector<uint8_t> image;
  const aclError ret = model::read_model_file(modelPath, __func__, &image);
  if (ret != ACL_SUCCESS) return ret;
  return desc_from_image(modelDesc, image.data(), image.size(), __func__);
}

aclError aclmdlGetDescFromMem(aclmdlDesc* modelDesc, const void* model, size_t modelSize) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(model);
  if (modelSize == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: modelSize is 0", __func__);
  return desc_from_image(modelDesc, static_cast<const uint8_t*>(model), modelSize, __func__);
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize) {
  ASCENDSIM_CHECK_NOT_NULL(fileName);
  ASCENDSIM_CHECK_NOT_NULL(workSize);
  ASCENDSIM_CHECK_NOT_NULL(weightSize);
  std::vector<uint8_t> image;
  const aclError ret = model::read_model_file(fileName, __func__, &image);
  if (ret != ACL_SUCCESS) return ret;
  return query_sizes(image.data(), image.size(), workSize, weightSize, __func__);
}

aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize, size_t* workSize, size_t* weightSize) {
  ASCENDSIM_CHECK_NOT_NULL(model);
  ASCENDSIM_CHECK_NOT_NULL(workSize);
  ASCENDSIM_CHECK_NOT_NULL(weightSize);
  if (modelSize == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: modelSize is 0", __func__);
  return query_sizes(static_cast<const uint8_t*>(model), modelSize, workSize, weightSize, __func__);
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  const auto def = model_of(modelDesc, __func__);
  return def ? def->inputs.size() : 0;
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  const auto def = model_of(modelDesc, __func__);
  return def ? def->outputs.size() : 0;
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return io_size(modelDesc, index, true, __func__);
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return io_size(modelDesc, index, false, __func__);
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return get_dims(modelDesc, index, dims, true, false, __func__);
}

aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return get_dims(modelDesc, index, dims, true, true, __func__);
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return get_dims(modelDesc, index, dims, false, false, __func__);
}

aclError aclmdlGetInputDimsRange(const aclmdlDesc* modelDesc, size_t index, aclmdlIODimsRange* dimsRange) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(dimsRange);
  const auto def = model_of(modelDesc, __func__);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const IoDesc* io = io_at(*def, true, index, __func__);
  if (io == nullptr) return ACL_ERROR_INVALID_PARAM;
  // A static input's range is [d, d] per dimension; a gear input's is (min, max) over the gears.
  const std::vector<int64_t>& shape = io->dims_v2.empty() ? io->dims : io->dims_v2;
  dimsRange->rangeCount = io->shape_range.empty() ? shape.size() : io->shape_range.size();
  for (size_t i = 0; i < dimsRange->rangeCount && i < ACL_MAX_DIM_CNT; ++i) {
    dimsRange->range[i][0] = io->shape_range.empty() ? shape[i] : io->shape_range[i].first;
    dimsRange->range[i][1] = io->shape_range.empty() ? shape[i] : io->shape_range[i].second;
  }
  return ACL_SUCCESS;
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  const auto def = model_of(modelDesc, __func__);
  const IoDesc* io = def ? io_at(*def, true, index, __func__) : nullptr;
  return io == nullptr ? "" : io->name.c_str();  // lives as long as the ModelDef (the desc or loaded model)
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  const auto def = model_of(modelDesc, __func__);
  const IoDesc* io = def ? io_at(*def, false, index, __func__) : nullptr;
  return io == nullptr ? "" : io->name.c_str();
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  const auto def = model_of(modelDesc, __func__);
  const IoDesc* io = def ? io_at(*def, true, index, __func__) : nullptr;
  return io == nullptr ? ACL_FORMAT_UNDEFINED : io->format;
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  const auto def = model_of(modelDesc, __func__);
  const IoDesc* io = def ? io_at(*def, false, index, __func__) : nullptr;
  return io == nullptr ? ACL_FORMAT_UNDEFINED : io->format;
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  const auto def = model_of(modelDesc, __func__);
  const IoDesc* io = def ? io_at(*def, true, index, __func__) : nullptr;
  return io == nullptr ? ACL_DT_UNDEFINED : io->dtype;
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  const auto def = model_of(modelDesc, __func__);
  const IoDesc* io = def ? io_at(*def, false, index, __func__) : nullptr;
  return io == nullptr ? ACL_DT_UNDEFINED : io->dtype;
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return index_by_name(modelDesc, name, index, true, __func__);
}

aclError aclmdlGetOutputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return index_by_name(modelDesc, name, index, false, __func__);
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(batch);
  const auto def = model_of(modelDesc, __func__);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const auto gears = gears_of(*def, 1);
  if (gears.size() > ACL_MAX_BATCH_NUM)
    return fail(ACL_ERROR_STORAGE_OVER_LIMIT, "%s: %zu batch gears exceed ACL_MAX_BATCH_NUM %d", __func__,
                gears.size(), ACL_MAX_BATCH_NUM);
  batch->batchCount = gears.size();
  for (size_t i = 0; i < gears.size(); ++i) batch->batch[i] = static_cast<uint64_t>(gears[i][0]);
  return ACL_SUCCESS;
}

aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index, aclmdlHW* hw) {
  (void)index;  // ignored, as in CANN (samples pass -1 or the index of ascend_mbatch_shape_data)
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(hw);
  const auto def = model_of(modelDesc, __func__);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const auto gears = gears_of(*def, 2);
  if (gears.size() > ACL_MAX_HW_NUM)
    return fail(ACL_ERROR_STORAGE_OVER_LIMIT, "%s: %zu HW gears exceed ACL_MAX_HW_NUM %d", __func__, gears.size(),
                ACL_MAX_HW_NUM);
  hw->hwCount = gears.size();
  for (size_t i = 0; i < gears.size(); ++i) {
    hw->hw[i][0] = static_cast<uint64_t>(gears[i][0]);
    hw->hw[i][1] = static_cast<uint64_t>(gears[i][1]);
  }
  return ACL_SUCCESS;
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc* modelDesc, size_t index, size_t* gearCount) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(gearCount);
  if (index != static_cast<size_t>(-1))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: index must be -1, not %zu", __func__, index);
  const auto def = model_of(modelDesc, __func__);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const size_t count = gears_of(*def, 3).size();
  if (count > ACL_MAX_DIM_CNT)
    return fail(ACL_ERROR_STORAGE_OVER_LIMIT, "%s: %zu gears exceed ACL_MAX_DIM_CNT %d", __func__, count,
                ACL_MAX_DIM_CNT);
  *gearCount = count;
  return ACL_SUCCESS;
}

aclError aclmdlGetInputDynamicDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims, size_t gearCount) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  ASCENDSIM_CHECK_NOT_NULL(dims);
  if (index != static_cast<size_t>(-1))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: index must be -1, not %zu", __func__, index);
  const auto def = model_of(modelDesc, __func__);
  if (!def) return ACL_ERROR_INVALID_PARAM;
  const auto gears = gears_of(*def, 3);
  if (gearCount < gears.size())
    return fail(ACL_ERROR_INVALID_PARAM, "%s: gearCount %zu is less than the model's %zu gears", __func__, gearCount,
                gears.size());
  // Each gear as GE reports it: the dims of the inputs named in MODEL_DESIGNATE_SHAPE_ORDER, concatenated,
  // with the -1 entries replaced by the gear's values in order.
  std::vector<int64_t> raw;
  for (const std::string& name : def->designate_shape_order)
    for (const IoDesc& io : def->inputs)
      if (io.name == name) raw.insert(raw.end(), io.dims.begin(), io.dims.end());
  if (raw.size() > ACL_MAX_DIM_CNT)
    return fail(ACL_ERROR_FAILURE, "%s: %zu dynamic dims exceed ACL_MAX_DIM_CNT %d", __func__, raw.size(),
                ACL_MAX_DIM_CNT);
  for (size_t g = 0; g < gears.size(); ++g) {
    size_t next = 0;
    std::memset(dims[g].name, 0, sizeof(dims[g].name));
    dims[g].dimCount = raw.size();
    for (size_t j = 0; j < raw.size(); ++j) {
      if (raw[j] >= 0) {
        dims[g].dims[j] = raw[j];
        continue;
      }
      if (next >= gears[g].size())
        return fail(ACL_ERROR_INVALID_PARAM, "%s: gear %zu has fewer values than the inputs have -1 dims", __func__, g);
      dims[g].dims[j] = gears[g][next++];
    }
  }
  return ACL_SUCCESS;
}

// ---- descriptions of loaded models (the executor's registry, csrc/model/model_registry.h) ----

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  ASCENDSIM_CHECK_NOT_NULL(modelDesc);
  const auto desc = model::find_desc(modelDesc, __func__);
  if (!desc) return ACL_ERROR_INVALID_PARAM;
  auto def = model::find_model_def(modelId);
  if (!def)
    return fail(static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID), "%s: model id %u is not loaded", __func__,
                modelId);
  std::lock_guard<std::mutex> lock(desc->mutex);
  desc->def = std::move(def);
  desc->model_id = modelId;
  return ACL_SUCCESS;
}

namespace {

// The loaded model's definition and its input `index`, or an error code (recorded).
aclError loaded_input(uint32_t model_id, size_t index, const char* api, std::shared_ptr<const ModelDef>* def) {
  *def = model::find_model_def(model_id);
  if (!*def)
    return fail(static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID), "%s: model id %u is not loaded", api,
                model_id);
  if (index >= (*def)->inputs.size())
    return fail(ACL_ERROR_INVALID_PARAM, "%s: input index %zu is out of range (the model has %zu inputs)", api, index,
                (*def)->inputs.size());
  return ACL_SUCCESS;
}

const model::AippDef* static_aipp(const ModelDef& def, size_t index) {
  for (const auto& aipp : def.aipp)
    if (aipp.input_index == index) return &aipp;
  return nullptr;
}

}  // namespace

aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType* type,
                           size_t* dynamicAttachedDataIndex) {
  ASCENDSIM_CHECK_NOT_NULL(type);
  ASCENDSIM_CHECK_NOT_NULL(dynamicAttachedDataIndex);
  std::shared_ptr<const ModelDef> def;
  if (const aclError ret = loaded_input(modelId, index, __func__, &def)) return ret;
  // Only static AIPP exists in ascendsim's models (atc --insert_op_conf, aipp_mode static): no attached
  // dynamic-AIPP input, whose index GE reports as ACL_INVALID_NODE_INDEX.
  *type = static_aipp(*def, index) != nullptr ? ACL_DATA_WITH_STATIC_AIPP : ACL_DATA_WITHOUT_AIPP;
  *dynamicAttachedDataIndex = ACL_INVALID_NODE_INDEX;
  return ACL_SUCCESS;
}

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo* aippInfo) {
  ASCENDSIM_CHECK_NOT_NULL(aippInfo);
  std::shared_ptr<const ModelDef> def;
  if (const aclError ret = loaded_input(modelId, index, __func__, &def)) return ret;
  const model::AippDef* aipp = static_aipp(*def, index);
  if (aipp == nullptr)
    return fail(static_cast<aclError>(ACL_ERROR_GE_AIPP_NOT_EXIST), "%s: input %zu of model %u has no static AIPP",
                __func__, index, modelId);
  *aippInfo = aipp->info;
  return ACL_SUCCESS;
}
