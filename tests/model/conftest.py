"""The kernel tests' driver (kernel_harness.py): built once per session, and given once per kernel variant this
CPU runs (ASCENDSIM_ISA), so that every variant's loops are checked against numpy and onnxruntime."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernel_harness import Driver, build_driver, runnable_variants

CACHE = Path(__file__).resolve().parents[2] / "build" / "kernel_driver"


@pytest.fixture(scope="session")
def driver_program() -> Path:
    return build_driver(CACHE)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every variant, or only the best one in a module that sets KERNEL_VARIANTS = "best"."""
    if "driver" in metafunc.fixturenames:
        variants = runnable_variants(build_driver(CACHE))
        if getattr(metafunc.module, "KERNEL_VARIANTS", "all") == "best":
            variants = variants[-1:]
        metafunc.parametrize("isa", variants, scope="session")


@pytest.fixture(scope="session")
def driver(driver_program: Path, isa: str) -> Driver:
    return Driver(driver_program, isa)
