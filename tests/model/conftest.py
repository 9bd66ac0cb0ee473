"""The kernel tests' driver (kernel_harness.py): built once per session, and given once per kernel variant this
CPU runs (ASCENDSIM_ISA), so that every variant's loops are checked against numpy and onnxruntime. With
--kernel-target=aarch64 the driver is cross-compiled for aarch64 and its variants run under qemu-user."""

from __future__ import annotations

from pathlib import Path

import aarch64_target
import pytest
from kernel_build import HOST, Target
from kernel_harness import Driver, build_driver, runnable_variants

CACHE = Path(__file__).resolve().parents[2] / "build" / "kernel_driver"


def target_of(config: pytest.Config) -> Target:
    if config.getoption("--kernel-target") == "host":
        return HOST
    if reason := aarch64_target.unavailable():
        raise pytest.UsageError(f"--kernel-target=aarch64 {reason}")
    return aarch64_target.target()


@pytest.fixture(scope="session")
def kernel_target(pytestconfig: pytest.Config) -> Target:
    return target_of(pytestconfig)


@pytest.fixture(scope="session")
def driver_program(kernel_target: Target) -> Path:
    return build_driver(CACHE, kernel_target)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every variant, or only the best one in a module that sets KERNEL_VARIANTS = "best"."""
    if "driver" in metafunc.fixturenames:
        target = target_of(metafunc.config)
        variants = runnable_variants(build_driver(CACHE, target), target)
        if getattr(metafunc.module, "KERNEL_VARIANTS", "all") == "best":
            variants = variants[-1:]
        metafunc.parametrize("isa", variants, scope="session")


@pytest.fixture(scope="session")
def driver(driver_program: Path, isa: str, kernel_target: Target) -> Driver:
    return Driver(driver_program, isa, kernel_target.runner)


@pytest.fixture(params=["1", "2"])
def threads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The kernel driver's pool threads (ASCENDSIM_NUM_THREADS): 1 and 2."""
    monkeypatch.setenv("ASCENDSIM_NUM_THREADS", request.param)
    return str(request.param)
