"""Finds register spills in the innermost loops of the kernel variants (docs/kernels.md): disassembles every
variant's objects (objdump), takes each function's innermost loops (the address ranges of backward branches that
contain no other one) and counts the vector stores to the stack inside them, the mark of an accumulator that did
not fit in the registers (each one is written back and read again on every iteration). Reads of stack memory are
not counted: a table of weights kept on the stack is read as a memory operand by design.

    python tests/spill_check.py             # builds the variants into build/kernel_driver, prints the loops that multiply
    python tests/spill_check.py aarch64     # the same for aarch64's NEON variant (Debian's cross compiler)
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from kernel_build import HOST, OPTIMIZED, ROOT, Target, cached_variant_objects, variants

FUNCTION = re.compile(r"^([0-9a-f]+) <(.*)>:$")
INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
BRANCH = re.compile(r"^(j\w+|b|b\.\w+|cbn?z|tbn?z)$")  # x86 and aarch64
STACK = re.compile(r"\(%rsp\)|\(%rbp\)|\[sp[,\]]|\[x29[,\]]")
# A multiply-add, or SSE2's multiply (no FMA there): the arithmetic a register tile exists for. On aarch64 the
# vector (or by-element) fmla and fmls; fmadd / fmsub are scalar there and are not counted, like x86's ...ss.
MULTIPLY_ADD = re.compile(r"^(v?f(n)?m(add|sub)\w*p[sd]|fml[as]|mulps|vmulps)$")
# The register-tiled loops every variant has (gemm_tiles, depthwise_planes, depthwise_blocks): a check that
# finds none of one of them has read the wrong objects or functions were renamed.
TILED = ("narrow", "wide", "columns", "same", "polyphase", "stride2", "rows_of", "conv_block", "conv_tile", "depthwise_tile",
         "stem_tile", "stem_block_tile")
# Those that only the x86 variants with FMA have (depthwise_planes.cpp's row blocks).
X86_FMA_ONLY = ("rows_of",)


def tiled_in(variant: str) -> set[str]:
    """The register-tiled functions that variant `variant` compiles."""
    return set(TILED) - (set() if variant in ("avx2", "avx512") else set(X86_FMA_ONLY))


@dataclass
class Loop:
    function: str
    start: int
    end: int
    instructions: int
    multiply_adds: int
    spills: int  # vectors stored to the stack


def short_name(name: str) -> str:
    name = re.sub(r"^[\w:]+ (?=ascendsim::)", "", name)  # a template's return type
    name = re.sub(r"^ascendsim::kernels::isa_\w+::(\(anonymous namespace\)::)?", "", name)
    return re.sub(r"[<(].*", "", name)


def innermost_loops(disassembly: str) -> list[Loop]:
    loops: list[Loop] = []
    function, body = "", []
    for line in [*disassembly.splitlines(), ""]:
        if (match := FUNCTION.match(line)) or not line:
            loops += _loops_of(function, body)
            function, body = (match.group(2), []) if match else ("", [])
            continue
        if (ins := INSTRUCTION.match(line)) and function:
            body.append((int(ins.group(1), 16), ins.group(2), ins.group(3)))
    return loops


def _loops_of(function: str, body: list[tuple[int, str, str]]) -> list[Loop]:
    if "::isa_" not in function:
        return []
    ranges = []
    for address, mnemonic, operands in body:
        target = re.search(r"\b([0-9a-f]+) <", operands)
        if BRANCH.match(mnemonic) and target and int(target.group(1), 16) < address:
            ranges.append((int(target.group(1), 16), address))
    innermost = [r for r in ranges if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]
    loops = []
    for start, end in innermost:
        inside = [(m, o) for a, m, o in body if start <= a <= end]
        spills = sum(_vectors_stored_to_stack(m, o) for m, o in inside)
        multiply_adds = sum(1 for m, _ in inside if MULTIPLY_ADD.match(m))
        loops.append(Loop(short_name(function), start, end, len(inside), multiply_adds, spills))
    return loops


PACKED_MOVE = re.compile(r"^v?mov(u|a)p[sd]$|^v?movdq[ua](8|16|32|64)?$|^vextract[fi](128|32x4|64x4|32x8)$")


def _vectors_stored_to_stack(mnemonic: str, operands: str) -> int:
    """How many whole vectors (not scalar floats) the instruction stores to the stack."""
    if not STACK.search(operands):
        return 0
    if mnemonic in ("str", "stur", "stp"):  # aarch64: q registers are whole vectors; stp stores two
        return len(re.findall(r"\bq\d+\b", operands))
    if mnemonic == "st1":  # {v0.4s-v3.4s} or {v0.4s, v1.4s}
        if span := re.search(r"\{v(\d+)\.\w+-v(\d+)\.", operands):
            return int(span.group(2)) - int(span.group(1)) + 1
        return len(re.findall(r"\bv\d+\.", operands))
    # AT&T syntax: the destination is the last operand.
    return int(PACKED_MOVE.match(mnemonic) is not None and STACK.search(operands.rsplit(",", maxsplit=1)[-1]) is not None)


def variant_disassembly(cache: Path, flags: list[str], target: Target = HOST) -> dict[str, str]:
    """The disassembly of every variant's objects for `target`, built with `flags` (cached in `cache`)."""
    objects = cached_variant_objects(cache, flags, target)
    return {name: "".join(subprocess.run([target.tool("objdump"), "-d", "--no-show-raw-insn", "-C", str(o)],
                                         capture_output=True, text=True, check=True).stdout
                          for o in objects if o.name.startswith(name + "_"))
            for name, _ in variants(target)}


def variant_loops(cache: Path, flags: list[str], target: Target = HOST) -> dict[str, list[Loop]]:
    """The innermost loops of every variant's objects for `target`, built with `flags` (cached in `cache`)."""
    return {name: innermost_loops(text) for name, text in variant_disassembly(cache, flags, target).items()}


def string_stores(disassembly: str) -> list[str]:
    """The kernel functions that clear or fill memory with an x86 string store (`rep stos`): the mark of an
    accumulator array initialised with `= {}` that the compiler also keeps in memory, cleared on every call (the
    wide GEMM tile spent 15% of a shallow product's time there)."""
    found, function = [], ""
    for line in disassembly.splitlines():
        if match := FUNCTION.match(line):
            function = match.group(2)
        elif "rep stos" in line and "::isa_" in function:
            found.append(short_name(function))
    return sorted(set(found))


# The register tiles compiled as functions of their own (ASCENDSIM_TILE): whole calls, not only their loops, keep
# the accumulators in registers.
TILE_FUNCTIONS = ("conv_tile", "stem_block_tile", "depthwise_tile")


def vectors_stored_to_stack_per_function(disassembly: str) -> dict[str, int]:
    """Per kernel function (short name), the whole vectors it stores to the stack anywhere in its body: for a tile
    compiled alone, the mark of an accumulator array kept in memory between the loops over its sum, copied into
    registers before each and back after (the AVX-512 6 x 64 conv tile: 24 vectors each way on every call,
    ~100 cycles of a 16-deep tile's ~300)."""
    counts: dict[str, int] = {}
    function = ""
    for line in disassembly.splitlines():
        if match := FUNCTION.match(line):
            function = short_name(match.group(2)) if "::isa_" in match.group(2) else ""
            if function:
                counts.setdefault(function, 0)
        elif function and (ins := INSTRUCTION.match(line)):
            counts[function] += _vectors_stored_to_stack(ins.group(2), ins.group(3))
    return counts


def main(argv: list[str]) -> int:
    """Prints the innermost loops that multiply, per variant, with their spills."""
    target = HOST
    if argv[1:] == ["aarch64"]:
        import aarch64_target

        if reason := aarch64_target.missing_compilers():
            print(reason, file=sys.stderr)
            return 1
        target = aarch64_target.TOOLCHAIN
    found = variant_loops(ROOT / "build" / "kernel_driver", OPTIMIZED, target)
    for name, loops in found.items():
        arithmetic = [loop for loop in loops if loop.multiply_adds]
        print(f"{name}: {len(arithmetic)} innermost loops with multiply-adds, "
              f"{sum(loop.spills > 0 for loop in arithmetic)} of them spilling")
        for loop in arithmetic:
            mark = f", {loop.spills} vectors stored to the stack" if loop.spills else ""
            print(f"  {loop.function:16s} {loop.start:#07x}-{loop.end:#07x}: {loop.instructions} instructions, "
                  f"{loop.multiply_adds} multiply-adds{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
