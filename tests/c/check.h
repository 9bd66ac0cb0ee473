/* CHECK(call): the test programs' way to stop at the first AscendCL call that fails, printing the call, its
 * code and aclGetRecentErrMsg() (the tests compare them with the real runtime's). Include after acl/acl.h. */
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
