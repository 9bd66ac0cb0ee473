"""Generate the Python constants module from the public headers, so the headers stay the one source of
every enum value, error code and numeric macro. Run by CMake at build time:

    python gen_constants.py OUTPUT HEADER...
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

INT_LITERAL = r"(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*"
DEFINE = re.compile(rf"^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+\(?\s*(-?{INT_LITERAL}|\"[^\"]*\")\s*\)?\s*(?:/[/*].*)?$")
STATIC_CONST = re.compile(rf"static\s+const\s+(?:u?int\d*_t|int)\s+([A-Z_][A-Z0-9_]*)(?:\s+[A-Z_]+)?\s*=\s*(-?{INT_LITERAL})")
ENUM = re.compile(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", re.DOTALL)
ALIAS = re.compile(r"^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+([A-Z_][A-Z0-9_]*)\s*(?:/[/*].*)?$")
ENUMERATOR = re.compile(rf"^\s*([A-Za-z_]\w*)\s*(?:=\s*(-?{INT_LITERAL}))?\s*$")


def literal(text: str) -> int | str:
    if text.startswith('"'):
        return text[1:-1]
    return int(text.rstrip("uUlL"), 0)


def strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", source)


def constants_of(header: str, aliases: dict[str, str]) -> dict[str, int | str]:
    """The constants a header defines; `#define OLD_NAME NEW_NAME` spellings are collected in `aliases`."""
    found: dict[str, int | str] = {}
    for line in header.splitlines():
        match = DEFINE.match(line)
        if match:
            found[match.group(1)] = literal(match.group(2))
        alias = ALIAS.match(line)
        if alias:
            aliases[alias.group(1)] = alias.group(2)
    code = strip_comments(header)
    for match in STATIC_CONST.finditer(code):
        found[match.group(1)] = literal(match.group(2))
    for body, _name in ENUM.findall(code):
        value = -1
        for item in body.split(","):
            if not item.strip():
                continue
            match = ENUMERATOR.match(item)
            if not match:
                raise SystemExit(f"gen_constants: cannot read enumerator {item.strip()!r}")
            value = literal(match.group(2)) if match.group(2) else value + 1
            found[match.group(1)] = value
    return found


def main(output: str, headers: list[str]) -> None:
    constants: dict[str, int | str] = {}
    aliases: dict[str, str] = {}
    for path in headers:
        constants.update(constants_of(Path(path).read_text(), aliases))
    constants.update({old: constants[new] for old, new in aliases.items() if new in constants})
    lines = ['"""Every enum value, error code and numeric macro of the AscendCL headers (generated)."""', ""]
    lines += [f"{name} = {value!r}" for name, value in sorted(constants.items())]
    lines += ["", f"__all__ = {sorted(constants)!r}", ""]
    Path(output).write_text("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
