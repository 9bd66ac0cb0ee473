"""The compiler's error type. Every rejected model (unsupported op, attribute value or construct, a shape
that contradicts the model, a corrupt file) raises CompileError with a message that names what was wrong
(the node, its op type, the input) and what is supported, so `atc` can print it and exit non-zero."""

from __future__ import annotations


class CompileError(Exception):
    """A model the compiler cannot accept. `node` and `op_type` are set when one node is to blame."""

    def __init__(self, message: str, *, node: str | None = None, op_type: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.op_type = op_type


def node_error(node_name: str, op_type: str, problem: str) -> CompileError:
    """A CompileError for one node, with the standard prefix `node 'name' (Op): problem`."""
    return CompileError(f"node {node_name!r} ({op_type}): {problem}", node=node_name, op_type=op_type)
