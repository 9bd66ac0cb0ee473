"""acl.mdl: offline models. Model execution arrives with the model-execution work; until then these
return ACL_ERROR_API_NOT_SUPPORT (200001) with a message, as their C twins do."""

from ascendsim import _core

load_from_file = _core.aclmdlLoadFromFile
load_from_mem = _core.aclmdlLoadFromMem
load_from_file_with_mem = _core.aclmdlLoadFromFileWithMem
load_from_mem_with_mem = _core.aclmdlLoadFromMemWithMem
query_size = _core.aclmdlQuerySize
query_size_from_mem = _core.aclmdlQuerySizeFromMem
unload = _core.aclmdlUnload
create_desc = _core.aclmdlCreateDesc
destroy_desc = _core.aclmdlDestroyDesc
get_desc = _core.aclmdlGetDesc
get_num_inputs = _core.aclmdlGetNumInputs
get_num_outputs = _core.aclmdlGetNumOutputs
get_input_size_by_index = _core.aclmdlGetInputSizeByIndex
get_output_size_by_index = _core.aclmdlGetOutputSizeByIndex
create_dataset = _core.aclmdlCreateDataset
destroy_dataset = _core.aclmdlDestroyDataset
get_dataset_num_buffers = _core.aclmdlGetDatasetNumBuffers
get_dataset_buffer = _core.aclmdlGetDatasetBuffer
execute = _core.aclmdlExecute
execute_async = _core.aclmdlExecuteAsync
