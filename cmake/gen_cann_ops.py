"""Generate the compiler's table of CANN operators from csrc/op/cann_ops.def, the one list of the single
operators ascendsim runs, so `atc --singleop` refuses exactly the op types the runtime does not know. Run by
CMake at build time:

    python gen_cann_ops.py OUTPUT csrc/op/cann_ops.def

Each `CANN_OP(<op type>, <kernel>, <family>, <min inputs>, <max inputs>, <outputs>, ...)` line gives the op
type and its input/output counts (-1: dynamic); ATC checks that an entry has at least the inputs and outputs
the operator's IR requires.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LINE = re.compile(r"^CANN_OP\(\s*(\w+)")
COLUMNS = re.compile(r"^CANN_OP\(\s*(\w+)\s*,\s*\w+\s*,\s*\w+\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,")


def ops_of(table: str) -> dict[str, tuple[int, int]]:
    """op type -> (required inputs, required outputs; 0 when the count is dynamic)."""
    ops: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(table.splitlines(), 1):
        if not LINE.match(line):
            continue
        match = COLUMNS.match(line)
        if match is None:
            raise SystemExit(f"gen_cann_ops: cann_ops.def:{number}: cannot read the columns of {line.strip()!r}")
        name, min_inputs, _max_inputs, outputs = match.groups()
        if name in ops:
            raise SystemExit(f"gen_cann_ops: cann_ops.def:{number}: {name} is listed twice")
        ops[name] = (max(int(min_inputs), 0), max(int(outputs), 0))
    if not ops:
        raise SystemExit("gen_cann_ops: cann_ops.def lists no operator")
    return ops


def main(output: str, table: str) -> None:
    ops = ops_of(Path(table).read_text())
    lines = ['"""The CANN operators ascendsim runs (generated from csrc/op/cann_ops.def): op type -> (required',
             'inputs, required outputs)."""', "", "CANN_OPS: dict[str, tuple[int, int]] = {"]
    lines += [f"    {name!r}: {counts!r}," for name, counts in sorted(ops.items())]
    lines += ["}", ""]
    Path(output).write_text("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
