"""The runtime calls both fuzzers make on a model image: query, load, describe, execute, unload.

`load_and_run(image)`: `aclmdlQuerySizeFromMem`, `aclmdlLoadFromMem`; when loaded, `aclmdlGetDesc` and every
description query per input and output, one index past the end included (sizes, dims, names, formats, dtypes,
index by name, dynamic batch/HW, gear counts), then `aclmdlExecute` with device buffers of exactly the sizes the
description gives (filled with 0x3C bytes; the first dynamic batch set when the model has gears; skipped when a
buffer would exceed MAX_BUFFER), then unload. The result is the first non-zero error code (a refusal) or 0 (the
model was accepted and ran). Exceptions are not caught here: the harness counts them as tracebacks.
"""

from __future__ import annotations

import harness

MAX_BUFFER = 64 << 20  # an input or output larger than this is not executed (the load itself still is)


def setup() -> None:
    from ascendcl import aclInit, aclrtSetDevice

    aclInit("")
    aclrtSetDevice(0)


def load_and_run(image: bytes) -> harness.Outcome:
    import acl
    from ascendcl import aclmdlLoadFromMem, aclmdlQuerySizeFromMem, aclmdlUnload

    pointer = acl.util.bytes_to_ptr(image)  # `image` stays referenced until the end of the case
    aclmdlQuerySizeFromMem(pointer, len(image))
    model_id, ret = aclmdlLoadFromMem(pointer, len(image))
    if ret:
        return harness.Outcome("refused", ret)
    try:
        ret = _describe_and_execute(model_id)
    finally:
        unloaded = aclmdlUnload(model_id)
    ret = ret or unloaded
    return harness.Outcome("refused", ret) if ret else harness.Outcome("accepted")


def _describe_and_execute(model_id: int) -> int:
    import ascendcl as a

    desc = a.aclmdlCreateDesc()
    try:
        ret = a.aclmdlGetDesc(desc, model_id)
        if ret:
            return ret
        sizes = []
        for side, count in (("Input", a.aclmdlGetNumInputs(desc)), ("Output", a.aclmdlGetNumOutputs(desc))):
            for i in range(count + 1):  # one past the end too
                size = getattr(a, f"aclmdlGet{side}SizeByIndex")(desc, i)
                getattr(a, f"aclmdlGet{side}Dims")(desc, i)
                name = getattr(a, f"aclmdlGet{side}NameByIndex")(desc, i)
                getattr(a, f"aclmdlGet{side}Format")(desc, i)
                getattr(a, f"aclmdlGet{side}DataType")(desc, i)
                if isinstance(name, str):
                    getattr(a, f"aclmdlGet{side}IndexByName")(desc, name)
                if i < count:
                    sizes.append((side, size))
            a.aclmdlGetInputDimsV2(desc, 0)
            a.aclmdlGetCurOutputDims(desc, 0)
        batch, ret = a.aclmdlGetDynamicBatch(desc)
        a.aclmdlGetDynamicHW(desc, 0)
        a.aclmdlGetInputDynamicGearCount(desc, 0)
        return _execute(model_id, desc, sizes, batch if not ret else {})
    finally:
        a.aclmdlDestroyDesc(desc)


def _execute(model_id: int, desc: int, sizes: list[tuple[str, int]], batch: dict[str, object]) -> int:
    import ascendcl as a

    if any(size > MAX_BUFFER for _, size in sizes):
        return 0
    datasets = {"Input": a.aclmdlCreateDataset(), "Output": a.aclmdlCreateDataset()}
    held: list[tuple[int, int]] = []
    try:
        for side, size in sizes:
            pointer, ret = a.aclrtMalloc(max(size, 1), 0)
            if ret:
                return ret
            a.aclrtMemset(pointer, max(size, 1), 0x3C, max(size, 1))
            buffer = a.aclCreateDataBuffer(pointer, size)
            held.append((pointer, buffer))
            a.aclmdlAddDatasetBuffer(datasets[side], buffer)
        gears = batch.get("batch") if isinstance(batch, dict) else None
        if isinstance(gears, list) and gears and gears[0] > 0:
            index, ret = a.aclmdlGetInputIndexByName(desc, a.ACL_DYNAMIC_TENSOR_NAME)
            ret = ret or a.aclmdlSetDynamicBatchSize(model_id, datasets["Input"], index, gears[0])
            if ret:
                return ret
        return int(a.aclmdlExecute(model_id, datasets["Input"], datasets["Output"]))
    finally:
        for pointer, buffer in held:
            a.aclDestroyDataBuffer(buffer)
            a.aclrtFree(pointer)
        for dataset in datasets.values():
            a.aclmdlDestroyDataset(dataset)


