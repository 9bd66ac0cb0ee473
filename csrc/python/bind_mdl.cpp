// The acl_mdl.h functions in Python, with pyACL's shapes (pyacl-api.md §2.3): the struct out-parameters
// come back as dicts, {'name', 'dimCount', 'dims'} for aclmdlIODims, {'batchCount', 'batch'} for
// aclmdlBatch, {'hwCount', 'hw'} for aclmdlHW, and a failed query returns ({}, ret), never a half-filled
// dict. aclmdlSetInputDynamicDims takes such a dict. Every other acl_mdl function follows the generic rule
// of fastcall.h. All acl_mdl functions are bound here whether implemented or still a not-supported stub
// (the symbol exists either way), so moving a function out of not_supported_list.h never unbinds it.
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "python/module.h"
#include "python/pyacl_args.h"

namespace ascendsim::python {
namespace {

PyObject* dims_dict(const aclmdlIODims& dims) {
  const size_t count = dims.dimCount < ACL_MAX_DIM_CNT ? dims.dimCount : ACL_MAX_DIM_CNT;
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < count; ++i)
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(dims.dims[i]));
  const size_t name_len = strnlen(dims.name, sizeof(dims.name));
  PyObject* name = PyUnicode_DecodeUTF8(dims.name, static_cast<Py_ssize_t>(name_len), "replace");
  PyObject* result = name == nullptr ? nullptr
                                     : Py_BuildValue("{s:O,s:n,s:O}", "name", name, "dimCount",
                                                     static_cast<Py_ssize_t>(dims.dimCount), "dims", list);
  Py_XDECREF(name);
  Py_DECREF(list);
  return result;
}

// (value, ret), with {} in place of the value when ret != 0 (pyACL).
PyObject* value_and_ret(PyObject* value, aclError ret) {
  if (value == nullptr) return nullptr;
  if (ret != ACL_SUCCESS) {
    Py_DECREF(value);
    value = PyDict_New();
    if (value == nullptr) return nullptr;
  }
  return Py_BuildValue("(Ni)", value, ret);
}

// (desc, index) -> (dims_dict, ret): aclmdlGetInputDims, GetInputDimsV2, GetOutputDims, GetCurOutputDims.
template <aclError (*Fn)(const aclmdlDesc*, size_t, aclmdlIODims*)>
PyObject* get_dims(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const aclmdlDesc* desc = nullptr;
  size_t index = 0;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &desc) || !parse_input(self, 1, args[1], &index))
    return nullptr;
  aclmdlIODims dims{};
  const aclError ret = Fn(desc, index, &dims);
  return value_and_ret(ret == ACL_SUCCESS ? dims_dict(dims) : PyDict_New(), ret);
}

// (desc, index) -> ({'rangeCount': n, 'range': [[min, max], ...]}, ret)
PyObject* get_input_dims_range(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const aclmdlDesc* desc = nullptr;
  size_t index = 0;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &desc) || !parse_input(self, 1, args[1], &index))
    return nullptr;
  auto range = std::make_unique<aclmdlIODimsRange>();
  const aclError ret = aclmdlGetInputDimsRange(desc, index, range.get());
  if (ret != ACL_SUCCESS) return value_and_ret(PyDict_New(), ret);
  const size_t count = range->rangeCount < ACL_MAX_DIM_CNT ? range->rangeCount : ACL_MAX_DIM_CNT;
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < count; ++i)
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), Py_BuildValue("[LL]", static_cast<long long>(range->range[i][0]),
                                                                    static_cast<long long>(range->range[i][1])));
  return value_and_ret(Py_BuildValue("{s:n,s:N}", "rangeCount", static_cast<Py_ssize_t>(range->rangeCount), "range",
                                     list),
                       ret);
}

// (desc) -> ({'batchCount': n, 'batch': [...]}, ret)
PyObject* get_dynamic_batch(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const aclmdlDesc* desc = nullptr;
  if (!check_count(self, nargs, 1) || !parse_input(self, 0, args[0], &desc)) return nullptr;
  aclmdlBatch batch{};
  const aclError ret = aclmdlGetDynamicBatch(desc, &batch);
  if (ret != ACL_SUCCESS) return value_and_ret(PyDict_New(), ret);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(batch.batchCount));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < batch.batchCount; ++i)
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyLong_FromUnsignedLongLong(batch.batch[i]));
  return value_and_ret(Py_BuildValue("{s:n,s:N}", "batchCount", static_cast<Py_ssize_t>(batch.batchCount), "batch",
                                     list),
                       ret);
}

// (desc, index) -> ({'hwCount': n, 'hw': [[h, w], ...]}, ret)
PyObject* get_dynamic_hw(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const aclmdlDesc* desc = nullptr;
  size_t index = 0;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &desc) || !parse_input(self, 1, args[1], &index))
    return nullptr;
  aclmdlHW hw{};
  const aclError ret = aclmdlGetDynamicHW(desc, index, &hw);
  if (ret != ACL_SUCCESS) return value_and_ret(PyDict_New(), ret);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(hw.hwCount));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < hw.hwCount; ++i)
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i),
                    Py_BuildValue("[KK]", static_cast<unsigned long long>(hw.hw[i][0]),
                                  static_cast<unsigned long long>(hw.hw[i][1])));
  return value_and_ret(Py_BuildValue("{s:n,s:N}", "hwCount", static_cast<Py_ssize_t>(hw.hwCount), "hw", list), ret);
}

// (desc, index, gear_count) -> ([dims_dict, ...], ret); [] on failure.
PyObject* get_input_dynamic_dims(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const aclmdlDesc* desc = nullptr;
  size_t index = 0, gear_count = 0;
  if (!check_count(self, nargs, 3) || !parse_input(self, 0, args[0], &desc) || !parse_input(self, 1, args[1], &index) ||
      !parse_input(self, 2, args[2], &gear_count))
    return nullptr;
  // A model has at most ACL_MAX_DIM_CNT gears (more fail in C): never allocate what the caller claims.
  const size_t slots = gear_count < ACL_MAX_DIM_CNT ? gear_count : ACL_MAX_DIM_CNT;
  std::vector<aclmdlIODims> dims(slots > 0 ? slots : 1);
  aclError ret = aclmdlGetInputDynamicDims(desc, index, dims.data(), slots);
  size_t actual = 0;
  if (ret == ACL_SUCCESS) ret = aclmdlGetInputDynamicGearCount(desc, index, &actual);
  if (ret != ACL_SUCCESS) return Py_BuildValue("(Ni)", PyList_New(0), ret);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(actual));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < actual; ++i) {
    PyObject* item = dims_dict(dims[i]);
    if (item == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
  }
  return Py_BuildValue("(Ni)", list, ret);
}

// (model_id, dataset, index, {'name', 'dimCount', 'dims'}) -> ret
PyObject* set_input_dynamic_dims(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  uint32_t model_id = 0;
  aclmdlDataset* dataset = nullptr;
  size_t index = 0;
  if (!check_count(self, nargs, 4) || !parse_input(self, 0, args[0], &model_id) ||
      !parse_input(self, 1, args[1], &dataset) || !parse_input(self, 2, args[2], &index))
    return nullptr;
  if (!PyDict_Check(args[3])) return type_error(self, 3, "dict", args[3]), nullptr;
  aclmdlIODims dims{};
  PyObject* name = PyDict_GetItemString(args[3], "name");
  if (name != nullptr && name != Py_None) {
    const char* text = nullptr;
    if (!parse_input(self, 3, name, &text)) return nullptr;
    std::strncpy(dims.name, text, sizeof(dims.name) - 1);
  }
  PyObject* values = PyDict_GetItemString(args[3], "dims");
  if (values == nullptr || !PyList_Check(values)) {
    PyErr_Format(PyExc_TypeError, "%U() argument 4 needs a 'dims' list", self);
    return nullptr;
  }
  const Py_ssize_t n = PyList_GET_SIZE(values);
  if (n > ACL_MAX_DIM_CNT) {
    PyErr_Format(PyExc_ValueError, "%U(): %zd dims exceed ACL_MAX_DIM_CNT (%d)", self, n, ACL_MAX_DIM_CNT);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!parse_input(self, 3, PyList_GET_ITEM(values, i), &dims.dims[i])) return nullptr;
  dims.dimCount = static_cast<size_t>(n);
  PyObject* count = PyDict_GetItemString(args[3], "dimCount");
  if (count != nullptr && !parse_input(self, 3, count, &dims.dimCount)) return nullptr;
  if (dims.dimCount > static_cast<size_t>(n)) {
    PyErr_Format(PyExc_ValueError, "%U(): dimCount %zu is larger than the %zd dims given", self, dims.dimCount, n);
    return nullptr;
  }
  return PyLong_FromLong(aclmdlSetInputDynamicDims(model_id, dataset, index, &dims));
}

// (model_id, index) -> (aipp_dict, ret), None in place of the dict on failure. The keys are pyACL's
// (aclAippInfo's member names; aippExtend is the address of the extension, 0 here), plus matrixR0C2,
// matrixR2C0 and matrixR2C1, which pyACL leaves out of its dict.
PyObject* get_first_aipp_info(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  uint32_t model_id = 0;
  size_t index = 0;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &model_id) ||
      !parse_input(self, 1, args[1], &index))
    return nullptr;
  auto info = std::make_unique<aclAippInfo>();
  const aclError ret = aclmdlGetFirstAippInfo(model_id, index, info.get());
  if (ret != ACL_SUCCESS) return Py_BuildValue("(Oi)", Py_None, ret);
  const aclAippInfo& a = *info;
  PyObject* dict = Py_BuildValue(
      "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "inputFormat",
      static_cast<int>(a.inputFormat), "srcImageSizeW", a.srcImageSizeW, "srcImageSizeH", a.srcImageSizeH,
      "cropSwitch", a.cropSwitch, "loadStartPosW", a.loadStartPosW, "loadStartPosH", a.loadStartPosH, "cropSizeW",
      a.cropSizeW, "cropSizeH", a.cropSizeH, "resizeSwitch", a.resizeSwitch, "resizeOutputW", a.resizeOutputW,
      "resizeOutputH", a.resizeOutputH, "paddingSwitch", a.paddingSwitch, "leftPaddingSize", a.leftPaddingSize,
      "rightPaddingSize", a.rightPaddingSize, "topPaddingSize", a.topPaddingSize, "bottomPaddingSize",
      a.bottomPaddingSize, "cscSwitch", a.cscSwitch, "rbuvSwapSwitch", a.rbuvSwapSwitch, "axSwapSwitch",
      a.axSwapSwitch, "singleLineMode", a.singleLineMode);
  if (dict == nullptr) return nullptr;
  const std::pair<const char*, int32_t> ints[] = {
      {"matrixR0C0", a.matrixR0C0}, {"matrixR0C1", a.matrixR0C1}, {"matrixR0C2", a.matrixR0C2},
      {"matrixR1C0", a.matrixR1C0}, {"matrixR1C1", a.matrixR1C1}, {"matrixR1C2", a.matrixR1C2},
      {"matrixR2C0", a.matrixR2C0}, {"matrixR2C1", a.matrixR2C1}, {"matrixR2C2", a.matrixR2C2},
      {"outputBias0", a.outputBias0}, {"outputBias1", a.outputBias1}, {"outputBias2", a.outputBias2},
      {"inputBias0", a.inputBias0}, {"inputBias1", a.inputBias1}, {"inputBias2", a.inputBias2},
      {"meanChn0", a.meanChn0}, {"meanChn1", a.meanChn1}, {"meanChn2", a.meanChn2}, {"meanChn3", a.meanChn3},
      {"srcFormat", static_cast<int32_t>(a.srcFormat)}, {"srcDatatype", static_cast<int32_t>(a.srcDatatype)}};
  const std::pair<const char*, float> floats[] = {
      {"minChn0", a.minChn0}, {"minChn1", a.minChn1}, {"minChn2", a.minChn2}, {"minChn3", a.minChn3},
      {"varReciChn0", a.varReciChn0}, {"varReciChn1", a.varReciChn1}, {"varReciChn2", a.varReciChn2},
      {"varReciChn3", a.varReciChn3}};
  bool ok = true;
  auto put = [&](const char* key, PyObject* value) {
    ok = ok && value != nullptr && PyDict_SetItemString(dict, key, value) == 0;
    Py_XDECREF(value);
  };
  for (const auto& [key, value] : ints) put(key, PyLong_FromLong(value));
  for (const auto& [key, value] : floats) put(key, PyFloat_FromDouble(static_cast<double>(value)));
  put("aippExtend", PyLong_FromVoidPtr(a.aippExtend));
  put("srcDimNum", PyLong_FromSize_t(a.srcDimNum));
  put("shapeCount", PyLong_FromSize_t(a.shapeCount));
  const size_t shapes = a.shapeCount < ACL_MAX_SHAPE_COUNT ? a.shapeCount : ACL_MAX_SHAPE_COUNT;
  PyObject* out_dims = PyList_New(0);
  for (size_t i = 0; ok && out_dims != nullptr && i < shapes; ++i) {
    PyObject* item = Py_BuildValue("{s:N,s:n,s:N,s:n}", "srcDims", dims_dict(a.outDims[i].srcDims), "srcSize",
                                   static_cast<Py_ssize_t>(a.outDims[i].srcSize), "aippOutdims",
                                   dims_dict(a.outDims[i].aippOutdims), "aippOutSize",
                                   static_cast<Py_ssize_t>(a.outDims[i].aippOutSize));
    ok = item != nullptr && PyList_Append(out_dims, item) == 0;
    Py_XDECREF(item);
  }
  put("outDims", out_dims);
  if (!ok) {
    Py_DECREF(dict);
    return nullptr;
  }
  return Py_BuildValue("(Ni)", dict, ret);
}

}  // namespace

#define BIND(name) bind<&name>(module, #name)
#define BIND_BLOCKING(name) bind<&name, Gil::Release>(module, #name)
#define BIND_RAW(name, function)                                \
  do {                                                          \
    static PyMethodDef def = fastcall_def(#name, &function);    \
    add_function(module, &def);                                 \
  } while (0)

void bind_mdl_functions(PyObject* module) {
  // descriptions
  BIND(aclmdlCreateDesc);
  BIND(aclmdlDestroyDesc);
  BIND(aclmdlGetDesc);
  BIND_BLOCKING(aclmdlGetDescFromFile);
  BIND(aclmdlGetDescFromMem);
  BIND(aclmdlGetNumInputs);
  BIND(aclmdlGetNumOutputs);
  BIND(aclmdlGetInputSizeByIndex);
  BIND(aclmdlGetOutputSizeByIndex);
  BIND_RAW(aclmdlGetInputDims, get_dims<&aclmdlGetInputDims>);
  BIND_RAW(aclmdlGetInputDimsV2, get_dims<&aclmdlGetInputDimsV2>);
  BIND_RAW(aclmdlGetOutputDims, get_dims<&aclmdlGetOutputDims>);
  BIND_RAW(aclmdlGetCurOutputDims, get_dims<&aclmdlGetCurOutputDims>);
  BIND_RAW(aclmdlGetInputDimsRange, get_input_dims_range);
  BIND(aclmdlGetInputNameByIndex);
  BIND(aclmdlGetOutputNameByIndex);
  BIND(aclmdlGetInputFormat);
  BIND(aclmdlGetOutputFormat);
  BIND(aclmdlGetInputDataType);
  BIND(aclmdlGetOutputDataType);
  BIND(aclmdlGetInputIndexByName);
  BIND(aclmdlGetOutputIndexByName);
  BIND_RAW(aclmdlGetDynamicBatch, get_dynamic_batch);
  BIND_RAW(aclmdlGetDynamicHW, get_dynamic_hw);
  BIND(aclmdlGetInputDynamicGearCount);
  BIND_RAW(aclmdlGetInputDynamicDims, get_input_dynamic_dims);
  BIND_BLOCKING(aclmdlQuerySize);
  BIND(aclmdlQuerySizeFromMem);
  // datasets
  BIND(aclmdlCreateDataset);
  BIND(aclmdlDestroyDataset);
  BIND(aclmdlAddDatasetBuffer);
  BIND(aclmdlGetDatasetNumBuffers);
  BIND(aclmdlGetDatasetBuffer);
  BIND(aclmdlSetDatasetTensorDesc);
  BIND(aclmdlGetDatasetTensorDesc);
  // load / execute / dynamic gears (csrc/api/acl_mdl_exec.cpp)
  BIND_BLOCKING(aclmdlLoadFromFile);
  BIND_BLOCKING(aclmdlLoadFromMem);
  BIND_BLOCKING(aclmdlLoadFromFileWithMem);
  BIND_BLOCKING(aclmdlLoadFromMemWithMem);
  BIND_BLOCKING(aclmdlUnload);
  BIND_BLOCKING(aclmdlExecute);
  BIND_BLOCKING(aclmdlExecuteAsync);
  BIND_BLOCKING(aclmdlExecuteV2);
  BIND_BLOCKING(aclmdlExecuteAsyncV2);
  BIND(aclmdlSetDynamicBatchSize);
  BIND(aclmdlSetDynamicHWSize);
  BIND_RAW(aclmdlSetInputDynamicDims, set_input_dynamic_dims);
  // AIPP of a loaded model
  BIND(aclmdlGetAippType);
  BIND_RAW(aclmdlGetFirstAippInfo, get_first_aipp_info);
  // config handles (attrValue is an address here; acl.mdl.set_config_opt takes the value itself)
  BIND(aclmdlCreateConfigHandle);
  BIND(aclmdlDestroyConfigHandle);
  BIND(aclmdlSetConfigOpt);
  BIND_BLOCKING(aclmdlLoadWithConfig);
  BIND(aclmdlCreateExecConfigHandle);
  BIND(aclmdlDestroyExecConfigHandle);
  BIND(aclmdlSetExecConfigOpt);
}

}  // namespace ascendsim::python
