"""Building Ascend C the ways CANN users do, with ascendsim's driver: bisheng's options (accepted, ignored,
refused), its source translation, the older two-file form through the toolkit tree's ccec, and a CMake project
with find_package(ASC) and the ASC language."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

import ascendsim
from acl_helpers import Compiler, toolkit_env
from ascendc_build import bisheng
from ascendc_cases import KERNELS
from ascendsim.ascendc import bisheng as driver
from ascendsim.ascendc.source import kernels_defined, rewrite_launches


def test_options_meaningless_on_a_cpu_are_accepted() -> None:
    inv = driver.parse(["-x", "asc", "--npu-arch=dav-2201", "--npu-soc=Ascend910B1", "--cce-auto-sync", "-O3", "-g",
                        "-fPIC", "-shared", "--std=c++17", "-I", "inc", "-Llib", "-lm", "-mllvm", "-cce-aicore-x",
                        "k.asc", "-o", "k.so"])
    assert inv.shared and inv.output == "k.so" and inv.sources == [(Path("k.asc"), "asc")]
    assert inv.compile_flags == ["-O3", "-g", "-fPIC", "-std=c++17", "-I", "inc"]
    assert inv.link_flags == ["-O3", "-g", "-fPIC", "-shared", "-Llib", "-lm"]


@pytest.mark.parametrize(("args", "message"), [
    (["--frobnicate", "k.asc"], "unknown option '--frobnicate'"),
    (["--npu-arch=dav-9999", "k.asc"], "unknown NPU architecture 'dav-9999'"),
    (["-x", "fortran", "k.f"], "unknown language 'fortran'"),
    (["k.txt"], "unknown file type"),
    (["-O2"], "no input files"),
])
def test_bad_invocations_are_refused(args: list[str], message: str) -> None:
    done = bisheng(*args, check=False)
    assert done.returncode == 2 and "bisheng: error: " in done.stderr and message in done.stderr, done.stderr


def test_translation() -> None:
    source = textwrap.dedent("""
        template <typename T> __global__ __aicore__ void generic(GM_ADDR x) {}
        extern "C" __global__ __aicore__ void declared(GM_ADDR x);
        extern "C" __global__ __aicore__ void defined(GM_ADDR x, uint32_t n) { /* k<<<1, 2, 3>>>(x) */ }
        __global__ __vector__ void other(GM_ADDR x)
        {
        }
        void host() { ns::defined<<<n, nullptr, s>>>(x, 3); const char* t = "a<<<b>>>("; }
    """)
    assert kernels_defined(source) == ["defined", "other"]
    out = rewrite_launches(source)
    assert '::AscendC::ascendsim_detail::launch(ns::defined, "ns::defined", n, nullptr, s)(x, 3);' in out
    assert "k<<<1, 2, 3>>>(x)" in out and '"a<<<b>>>("' in out  # comments and strings stay as they are
    assert out.count("\n") == source.count("\n")  # diagnostics keep their lines


def test_two_file_form_with_the_toolkit_ccec(tmp_path: Path) -> None:
    ccec = ascendsim.toolkit_root() / "compiler" / "ccec_compiler" / "bin" / "ccec"
    program = tmp_path / "scale"
    done = subprocess.run([str(ccec), "-x", "cce", str(KERNELS / "scale_kernel.cpp"), "--cce-aicore-arch=dav-c220-vec",
                           "-x", "c++", str(KERNELS / "scale_main.cpp"), "-o", str(program)],
                          capture_output=True, text=True, env=toolkit_env(), check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    run = Compiler(tmp_path).run(program)
    assert run.returncode == 0 and "ok scale" in run.stdout, run.stdout + run.stderr


def cmake_build(source: Path, build: Path) -> None:
    """Configures and builds a project in the environment `ascendsim env` gives."""
    for command in (["cmake", "-S", str(source), "-B", str(build)], ["cmake", "--build", str(build)]):
        done = subprocess.run(command, capture_output=True, text=True, env=toolkit_env(), check=False)
        assert done.returncode == 0, done.stdout + done.stderr


CMAKE_PROJECT = """
cmake_minimum_required(VERSION 3.16)
find_package(ASC REQUIRED)
project(scale_sample LANGUAGES CXX ASC)
add_executable(scale scale_kernel.asc main.asc)
target_compile_options(scale PRIVATE $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=dav-2201> $<$<COMPILE_LANGUAGE:ASC>:-O2>)
target_link_libraries(scale PRIVATE m dl platform tiling_api)
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_cmake_asc_language(tmp_path: Path) -> None:
    source, build = tmp_path / "src", tmp_path / "build"
    source.mkdir()
    shutil.copy(KERNELS / "scale_kernel.cpp", source / "scale_kernel.asc")
    shutil.copy(KERNELS / "scale_main.cpp", source / "main.asc")
    (source / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    cmake_build(source, build)
    run = Compiler(tmp_path).run(build / "scale")
    assert run.returncode == 0 and "ok scale" in run.stdout, run.stdout + run.stderr


INVOCATION_PROJECT = """
cmake_minimum_required(VERSION 3.16)
project(kernel_invocation LANGUAGES CXX)
set(ASCEND_CANN_PACKAGE_PATH $ENV{ASCEND_HOME_PATH})
include(${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake)
ascendc_library(kernels STATIC scale_kernel.cpp)
add_executable(main main.cpp)
target_include_directories(main PRIVATE ${ASCEND_CANN_PACKAGE_PATH}/include)
target_link_directories(main PRIVATE ${ASCEND_CANN_PACKAGE_PATH}/lib64)
target_link_libraries(main PRIVATE kernels ascendcl)
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_ascendc_library_and_aclrt_launch_kernel(tmp_path: Path) -> None:
    source, build = tmp_path / "src", tmp_path / "build"
    source.mkdir()
    shutil.copy(KERNELS / "scale_kernel.cpp", source / "scale_kernel.cpp")
    shutil.copy(KERNELS / "invocation_main.cpp", source / "main.cpp")
    (source / "CMakeLists.txt").write_text(INVOCATION_PROJECT)
    cmake_build(source, build)
    header = (build / "kernels_launch_headers" / "aclrtlaunch_scale.h").read_text()
    assert 'extern "C" uint32_t aclrtlaunch_scale(uint32_t blockDim, aclrtStream stream, void* x, void* y, float a, ' \
           "uint32_t n);" in header
    run = Compiler(tmp_path).run(build / "main")
    assert run.returncode == 0 and "ok invocation" in run.stdout, run.stdout + run.stderr
