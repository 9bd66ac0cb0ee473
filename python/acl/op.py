"""acl.op: single operators. They arrive with the single-operator work; until then the C names in
`ascendcl` return ACL_ERROR_API_NOT_SUPPORT (200001) with a message."""

from ascendsim import _core

create_attr = _core.aclopCreateAttr
destroy_attr = _core.aclopDestroyAttr
