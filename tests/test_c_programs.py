"""C and C++ programs built against the installed headers and libascendcl.so, the way users build them:
directly with gcc/g++, as an official sample's CMake project after `eval "$(ascendsim env)"`, and with
find_package(ascendcl)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from acl_helpers import TESTS, Compiler, toolkit_env


def test_c_runtime_flow(compiler: Compiler) -> None:
    program = compiler.build(TESTS / "c" / "runtime_flow.c")
    result = compiler.run(program)
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout + result.stderr


def test_cpp_callback_flow(compiler: Compiler) -> None:
    program = compiler.build(TESTS / "c" / "callback_flow.cpp")
    result = compiler.run(program)
    assert result.returncode == 0 and "ok callbacks=5" in result.stdout, result.stdout + result.stderr


def ascendsim_command() -> list[str]:
    script = Path(sys.executable).with_name("ascendsim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ascendsim"]


SAMPLE_CMAKE = """
# CMake lists of the official AscendCL samples (src/CMakeLists.txt), reduced to what they read.
cmake_minimum_required(VERSION 3.5.1)
project(ACL_SAMPLE)
add_definitions(-DENABLE_DVPP_INTERFACE)
set(CMAKE_CXX_FLAGS_DEBUG "-fPIC -O0 -g -Wall")
set(CMAKE_CXX_FLAGS_RELEASE "-fPIC -O2 -Wall")
set(INC_PATH $ENV{DDK_PATH})
if (NOT DEFINED ENV{DDK_PATH})
    set(INC_PATH "/usr/local/Ascend/ascend-toolkit/latest")
endif()
set(LIB_PATH $ENV{NPU_HOST_LIB})
if (NOT DEFINED ENV{NPU_HOST_LIB})
    set(LIB_PATH "/usr/local/Ascend/ascend-toolkit/latest/runtime/lib64/stub")
endif()
include_directories(${INC_PATH}/runtime/include/ $ENV{INSTALL_DIR}/runtime/include/ ../inc/)
link_directories(${LIB_PATH} $ENV{ASCEND_TOOLKIT_HOME}/lib64)
add_executable(main main.cpp)
target_link_libraries(main ascendcl stdc++)
install(TARGETS main DESTINATION ${CMAKE_CURRENT_LIST_DIR}/../out)
"""

SAMPLE_MAIN = """
#include <iostream>
#include "acl/acl.h"
int main() {
    if (aclInit("../src/acl.json") != ACL_SUCCESS) { std::cout << aclGetRecentErrMsg() << std::endl; return 1; }
    aclrtRunMode mode;
    aclrtSetDevice(0);
    aclrtGetRunMode(&mode);
    void* buffer = nullptr;
    if (aclrtMalloc(&buffer, 1024, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
    aclrtFree(buffer);
    aclrtResetDevice(0);
    aclFinalize();
    std::cout << "sample ok run_mode=" << mode << std::endl;
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("make") is None, reason="needs cmake and make")
def test_official_sample_layout_builds_with_ascendsim_env(tmp_path: Path) -> None:
    sample = tmp_path / "sample"
    (sample / "src").mkdir(parents=True)
    (sample / "src" / "CMakeLists.txt").write_text(SAMPLE_CMAKE)
    (sample / "src" / "main.cpp").write_text(SAMPLE_MAIN)
    (sample / "src" / "acl.json").write_text("{}")
    build = sample / "build" / "intermediates" / "host"
    build.mkdir(parents=True)
    env_command = " ".join(ascendsim_command()) + " env"
    script = textwrap.dedent(f"""
        set -e
        eval "$({env_command})"
        cd {build}
        cmake ../../../src -DCMAKE_CXX_COMPILER=g++ -DCMAKE_SKIP_RPATH=TRUE > cmake.log
        make > make.log
        cd {sample / 'src'}
        {build / 'main'}
    """)
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "sample ok run_mode=1" in result.stdout, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_find_package_ascendcl(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(textwrap.dedent("""
        cmake_minimum_required(VERSION 3.10)
        project(uses_ascendcl CXX)
        find_package(ascendcl REQUIRED)
        add_executable(main main.cpp)
        target_link_libraries(main ascendcl::ascendcl)
    """))
    (project / "main.cpp").write_text(SAMPLE_MAIN)
    (project / "acl.json").write_text("{}")
    env = toolkit_env()
    build = tmp_path / "build"
    for command in (["cmake", "-S", str(project), "-B", str(build)], ["cmake", "--build", str(build)]):
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "acl.json").write_text("{}")
    result = subprocess.run([str(build / "main")], capture_output=True, text=True, env=env, cwd=build, check=False)
    assert result.returncode == 0 and "sample ok" in result.stdout, result.stdout + result.stderr


def test_env_command_exports() -> None:
    result = subprocess.run([*ascendsim_command(), "env"], capture_output=True, text=True, check=False)
    assert result.returncode == 0
    for name in ("DDK_PATH", "INSTALL_DIR", "ASCEND_TOOLKIT_HOME", "NPU_HOST_LIB", "LD_LIBRARY_PATH",
                 "CMAKE_PREFIX_PATH"):
        assert f"export {name}=" in result.stdout


def test_one_runtime_state_for_both_faces(compiler: Compiler, tmp_path: Path) -> None:
    # A C library loaded into this Python process sees the device memory Python allocated.
    library = compiler.build("""
        #include "acl/acl.h"
        int fill_device(void* device, size_t size) {
            return aclrtMemset(device, size, 0x11, size);
        }
    """, name="libfill.so", extra=["-shared", "-fPIC"])
    import ctypes

    import numpy as np

    from ascendcl import (
        ACL_MEMCPY_DEVICE_TO_HOST,
        aclrtFree,
        aclrtMalloc,
        aclrtMemcpy,
        aclrtResetDevice,
        aclrtSetDevice,
    )

    assert aclrtSetDevice(0) == 0
    pointer, ret = aclrtMalloc(64, 0)
    assert ret == 0
    fill = ctypes.CDLL(str(library)).fill_device
    fill.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    assert fill(pointer, 64) == 0
    out = np.zeros(64, np.uint8)
    assert aclrtMemcpy(out.ctypes.data, 64, pointer, 64, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert (out == 0x11).all()
    assert aclrtFree(pointer) == 0 and aclrtResetDevice(0) == 0
