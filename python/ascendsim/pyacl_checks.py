"""The error handling of the demos, as pyACL samples write it: every ret checked, the message shown."""

from __future__ import annotations

from typing import Any

import acl


def check(ret: int, what: str) -> None:
    if ret != 0:
        raise RuntimeError(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")


def take(result: tuple[Any, ...], what: str) -> Any:
    """The value of a pyACL `(value, ret)` result, after checking ret."""
    *values, ret = result
    check(ret, what)
    return values[0] if len(values) == 1 else tuple(values)
