"""The two sides of a model row, as the measuring processes (workers.py) prepare them: our loaded .om with its
device datasets (Ours), an onnxruntime session with its IOBinding (Peer), the sink rows' single operators
dispatched one by one (SingleOps), and the names the timed statements use."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper

import acl
from ascendcl import ACL_FLOAT, ACL_FORMAT_ND, ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_HOST_TO_DEVICE
from ascendsim.compiler.ir import DType

from .model_files import SINK_OPS


def random_feeds(onnx_path: Path, dynamic: int = 1) -> dict[str, np.ndarray]:
    """Random float inputs; integer inputs (token ids, masks, types) are 0 or 1, valid for every model here. A
    dynamic dim (a dim_param) is `dynamic`."""
    rng = np.random.default_rng(0)
    feeds = {}
    for value in onnx.load(str(onnx_path), load_external_data=False).graph.input:
        kind = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dynamic for d in kind.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(kind.elem_type)
        feeds[value.name] = (rng.standard_normal(shape).astype(dtype) if np.issubdtype(dtype, np.floating)
                             else rng.integers(0, 2, shape).astype(dtype))
    return feeds


def check(ret: int, what: str) -> None:
    if ret != 0:
        raise RuntimeError(f"ascendsim bench: {what} failed with {ret}: {acl.get_recent_err_msg()}")


class Ours:
    """A loaded .om with device datasets, as a pyACL program prepares them: inputs copied in once, outputs
    sized by the model description. A dynamic-shape model's inputs get descriptions of the feeds' dims, and its
    outputs of unknown size (0) the bytes of `output_bytes` (the outputs ORT gave for the feeds)."""

    def __init__(self, om_path: Path, feeds: dict[str, np.ndarray], output_bytes: Sequence[int] = (),
                 load_env: dict[str, str] | None = None) -> None:
        # Settings read when a model loads (a dynamic-shape model's ASCENDSIM_V2_EXECUTOR, ASCENDSIM_MODEL_STREAMS):
        # `load_env`'s for this load only, and no executor but the default unless it names one.
        settings: dict[str, str | None] = {"ASCENDSIM_V2_EXECUTOR": None, **(load_env or {})}
        saved = {key: os.environ.pop(key, None) for key in settings}
        os.environ.update({key: value for key, value in settings.items() if value is not None})
        try:
            self.model_id, ret = acl.mdl.load_from_file(str(om_path))
        finally:
            for key, value in saved.items():
                os.environ.pop(key, None)
                if value is not None:
                    os.environ[key] = value
        check(ret, f"load {om_path}")
        desc = acl.mdl.create_desc()
        check(acl.mdl.get_desc(desc, self.model_id), "get_desc")
        outputs = [acl.mdl.get_output_size_by_index(desc, i) or output_bytes[i]
                   for i in range(acl.mdl.get_num_outputs(desc))]
        dynamic = [any(d < 0 for d in acl.mdl.get_input_dims(desc, i)[0]["dims"]) for i in range(len(feeds))]
        acl.mdl.destroy_desc(desc)
        self.device: list[int] = []
        self.inputs = self._dataset([(a.nbytes, a.ctypes.data) for a in feeds.values()])
        for i, array in enumerate(feeds.values()):
            if dynamic[i]:
                real = acl.create_tensor_desc(int(DType.of_numpy(array.dtype)), list(array.shape), ACL_FORMAT_ND)
                check(acl.mdl.set_dataset_tensor_desc(self.inputs, real, i)[1], "set_dataset_tensor_desc")
                acl.destroy_tensor_desc(real)  # the dataset holds a copy
        self.outputs = self._dataset([(size, 0) for size in outputs])
        check(acl.mdl.execute(self.model_id, self.inputs, self.outputs), "execute")

    def _dataset(self, buffers: list[tuple[int, int]]) -> int:
        dataset = acl.mdl.create_dataset()
        for size, host in buffers:
            device, ret = acl.rt.malloc(max(size, 1), ACL_MEM_MALLOC_HUGE_FIRST)
            check(ret, "rt.malloc")
            self.device.append(device)
            if host:
                check(acl.rt.memcpy(device, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE), "rt.memcpy")
            _, ret = acl.mdl.add_dataset_buffer(dataset, acl.create_data_buffer(device, size))
            check(ret, "add_dataset_buffer")
        return dataset

    def close(self) -> None:
        for dataset in (self.inputs, self.outputs):
            for i in range(acl.mdl.get_dataset_num_buffers(dataset)):
                acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(dataset, i))
            acl.mdl.destroy_dataset(dataset)
        for device in self.device:
            acl.rt.free(device)
        acl.mdl.unload(self.model_id)


class Peer:
    """An onnxruntime session on the CPU provider, with an IOBinding of CPU OrtValues bound in advance. `optimise`:
    ORT's default graph optimisations, else none; `layout=False` keeps its fusions but not its layout pass
    (ORT_ENABLE_EXTENDED: on x86 the level above converts convolution chains to its blocked NCHWc layout)."""

    def __init__(self, onnx_path: Path, feeds: dict[str, np.ndarray], threads: int, optimise: bool,
                 layout: bool = True) -> None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        if not optimise:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        elif not layout:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        self.session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        self.feeds = feeds
        self.binding = self.session.io_binding()
        for name, array in feeds.items():
            self.binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(array))
        results = self.session.run(None, feeds)
        self.output_bytes = [np.asarray(result).nbytes for result in results]
        for output, result in zip(self.session.get_outputs(), results):
            self.binding.bind_ortvalue_output(output.name, ort.OrtValue.ortvalue_from_numpy(np.empty_like(result)))


class SingleOps:
    """SINK_OPS Adds of [1,4] floats dispatched one by one from Python, as a host-dispatch program does:
    acl.op.execute_v2 of the single-operator model in `directory` on a stream, then a synchronize."""

    def __init__(self, directory: Path) -> None:
        check(acl.op.set_model_dir(str(directory)), "op.set_model_dir")
        self.stream, ret = acl.rt.create_stream()
        check(ret, "rt.create_stream")
        self.desc = acl.create_tensor_desc(ACL_FLOAT, [1, 4], ACL_FORMAT_ND)
        self.attr = acl.op.create_attr()
        self.device: list[int] = []
        for _ in range(3):
            device, ret = acl.rt.malloc(16, ACL_MEM_MALLOC_HUGE_FIRST)
            check(ret, "rt.malloc")
            self.device.append(device)
        self.buffers = [acl.create_data_buffer(device, 16) for device in self.device]
        self.run()

    def run(self) -> None:
        execute_v2, descs, ins, outs = acl.op.execute_v2, [self.desc, self.desc], self.buffers[:2], self.buffers[2:]
        out_descs, attr, stream = [self.desc], self.attr, self.stream
        for _ in range(SINK_OPS):
            execute_v2("Add", descs, ins, out_descs, outs, attr, stream)
        check(acl.rt.synchronize_stream(stream), "op.execute_v2")

    def close(self) -> None:
        for buffer in self.buffers:
            acl.destroy_data_buffer(buffer)
        for device in self.device:
            acl.rt.free(device)
        acl.op.destroy_attr(self.attr)
        acl.destroy_tensor_desc(self.desc)
        acl.rt.destroy_stream(self.stream)


def statements(ours: Ours, peer: Peer | None) -> dict[str, object]:
    """What the timed statements name: ours and ORT's calls with their prepared arguments."""
    names: dict[str, object] = {"execute": acl.mdl.execute, "model_id": ours.model_id, "inputs": ours.inputs,
                                "outputs": ours.outputs}
    if peer is not None:
        names.update({"run": peer.session.run, "feeds": peer.feeds,
                      "run_with_iobinding": peer.session.run_with_iobinding, "binding": peer.binding})
    return names


OURS, ORT_RUN, ORT_IOBINDING = "execute(model_id, inputs, outputs)", "run(None, feeds)", "run_with_iobinding(binding)"
