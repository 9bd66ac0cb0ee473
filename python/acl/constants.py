"""AscendCL enum values and error codes under their C names (real pyACL has none)."""

from ascendcl._constants import *
from ascendcl._constants import __all__  # noqa: F401
