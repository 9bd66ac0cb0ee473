// The shape a tensor takes in another memory format, as GE derives it for aclTransTensorDescFormat
// (GE's TransShape: a format transfer registered for the (source, destination) pair computes it).
//
// Derived here: the 4-D transposes between NCHW, NHWC and HWCN, and NCHW/NHWC -> NC1HWC0 (C split into
// C1 = ceil(C / C0) blocks of C0 = 16 elements, 32 for 1-byte types). As in GE, a pair without a transfer
// (the same format twice, ND <-> NCHW, a 5-D layout back to 4-D, ...) is ACL_ERROR_GE_FORMAT_INVALID, a
// shape of the wrong rank or with a negative (dynamic) dim ACL_ERROR_GE_SHAPE_INVALID, a type without a
// size ACL_ERROR_GE_DATATYPE_INVALID. The fractal layouts GE also derives (FRACTAL_Z, FRACTAL_NZ, ...)
// are not done by ascendsim: ACL_ERROR_API_NOT_SUPPORT, with a message.
#pragma once
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace ascendsim {

// A format's name for messages ("NCHW", "FRACTAL_NZ", or its number). Formats and data types are taken as
// ints: a tensor description holds whatever int it was given (runtime/tensor_desc.h).
const char* format_name(int32_t format, char (&scratch)[16]);

// `dims` of a `src`-format tensor of `dtype`, in `dst` format, into *out; ACL_SUCCESS or the error code,
// with a message naming `api`.
aclError trans_shape(int32_t src, const std::vector<int64_t>& dims, int32_t dtype, int32_t dst, const char* api,
                     std::vector<int64_t>* out);

}  // namespace ascendsim
