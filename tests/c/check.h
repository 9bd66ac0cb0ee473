/* CHECK(call): the test programs' way to stop at the first AscendCL call that fails, printing the call, its
 * code and aclGetRecentErrMsg() (the tests compare them with the real runtime's); EXPECT(call, code) likewise
 * stops at a call that does not return `code`. Include after acl/acl.h. */
#pragma once
#include <stdio.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    aclError ret_ = (call);                                                         \
    if (ret_ != ACL_SUCCESS) {                                                      \
      printf("FAILED %s -> %d: %s\n", #call, ret_, aclGetRecentErrMsg());           \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

#define EXPECT(call, code)                                                          \
  do {                                                                              \
    aclError ret_ = (call);                                                         \
    if (ret_ != (code)) {                                                           \
      printf("FAILED %s -> %d, expected %d: %s\n", #call, ret_, (int)(code),         \
             aclGetRecentErrMsg());                                                 \
      return 1;                                                                     \
    }                                                                               \
  } while (0)
