"""Ascend C kernels from Python: compile a source into a kernel shared object with bisheng, load it through the
runtime's kernel-binary API (aclrtBinaryLoadFromData) and launch its kernels on a stream
(aclrtLaunchKernel), the arguments packed from the kernel's parameter list.

    mod = ascendsim.ascendc.compile(source)        # text of an .asc file, or a path to one
    mod.add_custom[blocks, stream](x, y, z, tiling) # device addresses as int, scalars, bytes for structs
    acl.rt.synchronize_stream(stream)

A device (aclrtSetDevice) must be current when the module is loaded. docs/ascendc.md."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import _core

__all__ = ["CompileError", "Kernel", "LaunchError", "Module", "compile"]

# ascendsimParamKind (include/ascendsim/ascendc_abi.h)
BYTES, POINTER, INT, UINT, FLOAT = range(5)
_INT_FORMATS = {1: "b", 2: "h", 4: "i", 8: "q"}
_FLOAT_FORMATS = {4: "f", 8: "d"}


class CompileError(RuntimeError):
    """bisheng refused the source; the message holds the compiler's output."""


class LaunchError(RuntimeError):
    """A runtime call of the launch path failed; `code` is its aclError."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _check(ret: int, what: str) -> None:
    if ret != 0:
        raise LaunchError(f"{what} failed with {ret}: {_core.aclGetRecentErrMsg()}", ret)


def soc_info(name: str = "") -> dict[str, object]:
    """The emulated SoC's figures (ASCENDSIM_SOC_NAME; or those of SoC `name`), as platform_ascendc answers them:
    name, ub_size, l1_size, l0a_size, l0b_size, l0c_size, l2_size, hbm_size (bytes), cube_cores, vector_cores,
    separated."""
    info, ret = _core.ascendsimGetSocInfo(name)
    _check(ret, "ascendsimGetSocInfo")
    return info


def compile(source: str | Path, *, options: Sequence[str] = (), name: str = "kernel") -> Module:
    """Builds `source` (Ascend C text, or a pathlib.Path of an .asc / .cpp file) with `bisheng -shared -fPIC -O2` and
    loads it on the current device. `options` are further bisheng options (-D..., -I..., --npu-arch=...)."""
    work = Path(tempfile.mkdtemp(prefix="ascendc-"))
    try:
        if isinstance(source, Path):
            path = source
        else:
            path = work / f"{name}.asc"
            path.write_text(source, encoding="utf-8")
        output = work / f"{name}.so"
        command = [sys.executable, "-m", "ascendsim.ascendc.bisheng", "-x", "asc", "-shared", "-fPIC", "-O2",
                   *options, str(path), "-o", str(output)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CompileError(f"bisheng failed ({done.returncode}):\n{done.stderr}{done.stdout}")
        return Module(output.read_bytes())
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Module:
    """A loaded kernel binary; its kernels are attributes (looked up by name on first use)."""

    def __init__(self, image: bytes) -> None:
        data = np.frombuffer(image, dtype=np.uint8)  # read by the load, not kept
        handle, ret = _core.aclrtBinaryLoadFromData(int(data.ctypes.data), len(image), 0)
        _check(ret, "aclrtBinaryLoadFromData")
        self._handle = handle
        self._kernels: dict[str, Kernel] = {}

    def __getattr__(self, name: str) -> Kernel:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._handle is None:
            raise LaunchError("the module was unloaded", 107017)
        if name not in self._kernels:
            func, ret = _core.aclrtBinaryGetFunction(self._handle, name)
            if ret != 0:
                raise AttributeError(f"no kernel {name!r}: {_core.aclGetRecentErrMsg()}")
            self._kernels[name] = Kernel(func)
        return self._kernels[name]

    def unload(self) -> None:
        """aclrtBinaryUnLoad (queued launches finish first on their own)."""
        if self._handle is not None:
            _check(_core.aclrtBinaryUnLoad(self._handle), "aclrtBinaryUnLoad")
            self._handle = None
            self._kernels.clear()


class Kernel:
    """One kernel: `kernel[blockDim, stream](*args)` queues a launch; `pack(*args)` shows the argument bytes."""

    def __init__(self, func: int) -> None:
        self.func = func
        text, ret = _core.ascendsimGetKernelParams(func)
        _check(ret, "ascendsimGetKernelParams")
        info = json.loads(text)
        self.name: str = info["name"]
        self.args_size: int = info["args_size"]
        self.params: list[dict[str, int]] = info["params"]

    def pack(self, *args: object) -> bytes:
        if len(args) != len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments, got {len(args)}")
        packed = bytearray(self.args_size)
        for index, (param, value) in enumerate(zip(self.params, args)):
            packed[param["offset"]:param["offset"] + param["size"]] = _pack_one(self.name, index, param, value)
        return bytes(packed)

    def __getitem__(self, config: tuple[int, int] | int) -> _Launch:
        block_dim, stream = (config, 0) if isinstance(config, int) else config
        return _Launch(self, int(block_dim), int(stream or 0))


class _Launch:
    def __init__(self, kernel: Kernel, block_dim: int, stream: int) -> None:
        self.kernel, self.block_dim, self.stream = kernel, block_dim, stream

    def __call__(self, *args: object) -> None:
        packed = np.frombuffer(self.kernel.pack(*args), dtype=np.uint8)
        address = int(packed.ctypes.data) if packed.size else 0
        _check(_core.aclrtLaunchKernel(self.kernel.func, self.block_dim, address, packed.size, self.stream),
               f"aclrtLaunchKernel({self.kernel.name})")


def _pack_one(kernel: str, index: int, param: dict[str, int], value: object) -> bytes:
    kind, size = param["kind"], param["size"]
    where = f"{kernel} argument {index}"
    if kind == POINTER:
        if not isinstance(value, (int, np.integer)):
            raise TypeError(f"{where} is a global-memory address: pass the device address as int")
        return struct.pack("<Q", int(value))
    if kind in (INT, UINT):
        code = _INT_FORMATS[size] if kind == INT else _INT_FORMATS[size].upper()
        return struct.pack("<" + code, int(value))  # type: ignore[call-overload]
    if kind == FLOAT:
        if size == 2:
            return np.float16(value).tobytes()  # type: ignore[arg-type]
        return struct.pack("<" + _FLOAT_FORMATS[size], float(value))  # type: ignore[arg-type]
    data = value.tobytes() if isinstance(value, (np.ndarray, np.generic)) else bytes(value)  # type: ignore[call-overload]
    if len(data) != size:
        raise TypeError(f"{where} is a {size}-byte struct, got {len(data)} bytes")
    return data
