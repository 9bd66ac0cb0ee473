// Single-operator models (docs/om-format.md §10): a file `atc --singleop` wrote is an .om whose one plan
// holds one node in the "cann" domain. Loading one (aclopLoad: from memory; aclopSetModelDir: every *.om
// file of a directory tree, GE's depth rule) parses it with parse_om and registers its signature — the
// node's op type and attributes, its tensors' dtypes, formats, dims (-1 with shape ranges: dynamic) and
// constant (WEIGHT) values — as executable (op_cache.h).
#pragma once
#include <cstddef>
#include <string>

#include "acl/acl_base.h"

namespace ascendsim::op {

// Parses and registers one model image. Errors as GE's op model parser: a file that is not a valid .om
// (corrupt, truncated, foreign) -> ACL_ERROR_DESERIALIZE_MODEL; a valid .om that is not a single-operator
// model -> ACL_ERROR_PARSE_MODEL; messages name `origin`.
aclError load_op_model(const void* data, size_t size, const std::string& origin, const char* api);

// ascendsimCheckOpModel: parses one model image as load_op_model does (without the device's SoC check) and checks
// that its signature would run (op_check.h), registering nothing. ACL_SUCCESS or the refusal with its message.
aclError check_op_model(const void* data, size_t size, const char* api);

// GE's LoadAllModels: lists the *.om files of `dir` and its subdirectories down to 2 levels below it
// (GE's OM_DIR_MAX_DEPTH 3), reads and registers each; a file that does not parse is skipped with a
// warning, as GE does. A directory that cannot be listed, or a file that cannot be read ->
// ACL_ERROR_READ_MODEL_FAILURE. *loaded counts the registered models.
aclError load_op_model_dir(const std::string& dir, const char* api, size_t* loaded);

}  // namespace ascendsim::op
