"""Every kernel variant keeps its register tiles' accumulators in registers: no innermost loop of the tiled
functions (GEMM tiles, depthwise planes and blocks) that multiplies stores a vector to the stack (spill_check.py;
docs/kernels.md). The AVX2 build of the AVX-512-sized tiles this replaced failed it: its wide GEMM loop wrote 68
vectors to the stack per iteration. (The polynomial loops of exp, erf and tanh keep some of their constants on
the stack with 16 registers and read them as operands: not accumulators, not checked.) Nor does any kernel clear
memory with a string store on every call (spill_check.string_stores)."""

from __future__ import annotations

import shutil

import pytest
from kernel_build import OPTIMIZED, ROOT, variants
from spill_check import (
    TILE_FUNCTIONS,
    TILED,
    string_stores,
    tiled_in,
    variant_disassembly,
    variant_loops,
    vectors_stored_to_stack_per_function,
)

pytestmark = pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")


@pytest.fixture(scope="module")
def loops() -> dict:
    return variant_loops(ROOT / "build" / "kernel_driver", OPTIMIZED)


@pytest.fixture(scope="module")
def disassembly() -> dict:
    return variant_disassembly(ROOT / "build" / "kernel_driver", OPTIMIZED)


@pytest.mark.parametrize("variant", [name for name, _ in variants()])
def test_multiply_loops_do_not_spill(loops: dict, variant: str) -> None:
    arithmetic = [loop for loop in loops[variant] if loop.multiply_adds]
    tiled = {loop.function for loop in arithmetic}
    # The register-tiled loops were found at all (the check would pass vacuously otherwise).
    assert tiled_in(variant) <= tiled, tiled
    spilling = [loop for loop in arithmetic if loop.spills and loop.function in TILED]
    assert not spilling, spilling


@pytest.mark.parametrize("variant", [name for name, _ in variants()])
def test_no_kernel_clears_memory_per_call(disassembly: dict, variant: str) -> None:
    # `vf acc[6][2] = {}` in the wide GEMM tile became a `rep stos` of 384 bytes per call (the array also had a
    # home in memory), 15% of a 40-deep grouped 1x1 conv on a Zen 3; accumulators are now set element by element.
    assert "::isa_" in disassembly[variant]  # the variant's functions were found at all
    assert string_stores(disassembly[variant]) == []


@pytest.mark.parametrize("variant", [name for name, _ in variants()])
def test_tile_functions_keep_their_accumulators_in_registers_for_the_whole_call(disassembly: dict, variant: str) -> None:
    # Loops over a tile's fixed extents unrolled before GCC places its arrays (ASCENDSIM_UNROLL_TILE, simd.h):
    # without, the blocked conv tiles copied every accumulator to the stack and back around the loops over the sum.
    stored = vectors_stored_to_stack_per_function(disassembly[variant])
    tiles = {name: count for name, count in stored.items() if name in TILE_FUNCTIONS}
    assert set(tiles) == set(TILE_FUNCTIONS), tiles  # found at all
    assert all(count == 0 for count in tiles.values()), tiles
