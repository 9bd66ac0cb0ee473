/*
 * The AscendCL functions that ascendsim declares but does not implement (yet): one X-macro entry each,
 *
 *     ACL_NOT_SUPPORTED(return type, function name, (parameter list exactly as declared))
 *
 * grouped by what the stub returns. csrc/api/not_supported.cpp expands the list into definitions that
 * record "<name> is not supported by ascendsim" (see aclGetRecentErrMsg) and return
 *   - aclError:                ACL_ERROR_API_NOT_SUPPORT (200001)
 *   - a pointer or handle:     NULL
 *   - size_t / int64_t:        0
 *   - aclDataType / aclFormat: ACL_DT_UNDEFINED / ACL_FORMAT_UNDEFINED
 *   - aclprofSubscribeOpFlag:  ACL_SUBSCRIBE_NONE (the real library's failure value)
 *   - void:                    nothing
 * Tests and documentation read this file as the single list of unsupported functions, so keep one entry
 * per line. Implementing a function = deleting its line here and defining it in its own api file.
 *
 * No include guard on purpose: the includer defines ACL_NOT_SUPPORTED, includes this file, and undefines it.
 */
#ifndef ACL_NOT_SUPPORTED
#error "define ACL_NOT_SUPPORTED(ret, name, params) before including not_supported_list.h"
#endif

/* ---- Return an aclError: the code ACL_ERROR_API_NOT_SUPPORT. */
/* acl_rt.h */
ACL_NOT_SUPPORTED(aclError, aclrtReserveMemAddress, (void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags))
ACL_NOT_SUPPORTED(aclError, aclrtReleaseMemAddress, (void *virPtr))
ACL_NOT_SUPPORTED(aclError, aclrtMallocPhysical, (aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags))
ACL_NOT_SUPPORTED(aclError, aclrtFreePhysical, (aclrtDrvMemHandle handle))
ACL_NOT_SUPPORTED(aclError, aclrtMapMem, (void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags))
ACL_NOT_SUPPORTED(aclError, aclrtUnmapMem, (void *virPtr))
ACL_NOT_SUPPORTED(aclError, aclrtSetGroup, (int32_t groupId))
ACL_NOT_SUPPORTED(aclError, aclrtGetGroupCount, (uint32_t *count))
ACL_NOT_SUPPORTED(aclError, aclrtDestroyGroupInfo, (aclrtGroupInfo *groupInfo))
ACL_NOT_SUPPORTED(aclError, aclrtGetAllGroupInfo, (aclrtGroupInfo *groupInfo))
ACL_NOT_SUPPORTED(aclError, aclrtGetGroupInfoDetail, (const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr, void *attrValue, size_t valueLen, size_t *paramRetSize))
ACL_NOT_SUPPORTED(aclError, aclrtGetOverflowStatus, (void *outputAddr, size_t outputSize, aclrtStream stream))
ACL_NOT_SUPPORTED(aclError, aclrtResetOverflowStatus, (aclrtStream stream))
ACL_NOT_SUPPORTED(aclError, aclrtSubscribeHostFunc, (uint64_t hostFuncThreadId, aclrtStream exeStream))
ACL_NOT_SUPPORTED(aclError, aclrtProcessHostFunc, (int32_t timeout))
ACL_NOT_SUPPORTED(aclError, aclrtUnSubscribeHostFunc, (uint64_t hostFuncThreadId, aclrtStream exeStream))
ACL_NOT_SUPPORTED(aclError, aclrtDestroyBinary, (aclrtBinary binary))
ACL_NOT_SUPPORTED(aclError, aclrtBinaryLoad, (const aclrtBinary binary, aclrtBinHandle *binHandle))
ACL_NOT_SUPPORTED(aclError, aclrtBinaryUnLoad, (aclrtBinHandle binHandle))
ACL_NOT_SUPPORTED(aclError, aclrtBinaryGetFunction, (const aclrtBinHandle binHandle, const char *kernelName, aclrtFuncHandle *funcHandle))
ACL_NOT_SUPPORTED(aclError, aclrtLaunchKernel, (aclrtFuncHandle funcHandle, uint32_t blockDim, const void *argsData, size_t argsSize, aclrtStream stream))
ACL_NOT_SUPPORTED(aclError, aclrtMemExportToShareableHandle, (aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags, uint64_t *shareableHandle))
ACL_NOT_SUPPORTED(aclError, aclrtMemImportFromShareableHandle, (uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle *handle))
ACL_NOT_SUPPORTED(aclError, aclrtMemSetPidToShareableHandle, (uint64_t shareableHandle, int32_t *pid, size_t pidNum))
ACL_NOT_SUPPORTED(aclError, aclrtMemGetAllocationGranularity, (aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option, size_t *granularity))
ACL_NOT_SUPPORTED(aclError, aclrtDeviceGetBareTgid, (int32_t *pid))
ACL_NOT_SUPPORTED(aclError, aclrtGetMemUceInfo, (int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize, size_t *retSize))
ACL_NOT_SUPPORTED(aclError, aclrtDeviceTaskAbort, (int32_t deviceId, uint32_t timeout))
ACL_NOT_SUPPORTED(aclError, aclrtMemUceRepair, (int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize))
/* acl_mdl.h */
ACL_NOT_SUPPORTED(aclError, aclmdlBundleLoadFromFile, (const char *modelPath, uint32_t *bundleId))
ACL_NOT_SUPPORTED(aclError, aclmdlBundleLoadFromMem, (const void *model, size_t modelSize, uint32_t *bundleId))
ACL_NOT_SUPPORTED(aclError, aclmdlBundleUnload, (uint32_t bundleId))
ACL_NOT_SUPPORTED(aclError, aclmdlBundleGetModelNum, (uint32_t bundleId, size_t *modelNum))
ACL_NOT_SUPPORTED(aclError, aclmdlBundleGetModelId, (uint32_t bundleId, size_t index, uint32_t *modelId))
ACL_NOT_SUPPORTED(aclError, aclmdlLoadFromFileWithQ, (const char *modelPath, uint32_t *modelId, const uint32_t *inputQ, size_t inputQNum, const uint32_t *outputQ, size_t outputQNum))
ACL_NOT_SUPPORTED(aclError, aclmdlLoadFromMemWithQ, (const void *model, size_t modelSize, uint32_t *modelId, const uint32_t *inputQ, size_t inputQNum, const uint32_t *outputQ, size_t outputQNum))
ACL_NOT_SUPPORTED(aclError, aclmdlQueryExeOMDesc, (const char *fileName, aclmdlExeOMDesc *mdlPartitionSize))
ACL_NOT_SUPPORTED(aclError, aclmdlDestroyAIPP, (const aclmdlAIPP *aippParmsSet))
ACL_NOT_SUPPORTED(aclError, aclmdlGetAippDataSize, (uint64_t batchSize, size_t *size))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPInputFormat, (aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPCscParams, (aclmdlAIPP *aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0, int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0, int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0, int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0, uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0, uint8_t cscInputBiasR1, uint8_t cscInputBiasR2))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPRbuvSwapSwitch, (aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPAxSwapSwitch, (aclmdlAIPP *aippParmsSet, int8_t axSwapSwitch))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPSrcImageSize, (aclmdlAIPP *aippParmsSet, int32_t srcImageSizeW, int32_t srcImageSizeH))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPScfParams, (aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW, int32_t scfInputSizeH, int32_t scfOutputSizeW, int32_t scfOutputSizeH, uint64_t batchIndex))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPCropParams, (aclmdlAIPP *aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW, int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH, uint64_t batchIndex))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPPaddingParams, (aclmdlAIPP *aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop, int32_t paddingSizeBottom, int32_t paddingSizeLeft, int32_t paddingSizeRight, uint64_t batchIndex))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPDtcPixelMean, (aclmdlAIPP *aippParmsSet, int16_t dtcPixelMeanChn0, int16_t dtcPixelMeanChn1, int16_t dtcPixelMeanChn2, int16_t dtcPixelMeanChn3, uint64_t batchIndex))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPDtcPixelMin, (aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0, float dtcPixelMinChn1, float dtcPixelMinChn2, float dtcPixelMinChn3, uint64_t batchIndex))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPPixelVarReci, (aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0, float dtcPixelVarReciChn1, float dtcPixelVarReciChn2, float dtcPixelVarReciChn3, uint64_t batchIndex))
ACL_NOT_SUPPORTED(aclError, aclmdlSetInputAIPP, (uint32_t modelId, aclmdlDataset *dataset, size_t index, const aclmdlAIPP *aippParmsSet))
ACL_NOT_SUPPORTED(aclError, aclmdlSetAIPPByInputIndex, (uint32_t modelId, aclmdlDataset *dataset, size_t index, const aclmdlAIPP *aippParmsSet))
ACL_NOT_SUPPORTED(aclError, aclmdlCreateAndGetOpDesc, (uint32_t deviceId, uint32_t streamId, uint32_t taskId, char *opName, size_t opNameLen, aclTensorDesc **inputDesc, size_t *numInputs, aclTensorDesc **outputDesc, size_t *numOutputs))
ACL_NOT_SUPPORTED(aclError, aclmdlInitDump, ())
ACL_NOT_SUPPORTED(aclError, aclmdlSetDump, (const char *dumpCfgPath))
ACL_NOT_SUPPORTED(aclError, aclmdlFinalizeDump, ())
/* acl_op.h */
ACL_NOT_SUPPORTED(aclError, aclopCreateKernel, (const char *opType, const char *kernelId, const char *kernelName, void *binData, int binSize, aclopEngineType enginetype, aclDataDeallocator deallocator))
ACL_NOT_SUPPORTED(aclError, aclopRegisterCompileFunc, (const char *opType, aclopCompileFunc func))
ACL_NOT_SUPPORTED(aclError, aclopUnregisterCompileFunc, (const char *opType))
ACL_NOT_SUPPORTED(aclError, aclopSetKernelArgs, (aclopKernelDesc *kernelDesc, const char *kernelId, uint32_t blockDim, const void *args, uint32_t argSize))
ACL_NOT_SUPPORTED(aclError, aclopSetKernelWorkspaceSizes, (aclopKernelDesc *kernelDesc, int numWorkspaces, size_t *workspaceSizes))
ACL_NOT_SUPPORTED(aclError, aclopStartDumpArgs, (uint32_t dumpType, const char *path))
ACL_NOT_SUPPORTED(aclError, aclopStopDumpArgs, (uint32_t dumpType))
/* acl_op_compiler.h */
ACL_NOT_SUPPORTED(aclError, aclGenGraphAndDumpForOp, (const char *opType, int numInputs, const aclTensorDesc *const inputDesc[], const aclDataBuffer *const inputs[], int numOutputs, const aclTensorDesc *const outputDesc[], aclDataBuffer *const outputs[], const aclopAttr *attr, aclopEngineType engineType, const char *graphDumpPath, const aclGraphDumpOption *graphDumpOpt))
ACL_NOT_SUPPORTED(aclError, aclDestroyGraphDumpOpt, (const aclGraphDumpOption *graphDumpOpt))
/* acl_prof.h */
ACL_NOT_SUPPORTED(aclError, aclprofModelSubscribe, (uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig))
ACL_NOT_SUPPORTED(aclError, aclprofModelUnSubscribe, (uint32_t modelId))
ACL_NOT_SUPPORTED(aclError, aclprofDestroySubscribeConfig, (const aclprofSubscribeConfig *profSubscribeConfig))
ACL_NOT_SUPPORTED(aclError, aclprofGetOpDescSize, (size_t *opDescSize))
ACL_NOT_SUPPORTED(aclError, aclprofGetOpNum, (const void *opInfo, size_t opInfoLen, uint32_t *opNumber))
ACL_NOT_SUPPORTED(aclError, aclprofGetOpTypeLen, (const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen))
ACL_NOT_SUPPORTED(aclError, aclprofGetOpType, (const void *opInfo, size_t opInfoLen, uint32_t index, char *opType, size_t opTypeLen))
ACL_NOT_SUPPORTED(aclError, aclprofGetOpNameLen, (const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen))
ACL_NOT_SUPPORTED(aclError, aclprofGetOpName, (const void *opInfo, size_t opInfoLen, uint32_t index, char *opName, size_t opNameLen))
ACL_NOT_SUPPORTED(aclError, aclprofGetStepTimestamp, (aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream))

/* ---- Return a pointer or handle: NULL. */
/* acl_rt.h */
ACL_NOT_SUPPORTED(aclrtGroupInfo *, aclrtCreateGroupInfo, ())
ACL_NOT_SUPPORTED(aclrtBinary, aclrtCreateBinary, (const void *data, size_t dataLen))
/* acl_mdl.h */
ACL_NOT_SUPPORTED(const char *, aclmdlGetOpAttr, (aclmdlDesc *modelDesc, const char *opName, const char *attr))
ACL_NOT_SUPPORTED(aclmdlAIPP *, aclmdlCreateAIPP, (uint64_t batchSize))
ACL_NOT_SUPPORTED(const char *, aclmdlGetTensorRealName, (const aclmdlDesc *modelDesc, const char *name))
/* acl_op_compiler.h */
ACL_NOT_SUPPORTED(aclGraphDumpOption *, aclCreateGraphDumpOpt, ())
/* acl_prof.h */
ACL_NOT_SUPPORTED(aclprofSubscribeConfig *, aclprofCreateSubscribeConfig, (int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics, void *fd))
ACL_NOT_SUPPORTED(const char *, aclprofGetOpAttriValue, (const void *opInfo, size_t opInfoLen, uint32_t index, aclprofSubscribeOpAttri attri))
ACL_NOT_SUPPORTED(aclprofStepInfo *, aclprofCreateStepInfo, ())

/* ---- Return a count or size: 0. */
/* acl_prof.h */
ACL_NOT_SUPPORTED(uint64_t, aclprofGetOpStart, (const void *opInfo, size_t opInfoLen, uint32_t index))
ACL_NOT_SUPPORTED(uint64_t, aclprofGetOpEnd, (const void *opInfo, size_t opInfoLen, uint32_t index))
ACL_NOT_SUPPORTED(uint64_t, aclprofGetOpDuration, (const void *opInfo, size_t opInfoLen, uint32_t index))
ACL_NOT_SUPPORTED(size_t, aclprofGetModelId, (const void *opInfo, size_t opInfoLen, uint32_t index))

/* ---- Return an enum: its UNDEFINED (or NONE) value. */
/* acl_prof.h */
ACL_NOT_SUPPORTED(aclprofSubscribeOpFlag, aclprofGetOpFlag, (const void *opInfo, size_t opInfoLen, uint32_t index))

/* ---- Return nothing: only the error is recorded. */
/* acl_op.h */
/* acl_prof.h */
ACL_NOT_SUPPORTED(void, aclprofDestroyStepInfo, (aclprofStepInfo *stepinfo))
