"""Ascend C kernels (tests/ascendc/vector_kernels.asc: a tiled add with a tail, a row reduction, a half softmax)
through every launch path, against numpy (ascendc_cases.py): the CPU-debug mode (g++ -DASCENDC_CPU_DEBUG,
ICPU_RUN_KF), the kernel-launch syntax (bisheng, <<<>>>), the kernel-binary API from C (aclrtBinaryLoad
and its FromFile / FromData forms, aclrtLaunchKernel) and from Python (ascendsim.ascendc.Module)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import acl
import ascendsim
from acl_helpers import Compiler
from ascendc_build import bisheng
from ascendc_cases import KERNELS, check_outputs, free_all, from_device, to_device, write_inputs
from ascendcl import ACL_ERROR_RT_INVALID_HANDLE, aclGetRecentErrMsg, aclrtLaunchKernel
from ascendsim import ascendc


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every program built once for the module."""
    work = tmp_path_factory.mktemp("ascendc_launch")
    compiler = Compiler(work)
    built = {
        "cpu": compiler.build(KERNELS / "cpu_debug_main.cpp",
                              extra=["-O2", "-DASCENDC_CPU_DEBUG", f"-I{KERNELS}", "-lplatform", "-ltiling_api"]),
        "binary": compiler.build(KERNELS / "binary_main.c"),
    }
    bisheng("-x", "asc", "--npu-arch=dav-2201", "-O2", str(KERNELS / "launch_main.asc"), "-o", str(work / "launch"))
    bisheng("-shared", "-fPIC", "--npu-soc=Ascend910B1", "--npu-arch=dav-2201", "-O2", "-x", "asc",
            str(KERNELS / "vector_kernels.asc"), "-o", str(work / "vector_kernels.so"))
    built["launch"] = work / "launch"
    built["kernels"] = work / "vector_kernels.so"
    return built


def run_case(tmp_path: Path, program: Path, *args: str) -> str:
    inputs = write_inputs(tmp_path)
    done = Compiler(tmp_path).run(program, *args, str(tmp_path))
    assert done.returncode == 0 and done.stdout.startswith("ok"), done.stdout + done.stderr
    check_outputs(tmp_path, inputs)
    return done.stdout


def test_cpu_debug_mode(tmp_path: Path, programs: dict[str, Path]) -> None:
    # platform_ascendc answers from the SoC table: Ascend910B1 has 24 AIC + 48 AIV and a 192 KiB UB.
    assert "aiv=48 aic=24 ub=196608 910b=1" in run_case(tmp_path, programs["cpu"])


@pytest.mark.parametrize(("soc", "code"), [("Ascend910B1", 507035), ("Ascend910A", 507015)])
def test_cpu_debug_fault_stops_the_program(tmp_path: Path, programs: dict[str, Path], soc: str, code: int) -> None:
    # The separated SoCs' vector kernels fault as a vector core (507035), the coupled ones as an AI Core (507015).
    done = Compiler(tmp_path).run(programs["cpu"], str(tmp_path), "fault", env={"ASCENDSIM_SOC_NAME": soc})
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"EE{code}" in done.stderr and "kernel read_past_end, block 1 of 2: DataCopy" in done.stderr, done.stderr
    assert "past the end of the GmAlloc buffer of 256 bytes" in done.stderr, done.stderr


def test_kernel_launch_syntax(tmp_path: Path, programs: dict[str, Path]) -> None:
    run_case(tmp_path, programs["launch"])


@pytest.mark.parametrize("load", ["binary", "file", "data"])
def test_binary_api_from_c(tmp_path: Path, programs: dict[str, Path], load: str) -> None:
    # aclrtCreateBinary + aclrtBinaryLoad, aclrtBinaryLoadFromFile, aclrtBinaryLoadFromData (with options).
    assert f"ok {load}" in run_case(tmp_path, programs["binary"], str(programs["kernels"]), load)


def test_binary_api_from_python(tmp_path: Path, stream: int, programs: dict[str, Path]) -> None:
    inputs = write_inputs(tmp_path)
    module = ascendc.Module(programs["kernels"].read_bytes())
    x, y = to_device(inputs["add_x"]), to_device(inputs["add_y"])
    z = to_device(np.zeros_like(inputs["add_x"]))
    tiling = np.array([inputs["add_x"].size, 256], dtype=np.uint32)  # struct AddTiling
    module.add_custom[8, stream](x, y, z, tiling)
    s = to_device(inputs["stats_x"])
    sums, maxes = to_device(np.zeros(37, np.float32)), to_device(np.zeros(37, np.float32))
    module.row_stats[4, stream](s, sums, maxes, 37, 64)
    h = to_device(inputs["softmax_x"])
    out = to_device(np.zeros_like(inputs["softmax_x"]))
    module.softmax_rows[5, stream](h, out, 13, 128)
    assert acl.rt.synchronize_stream(stream) == 0
    from_device(z, inputs["add_x"]).tofile(tmp_path / "add_z.bin")
    from_device(sums, np.zeros(37, np.float32)).tofile(tmp_path / "stats_sum.bin")
    from_device(maxes, np.zeros(37, np.float32)).tofile(tmp_path / "stats_max.bin")
    from_device(out, inputs["softmax_x"]).tofile(tmp_path / "softmax_y.bin")
    check_outputs(tmp_path, inputs)
    free_all([x, y, z, s, sums, maxes, h, out])
    module.unload()


def test_two_streams_launch_at_once(device: int, programs: dict[str, Path]) -> None:
    module = ascendc.Module(programs["kernels"].read_bytes())
    rng = np.random.default_rng(2)
    n = 1 << 16
    streams, outputs, expected, inputs = [], [], [], []
    for k in range(2):
        stream, ret = acl.rt.create_stream()
        assert ret == 0
        x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        inputs += [to_device(x), to_device(y)]
        outputs.append(to_device(np.zeros(n, np.float32)))
        module.add_custom[8 + k, stream](inputs[-2], inputs[-1], outputs[-1], np.array([n, 1024], np.uint32))
        streams.append(stream)
        expected.append(x + y)
    for stream, z, want in zip(streams, outputs, expected):
        assert acl.rt.synchronize_stream(stream) == 0
        np.testing.assert_array_equal(from_device(z, want), want)
        assert acl.rt.destroy_stream(stream) == 0
    free_all(inputs + outputs)
    module.unload()


def test_profiler_shows_the_launches(tmp_path: Path, programs: dict[str, Path]) -> None:
    output = tmp_path / "prof"
    output.mkdir()
    write_inputs(tmp_path)
    done = Compiler(tmp_path).run(programs["launch"], str(tmp_path), env={"ASCENDSIM_PROFILE": str(output)})
    assert done.returncode == 0, done.stdout + done.stderr
    events = ascendsim.load_trace(output)["traceEvents"]
    launches = [e for e in events if e.get("name") == "LaunchKernel" and e.get("ph") == "X"]
    assert sorted(e["args"]["blockDim"] for e in launches) == [2, 4, 5, 8], launches


def test_unload_with_a_launch_queued(stream: int, programs: dict[str, Path]) -> None:
    """A launch queued before aclrtBinaryUnLoad still runs (it holds the code); the function handle is dead after."""
    module = ascendc.Module(programs["kernels"].read_bytes())
    kernel = module.add_custom
    n = 4096
    x = np.arange(n, dtype=np.float32)
    a, b, z = to_device(x), to_device(x), to_device(np.zeros(n, np.float32))
    tiling = np.array([n, 256], np.uint32)
    kernel[4, stream](a, b, z, tiling)
    module.unload()
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(from_device(z, x), 2 * x)
    packed = np.frombuffer(kernel.pack(a, b, z, tiling), np.uint8)
    assert aclrtLaunchKernel(kernel.func, 4, packed.ctypes.data, packed.size, stream) == ACL_ERROR_RT_INVALID_HANDLE
    assert "is not a live kernel function" in aclGetRecentErrMsg()
    free_all([a, b, z])


def test_soc_info_from_python() -> None:
    # The figures platform_ascendc answers, from the SoC table (csrc/ascendc/soc_spec.cpp).
    info = ascendc.soc_info()
    assert (info["name"], info["vector_cores"], info["cube_cores"], info["ub_size"]) == ("Ascend910B1", 48, 24, 196608)
    assert info["separated"] is True
    coupled = ascendc.soc_info("Ascend910A")
    assert (coupled["ub_size"], coupled["separated"]) == (262144, False)
    with pytest.raises(ascendc.LaunchError, match='SoC "Ascend999" is not in the emulator'):
        ascendc.soc_info("Ascend999")
