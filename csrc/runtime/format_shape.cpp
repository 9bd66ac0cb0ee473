// Shape derivation between memory formats (see format_shape.h).
#include "runtime/format_shape.h"

#include <cstdio>

#include "acl/error_codes/ge_error_codes.h"
#include "core/error.h"
#include "runtime/tensor_desc.h"

namespace ascendsim {
namespace {

struct Transpose {
  aclFormat src, dst;
  int perm[4];  // dst dim i = src dim perm[i]
};

// GE's transpose transfers between the 4-D layouts ascendsim's aclFormat has.
constexpr Transpose kTransposes[] = {
    {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, {0, 2, 3, 1}}, {ACL_FORMAT_NCHW, ACL_FORMAT_HWCN, {2, 3, 1, 0}},
    {ACL_FORMAT_NHWC, ACL_FORMAT_NCHW, {0, 3, 1, 2}}, {ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, {1, 2, 3, 0}},
    {ACL_FORMAT_HWCN, ACL_FORMAT_NCHW, {3, 2, 0, 1}}, {ACL_FORMAT_HWCN, ACL_FORMAT_NHWC, {3, 0, 1, 2}},
};

bool is_fractal(int32_t f) {
  return f == ACL_FORMAT_FRACTAL_Z || f == ACL_FORMAT_FRACTAL_NZ || f == ACL_FORMAT_NC1HWC0_C04 ||
         f == ACL_FORMAT_NDC1HWC0 || f == ACL_FRACTAL_Z_3D;
}

bool is_origin(int32_t f) {
  return f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN || f == ACL_FORMAT_ND ||
         f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NDHWC;
}

// A 4-D shape of non-negative dims, else ACL_ERROR_GE_SHAPE_INVALID.
aclError check_4d(const std::vector<int64_t>& dims, int32_t src, int32_t dst, const char* api) {
  bool ok = dims.size() == 4;
  for (const int64_t d : dims) ok = ok && d >= 0;
  if (ok) return ACL_SUCCESS;
  char a[16], b[16];
  return fail(static_cast<aclError>(ACL_ERROR_GE_SHAPE_INVALID), "%s: shape %s cannot go from %s to %s: it needs 4 "
              "known (non-negative) dims", api, dims_text(dims).c_str(), format_name(src, a), format_name(dst, b));
}

}  // namespace

const char* format_name(int32_t format, char (&scratch)[16]) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
  }
  std::snprintf(scratch, sizeof scratch, "%d", format);
  return scratch;
}

aclError trans_shape(int32_t src, const std::vector<int64_t>& dims, int32_t dtype, int32_t dst, const char* api,
                     std::vector<int64_t>* out) {
  for (const Transpose& t : kTransposes) {
    if (t.src != src || t.dst != dst) continue;
    if (aclError ret = check_4d(dims, src, dst, api)) return ret;
    out->assign(4, 0);
    for (int i = 0; i < 4; ++i) (*out)[i] = dims[t.perm[i]];
    return ACL_SUCCESS;
  }
  char a[16], b[16];
  if ((src == ACL_FORMAT_NCHW || src == ACL_FORMAT_NHWC) && dst == ACL_FORMAT_NC1HWC0) {
    const size_t item = data_type_size(dtype);
    if (item == 0)
      return fail(static_cast<aclError>(ACL_ERROR_GE_DATATYPE_INVALID), "%s: data type %d has no element size: no "
                  "%s shape", api, dtype, format_name(dst, a));
    if (aclError ret = check_4d(dims, src, dst, api)) return ret;
    const int64_t c0 = item == 1 ? 32 : 16;
    const bool nchw = src == ACL_FORMAT_NCHW;
    const int64_t n = dims[0], c = nchw ? dims[1] : dims[3], h = nchw ? dims[2] : dims[1],
                  w = nchw ? dims[3] : dims[2];
    *out = {n, (c + c0 - 1) / c0, h, w, c0};
    return ACL_SUCCESS;
  }
  if (is_origin(src) && is_fractal(dst))
    return fail(ACL_ERROR_API_NOT_SUPPORT, "%s: ascendsim does not derive %s shapes (from %s) yet", api,
                format_name(dst, b), format_name(src, a));
  return fail(static_cast<aclError>(ACL_ERROR_GE_FORMAT_INVALID), "%s: there is no format transfer from %s to %s",
              api, format_name(src, a), format_name(dst, b));
}

}  // namespace ascendsim
