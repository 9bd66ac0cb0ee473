// The official acl_execute_add sample's flow (samples/cplusplus/level1_single_api/1_acl/4_op_execute):
// load the single-op models of a directory (argv[1]) with aclopSetModelDir, describe two int32 [8, 16]
// inputs and the output, copy the inputs to the device, aclopExecuteV2("Add") on a stream, synchronize,
// copy the result back and check it. Then a handle, aclopCompile + aclopCast, and the NULL-argument errors
// only C can pass. Prints "ok" on success.
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

#define CHECK(expr)                                                                           \
  do {                                                                                        \
    aclError check_ret = (expr);                                                              \
    if (check_ret != ACL_SUCCESS) {                                                           \
      std::printf("FAIL %s -> %d: %s\n", #expr, check_ret, aclGetRecentErrMsg());            \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define EXPECT(expr, code)                                                                    \
  do {                                                                                        \
    aclError expect_ret = (expr);                                                             \
    if (expect_ret != (code)) {                                                               \
      std::printf("FAIL %s -> %d, expected %d\n", #expr, expect_ret, static_cast<int>(code)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  EXPECT(aclopSetModelDir(nullptr), ACL_ERROR_INVALID_PARAM);
  CHECK(aclopSetModelDir(argv[1]));

  const int64_t shape[] = {8, 16};
  const size_t count = 8 * 16, bytes = count * sizeof(int32_t);
  aclTensorDesc* input_desc[2];
  aclTensorDesc* output_desc[1];
  aclDataBuffer* inputs[2];
  aclDataBuffer* outputs[1];
  void* device[3];
  std::vector<int32_t> host[2] = {std::vector<int32_t>(count), std::vector<int32_t>(count)};
  for (size_t i = 0; i < count; ++i) {
    host[0][i] = static_cast<int32_t>(i);
    host[1][i] = static_cast<int32_t>(2 * i);
  }
  for (int i = 0; i < 3; ++i) {
    aclTensorDesc* desc = aclCreateTensorDesc(ACL_INT32, 2, shape, ACL_FORMAT_ND);
    CHECK(aclrtMalloc(&device[i], bytes, ACL_MEM_MALLOC_NORMAL_ONLY));
    aclDataBuffer* buffer = aclCreateDataBuffer(device[i], bytes);
    if (i < 2) {
      CHECK(aclrtMemcpy(device[i], bytes, host[i].data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
      input_desc[i] = desc;
      inputs[i] = buffer;
    } else {
      output_desc[0] = desc;
      outputs[0] = buffer;
    }
  }
  CHECK(aclopExecuteV2("Add", 2, input_desc, inputs, 1, output_desc, outputs, nullptr, stream));
  CHECK(aclrtSynchronizeStream(stream));
  std::vector<int32_t> result(count);
  CHECK(aclrtMemcpy(result.data(), bytes, device[2], bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < count; ++i)
    if (result[i] != static_cast<int32_t>(3 * i)) {
      std::printf("FAIL result[%zu] = %d\n", i, result[i]);
      return 1;
    }

  // A handle of the same signature, run again.
  aclopHandle* handle = nullptr;
  CHECK(aclopCreateHandle("Add", 2, input_desc, 1, output_desc, nullptr, &handle));
  CHECK(aclopExecWithHandle(handle, 2, inputs, 1, outputs, stream));
  CHECK(aclrtSynchronizeStream(stream));
  aclopDestroyHandle(handle);

  // Online compilation of a Cast, run through aclopCast (dst_type = the output's dtype).
  aclTensorDesc* half_desc = aclCreateTensorDesc(ACL_FLOAT16, 2, shape, ACL_FORMAT_ND);
  aclopAttr* attr = aclopCreateAttr();
  CHECK(aclopSetAttrInt(attr, "dst_type", ACL_FLOAT16));
  const aclTensorDesc* cast_in[1] = {input_desc[0]};
  const aclTensorDesc* cast_out[1] = {half_desc};
  CHECK(aclopCompile("Cast", 1, cast_in, 1, cast_out, attr, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr));
  void* half_device = nullptr;
  CHECK(aclrtMalloc(&half_device, count * 2, ACL_MEM_MALLOC_NORMAL_ONLY));
  aclDataBuffer* half_buffer = aclCreateDataBuffer(half_device, count * 2);
  CHECK(aclopCast(input_desc[0], inputs[0], half_desc, half_buffer, 0, stream));
  CHECK(aclrtSynchronizeStream(stream));
  std::vector<uint16_t> halves(count);
  CHECK(aclrtMemcpy(halves.data(), count * 2, half_device, count * 2, ACL_MEMCPY_DEVICE_TO_HOST));
  if (aclFloat16ToFloat(halves[5]) != 5.0f) {
    std::printf("FAIL cast\n");
    return 1;
  }

  // What only C can pass: NULL op type, NULL arrays, NULL handle out-parameter.
  EXPECT(aclopExecuteV2(nullptr, 2, input_desc, inputs, 1, output_desc, outputs, nullptr, stream),
         ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopExecuteV2("Add", 2, nullptr, inputs, 1, output_desc, outputs, nullptr, stream), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopExecuteV2("Add", 2, input_desc, nullptr, 1, output_desc, outputs, nullptr, stream),
         ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopCreateHandle("Add", 2, input_desc, 1, output_desc, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopCompile(nullptr, 1, cast_in, 1, cast_out, attr, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr),
         ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopLoad(nullptr, 10), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopExecWithHandle(nullptr, 2, inputs, 1, outputs, stream), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclopCast(input_desc[0], inputs[0], nullptr, half_buffer, 0, stream), ACL_ERROR_INVALID_PARAM);

  aclopDestroyAttr(attr);
  CHECK(aclDestroyDataBuffer(half_buffer));
  CHECK(aclrtFree(half_device));
  aclDestroyTensorDesc(half_desc);
  for (int i = 0; i < 3; ++i) {
    CHECK(aclDestroyDataBuffer(i < 2 ? inputs[i] : outputs[0]));
    aclDestroyTensorDesc(i < 2 ? input_desc[i] : output_desc[0]);
    CHECK(aclrtFree(device[i]));
  }
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("ok\n");
  return 0;
}
