// The implemented AscendCL functions, bound by the generic rule of fastcall.h. Calls that can wait for
// the device release the GIL, so callbacks and other Python threads keep running meanwhile.
#include "python/module.h"

// Deprecated functions are bound on purpose: old samples still call them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace ascendsim::python {

template <>
struct StructOut<aclrtUtilizationInfo> : std::true_type {
  static PyObject* to_python(const aclrtUtilizationInfo& info) {
    return Py_BuildValue("{s:i,s:i,s:i,s:i}", "cubeUtilization", info.cubeUtilization, "vectorUtilization",
                         info.vectorUtilization, "aicpuUtilization", info.aicpuUtilization, "memoryUtilization",
                         info.memoryUtilization);
  }
};

#define BIND(name) bind<&name>(module, #name)
#define BIND_BLOCKING(name) bind<&name, Gil::Release>(module, #name)

void bind_runtime_functions(PyObject* module) {
  // acl.h
  BIND(aclInit);
  BIND_BLOCKING(aclFinalize);
  BIND(aclrtGetVersion);
  BIND(aclGetRecentErrMsg);
  // acl_base.h
  BIND(aclFloat16ToFloat);
  BIND(aclFloatToFloat16);
  BIND(aclCreateDataBuffer);
  BIND(aclDestroyDataBuffer);
  BIND(aclUpdateDataBuffer);
  BIND(aclGetDataBufferAddr);
  BIND(aclGetDataBufferSize);
  BIND(aclGetDataBufferSizeV2);
  BIND(aclDataTypeSize);
  BIND(aclrtGetSocName);
  BIND(aclGetCannAttribute);
  BIND(aclGetDeviceCapability);
  // devices
  BIND(aclrtSetDevice);
  BIND_BLOCKING(aclrtResetDevice);
  BIND_BLOCKING(aclrtResetDeviceForce);
  BIND(aclrtGetDevice);
  BIND(aclrtGetRunMode);
  BIND_BLOCKING(aclrtSynchronizeDevice);
  BIND(aclrtSetTsDevice);
  BIND(aclrtGetDeviceUtilizationRate);
  BIND(aclrtGetDeviceCount);
  BIND(aclrtQueryDeviceStatus);
  BIND(aclrtDeviceCanAccessPeer);
  BIND(aclrtDeviceEnablePeerAccess);
  BIND(aclrtDeviceDisablePeerAccess);
  BIND(aclrtSetOpWaitTimeout);
  BIND(aclrtSetOpExecuteTimeOut);
  BIND(aclrtSetDeviceSatMode);
  BIND(aclrtGetDeviceSatMode);
  // contexts
  BIND(aclrtCreateContext);
  BIND_BLOCKING(aclrtDestroyContext);
  BIND(aclrtSetCurrentContext);
  BIND(aclrtGetCurrentContext);
  BIND(aclrtCtxGetSysParamOpt);
  BIND(aclrtCtxSetSysParamOpt);
  // streams
  BIND(aclrtCreateStreamConfigHandle);
  BIND(aclrtDestroyStreamConfigHandle);
  BIND(aclrtSetStreamConfigOpt);
  BIND(aclrtCreateStream);
  BIND(aclrtCreateStreamV2);
  BIND(aclrtCreateStreamWithConfig);
  BIND_BLOCKING(aclrtDestroyStream);
  BIND_BLOCKING(aclrtDestroyStreamForce);
  BIND_BLOCKING(aclrtSynchronizeStream);
  BIND_BLOCKING(aclrtSynchronizeStreamWithTimeout);
  BIND(aclrtStreamQuery);
  BIND_BLOCKING(aclrtStreamWaitEvent);
  BIND(aclrtSetStreamFailureMode);
  BIND(aclrtSetStreamOverflowSwitch);
  BIND(aclrtGetStreamOverflowSwitch);
  // events
  BIND(aclrtCreateEvent);
  BIND(aclrtCreateEventWithFlag);
  BIND(aclrtCreateEventExWithFlag);
  BIND(aclrtDestroyEvent);
  BIND(aclrtRecordEvent);
  BIND(aclrtResetEvent);
  BIND(aclrtQueryEvent);
  BIND(aclrtQueryEventStatus);
  BIND(aclrtQueryEventWaitStatus);
  BIND_BLOCKING(aclrtSynchronizeEvent);
  BIND_BLOCKING(aclrtSynchronizeEventWithTimeout);
  BIND(aclrtEventElapsedTime);
  // callbacks (the ones without a Python callable)
  BIND(aclrtSubscribeReport);
  BIND_BLOCKING(aclrtProcessReport);
  BIND(aclrtUnSubscribeReport);
  BIND(aclrtGetTaskIdFromExceptionInfo);
  BIND(aclrtGetStreamIdFromExceptionInfo);
  BIND(aclrtGetThreadIdFromExceptionInfo);
  BIND(aclrtGetDeviceIdFromExceptionInfo);
  BIND(aclrtGetErrorCodeFromExceptionInfo);
  // memory
  BIND(aclrtMalloc);
  BIND(aclrtMallocAlign32);
  BIND(aclrtMallocCached);
  BIND(aclrtMemFlush);
  BIND(aclrtMemInvalidate);
  BIND(aclrtFree);
  BIND(aclrtMallocHost);
  BIND(aclrtFreeHost);
  BIND_BLOCKING(aclrtMemcpy);
  BIND_BLOCKING(aclrtMemset);
  // kernel binaries (Ascend C kernels built by bisheng -shared)
  BIND(aclrtCreateBinary);
  BIND(aclrtDestroyBinary);
  BIND(aclrtBinaryLoad);
  BIND(aclrtBinaryLoadFromFile);
  BIND(aclrtBinaryLoadFromData);
  BIND_BLOCKING(aclrtBinaryUnLoad);
  BIND(aclrtBinaryGetFunction);
  BIND_BLOCKING(aclrtLaunchKernel);
  BIND_BLOCKING(aclrtMemcpyAsync);  // with pageable host memory it synchronizes the stream first
  BIND_BLOCKING(aclrtMemcpy2d);
  BIND_BLOCKING(aclrtMemcpy2dAsync);
  BIND(aclrtMemsetAsync);
  BIND(aclrtGetMemInfo);
}

}  // namespace ascendsim::python
