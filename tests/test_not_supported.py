"""Declared but unimplemented functions: each returns ACL_ERROR_API_NOT_SUPPORT (or NULL/0) with a
message naming it, from C and from Python; the README lists exactly these functions."""

from __future__ import annotations

import re

import pytest

import ascendcl
from acl_helpers import TESTS
from ascendcl import ACL_ERROR_API_NOT_SUPPORT, aclGetRecentErrMsg

LIST = TESTS.parent / "csrc" / "api" / "not_supported_list.h"
README = TESTS.parent / "README.md"


def not_supported() -> list[tuple[str, str, str]]:
    text = LIST.read_text()
    entries = re.findall(r"^ACL_NOT_SUPPORTED\(([^,]+),\s*(\w+),\s*\((.*)\)\)\s*$", text, flags=re.MULTILINE)
    assert entries and len(entries) == text.count("\nACL_NOT_SUPPORTED(")  # the pattern read every entry
    return entries


def call_with_placeholders(function):
    """Calls a generically bound function with zeros (and "" where it wants a string), learning the
    arity and the string positions from the binding's own TypeErrors."""
    arguments: list[object] = []
    for _ in range(40):
        try:
            return function(*arguments)
        except TypeError as error:
            arity = re.search(r"takes (\d+) argument", str(error))
            if arity:
                arguments = [0] * int(arity.group(1))
                continue
            position = re.search(r"argument (\d+) must be str", str(error))
            assert position, error
            arguments[int(position.group(1)) - 1] = ""
    raise AssertionError("could not call the function")


@pytest.mark.parametrize(("return_type", "name"), [entry[:2] for entry in not_supported()], ids=str)
def test_each_returns_not_supported(return_type: str, name: str) -> None:
    result = call_with_placeholders(getattr(ascendcl, name))
    message = aclGetRecentErrMsg()
    assert f"{name} is not supported by ascendsim" in message
    code = result[-1] if isinstance(result, tuple) else result
    if return_type == "aclError":
        assert code == ACL_ERROR_API_NOT_SUPPORT
    elif return_type == "aclprofSubscribeOpFlag":
        assert code == ascendcl.ACL_SUBSCRIBE_NONE  # the real library's failure value
    else:
        assert code in (0, None, -1), code


def test_readme_lists_exactly_the_unsupported_functions() -> None:
    text = README.read_text()
    section = text[text.index("## Not supported yet"):]
    section = section[:section.index("\n## ", 4)] if "\n## " in section[4:] else section
    listed = set(re.findall(r"`(acl\w+)`", section))
    assert listed == {name for _, name, _ in not_supported()}
