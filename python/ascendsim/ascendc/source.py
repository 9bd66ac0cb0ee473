"""What bisheng does to an Ascend C source before the host compiler sees it: every launch
`kernel<<<blockDim, l2ctrl, stream>>>(args...)` becomes a call of the launch glue of kernel_operator.h
(`launch(kernel, "kernel", blockDim, l2ctrl, stream)(args...)`), and every `__global__` kernel *defined* in the
file (not a template, not a declaration) is exported by name for aclrtBinaryGetFunction. Rewrites stay on their
line, and the result starts with a #line directive, so diagnostics point into the user's file."""

from __future__ import annotations

import re
from pathlib import Path

LAUNCH = re.compile(r"(?P<kernel>\b[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*(?:\s*<[^<>;(){}]*>)?)\s*<<<(?P<config>.*?)>>>"
                    r"\s*\(", re.DOTALL)
KERNEL = re.compile(r"__global__\s+(?:(?:__aicore__|__vector__|__cube__|__mix__\s*\([^)]*\)|inline)\s+)*void\s+"
                    r"(?P<name>[A-Za-z_]\w*)\s*\(")
# Comments and string literals, blanked (same length) before searching so that neither is mistaken for code.
NOISE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)


def _blank(text: str) -> str:
    return NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _closing_paren(code: str, start: int) -> int:
    """Index just past the ')' matching the '(' at code[start - 1]."""
    depth = 1
    i = start
    while i < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return i


def kernels_defined(text: str) -> list[str]:
    """Names of the non-template __global__ kernels the source defines, in order."""
    code = _blank(text)
    names = []
    for match in KERNEL.finditer(code):
        after = code[_closing_paren(code, match.end()):].lstrip()
        if not after.startswith("{"):
            continue  # a declaration
        declaration_start = max(code.rfind(";", 0, match.start()), code.rfind("}", 0, match.start()))
        if re.search(r"\btemplate\b", code[declaration_start + 1:match.start()]):
            continue  # a template kernel has no one name to export
        names.append(match.group("name"))
    return names


def rewrite_launches(text: str) -> str:
    code = _blank(text)
    pieces, last = [], 0
    for match in LAUNCH.finditer(code):
        kernel = " ".join(text[match.start("kernel"):match.end("kernel")].split())
        config = text[match.start("config"):match.end("config")]
        pieces.append(text[last:match.start()])
        pieces.append(f'::AscendC::ascendsim_detail::launch({kernel}, "{kernel}", {config})(')
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces)


def translate(path: Path, text: str) -> str:
    """The source the host compiler compiles for `path`."""
    kernels = kernels_defined(text)
    out = [f'#line 1 "{path.resolve()}"\n', rewrite_launches(text), "\n"]
    if kernels:
        out += [f"ASCENDSIM_EXPORT_KERNEL({name})\n" for name in kernels]
        out.append("ASCENDSIM_DEFINE_KERNEL_TABLE\n")
    return "".join(out)
