"""`ascendsim demo`: the main job on the embedded default model, as an AscendCL inference sample does it.

1. Build the embedded default classifier (ascendsim.models.default_model) as ONNX and compile it with `atc`.
2. Run it through pyACL: init, device, context, stream, load the .om, describe it, build the input and
   output datasets, copy the input to the device, execute, copy the output back, unload, release.
3. Print the top-5 classes, the execute latency, and whether the numbers match the reference (onnxruntime
   when installed, else the compiler's numpy interpreter); with onnxruntime, also its latency on the same model
   (IOBinding, the same thread count) and the ratio, with the CPU and the kernel variant that ran. Each side runs
   a few untimed executions first, then the timed ones (100 by default: with a model of about a millisecond, 20
   left the medians of two runs 0.6 and 1.1 ms apart on a shared machine).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

import acl
from ascendcl import ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE

from .compiler import atc
from .cpu import describe
from .models import default_model
from .pyacl_checks import check, take

RTOL, ATOL = 1e-4, 1e-6  # force_fp32 keeps float32 end to end: only summation order differs
WARM_UP = 3  # untimed executions on each side before the timed ones


def compile_default_model(workdir: Path, image: int) -> tuple[onnx.ModelProto, Path]:
    model = default_model(image)
    onnx_path = workdir / "default_model.onnx"
    onnx.save(model, str(onnx_path))
    output = workdir / "default_model"
    code = atc.main([f"--model={onnx_path}", "--framework=5", f"--output={output}", "--soc_version="
                     + acl.get_soc_name(), f"--input_shape=input:1,3,{image},{image}", "--precision_mode=force_fp32"])
    if code != 0:
        raise RuntimeError("atc failed")
    return model, output.with_suffix(".om")


def threads() -> int:
    """The intra-op threads ascendsim runs with (ASCENDSIM_NUM_THREADS, else the CPUs this process may use)."""
    configured = os.environ.get("ASCENDSIM_NUM_THREADS", "")
    return int(configured) if configured.isdigit() and int(configured) >= 1 else len(os.sched_getaffinity(0))


def reference(model: onnx.ModelProto, image: np.ndarray, repeats: int) -> tuple[np.ndarray, str, list[float]]:
    """The expected output, who computed it, and onnxruntime's latencies in ms (none without onnxruntime)."""
    try:
        import onnxruntime
    except ImportError:
        from .compiler.host_kernels import run_graph
        from .compiler.onnx_import import import_onnx

        return run_graph(import_onnx(model), {"input": image})["output"], "the compiler's numpy interpreter", []
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads()
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    expected = session.run(None, {"input": image})[0]
    binding = session.io_binding()
    binding.bind_ortvalue_input("input", onnxruntime.OrtValue.ortvalue_from_numpy(image))
    binding.bind_ortvalue_output(session.get_outputs()[0].name,
                                 onnxruntime.OrtValue.ortvalue_from_numpy(np.empty_like(expected)))
    for _ in range(WARM_UP):
        session.run_with_iobinding(binding)
    latencies = []
    for _ in range(repeats):
        start = time.perf_counter()
        session.run_with_iobinding(binding)
        latencies.append((time.perf_counter() - start) * 1e3)
    return expected, f"onnxruntime {onnxruntime.__version__}", latencies


def infer(om_path: Path, image: np.ndarray, repeats: int) -> tuple[np.ndarray, list[float]]:
    """The sample flow of an AscendCL inference program, in pyACL."""
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    context = take(acl.rt.create_context(0), "acl.rt.create_context")
    stream = take(acl.rt.create_stream(), "acl.rt.create_stream")
    model_id = take(acl.mdl.load_from_file(str(om_path)), "acl.mdl.load_from_file")
    desc = acl.mdl.create_desc()
    check(acl.mdl.get_desc(desc, model_id), "acl.mdl.get_desc")

    datasets, device_buffers = [], []
    for count, size_of in ((acl.mdl.get_num_inputs(desc), acl.mdl.get_input_size_by_index),
                           (acl.mdl.get_num_outputs(desc), acl.mdl.get_output_size_by_index)):
        dataset = acl.mdl.create_dataset()
        for index in range(count):
            size = size_of(desc, index)
            pointer = take(acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST), "acl.rt.malloc")
            device_buffers.append(pointer)
            take(acl.mdl.add_dataset_buffer(dataset, acl.create_data_buffer(pointer, size)), "add_dataset_buffer")
        datasets.append(dataset)
    inputs, outputs = datasets
    dims = take(acl.mdl.get_output_dims(desc, 0), "acl.mdl.get_output_dims")["dims"]
    result = np.empty(dims, np.float32)

    input_ptr = acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(inputs, 0))
    check(acl.rt.memcpy(input_ptr, image.nbytes, image.ctypes.data, image.nbytes, ACL_MEMCPY_HOST_TO_DEVICE), "H2D")
    for _ in range(WARM_UP):  # the first executions touch the arena's pages and the kernels' scratch
        check(acl.mdl.execute(model_id, inputs, outputs), "acl.mdl.execute")
    latencies = []
    for _ in range(repeats):
        start = time.perf_counter()
        check(acl.mdl.execute(model_id, inputs, outputs), "acl.mdl.execute")
        latencies.append((time.perf_counter() - start) * 1e3)
    output_ptr = acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(outputs, 0))
    check(acl.rt.memcpy(result.ctypes.data, result.nbytes, output_ptr, result.nbytes, ACL_MEMCPY_DEVICE_TO_HOST),
          "D2H")

    for dataset in datasets:
        for index in range(acl.mdl.get_dataset_num_buffers(dataset)):
            check(acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(dataset, index)), "destroy_data_buffer")
        check(acl.mdl.destroy_dataset(dataset), "acl.mdl.destroy_dataset")
    for pointer in device_buffers:
        check(acl.rt.free(pointer), "acl.rt.free")
    check(acl.mdl.destroy_desc(desc), "acl.mdl.destroy_desc")
    check(acl.mdl.unload(model_id), "acl.mdl.unload")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return result, latencies


def run(image_size: int = 224, repeats: int = 100) -> bool:
    image = np.random.default_rng(2024).random((1, 3, image_size, image_size), dtype=np.float32)
    with tempfile.TemporaryDirectory() as work:
        model, om_path = compile_default_model(Path(work), image_size)
        result, latencies = infer(om_path, image, repeats)
    expected, peer, peer_latencies = reference(model, image, repeats)
    probabilities = result.reshape(-1)
    top5 = np.argsort(-probabilities)[:5]
    print("top-5: " + ", ".join(f"class {i} ({probabilities[i]:.5f})" for i in top5))
    print(f"aclmdlExecute latency: median {statistics.median(latencies):.3f} ms, min {min(latencies):.3f} ms "
          f"over {repeats} runs, {threads()} thread(s); {describe()}")
    if peer_latencies:
        ratio = statistics.median(latencies) / statistics.median(peer_latencies)
        print(f"{peer} latency (IOBinding, same threads): median {statistics.median(peer_latencies):.3f} ms, "
              f"min {min(peer_latencies):.3f} ms; ascendsim / onnxruntime: {ratio:.2f}x time")
    matches = bool(np.allclose(result, expected, rtol=RTOL, atol=ATOL))
    difference = float(np.max(np.abs(result - expected)))
    print(f"reference ({peer}): {'matches' if matches else 'DOES NOT MATCH'} "
          f"(max abs difference {difference:.2e}; rtol {RTOL}, atol {ATOL})")
    return matches
