"""Running a dynamic-shape model from Python (pyACL): the real input dims go into the input dataset's tensor
descriptions (acl.mdl.set_dataset_tensor_desc), the output buffers are sized by the caller, and the outputs'
real dims come back from the output dataset's descriptions (acl.mdl.get_dataset_tensor_desc)."""

from __future__ import annotations

import numpy as np
from exec_helpers import DeviceBuffers

import acl
from ascendcl import ACL_FORMAT_ND, ACL_SUCCESS, aclGetRecentErrMsg, aclmdlExecute
from ascendsim.compiler.ir import DType


def set_input_descs(buffers: DeviceBuffers, arrays: list[np.ndarray]) -> None:
    for i, array in enumerate(arrays):
        desc = acl.create_tensor_desc(int(DType.of_numpy(array.dtype)), list(array.shape), ACL_FORMAT_ND)
        _, ret = acl.mdl.set_dataset_tensor_desc(buffers.dataset, desc, i)
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        acl.destroy_tensor_desc(desc)


def output_dims(buffers: DeviceBuffers, index: int) -> list[int]:
    desc = acl.mdl.get_dataset_tensor_desc(buffers.dataset, index)
    assert desc, "no output description after the execution"
    return [acl.get_tensor_desc_dim(desc, i) for i in range(acl.get_tensor_desc_num_dims(desc))]


def execute_dynamic(model_id: int, inputs: list[np.ndarray], capacity: list[tuple[np.dtype, int]]
                    ) -> tuple[int, list[np.ndarray]]:
    """One aclmdlExecute; `capacity` is (dtype, elements) of each output buffer. Returns the error code and the
    outputs shaped by their reported dims (empty on failure)."""
    ins = DeviceBuffers(inputs)
    outs = DeviceBuffers([np.zeros(n, dtype) for dtype, n in capacity])
    try:
        set_input_descs(ins, inputs)
        ret = aclmdlExecute(model_id, ins.dataset, outs.dataset)
        if ret != ACL_SUCCESS:
            return ret, []
        results = []
        for i, flat in enumerate(outs.read()):
            dims = output_dims(outs, i)
            results.append(flat[: int(np.prod(dims))].reshape(dims))
        return ret, results
    finally:
        ins.close()
        outs.close()
