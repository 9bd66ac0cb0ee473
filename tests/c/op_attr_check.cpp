// Checks that what the aclopSetAttr* functions store reaches the kernels as the model loader would decode
// it (csrc/op/op_attr.h): every setter's value through aclopAttr::kernel_attrs(), overwriting, empty
// and negative-count lists, and threads setting, reading and destroying one object at once. Built from
// csrc/api/acl_op_attr.cpp, csrc/op/op_attr.cpp and csrc/core (the internals are not exported by
// libascendcl.so), also under ThreadSanitizer. Prints "OK" on success, the failed check otherwise.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_op.h"
#include "op/op_attr.h"

using ascendsim::kernels::AttrValue;
using Type = AttrValue::Type;

#define CHECK(cond)                                           \
  do {                                                        \
    if (!(cond)) {                                            \
      std::printf("failed line %d: %s\n", __LINE__, #cond);   \
      return 1;                                               \
    }                                                         \
  } while (0)

// Setters, readers and a destroyer racing on one attribute object: every call either succeeds or reports
// the dead handle; nothing crashes or tears.
static bool concurrent() {
  aclopAttr* attr = aclopCreateAttr();
  std::atomic<bool> ok{true};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      const int64_t values[] = {t, t, t};
      for (int i = 0; i < 2000; ++i) {
        const aclError a = aclopSetAttrInt(attr, "shared", t);
        const aclError b = aclopSetAttrListInt(attr, ("own" + std::to_string(t)).c_str(), 3, values);
        if ((a != ACL_SUCCESS && a != ACL_ERROR_INVALID_PARAM) || (b != ACL_SUCCESS && b != ACL_ERROR_INVALID_PARAM))
          ok = false;
        if (const auto live = ascendsim::find_op_attr(attr)) {
          const ascendsim::kernels::Attrs k = live->kernel_attrs();
          const int64_t shared = k.get_int("shared", 0);
          if (shared < 0 || shared > 2) ok = false;
        }
      }
    });
  threads.emplace_back([&] {
    std::this_thread::yield();
    aclopDestroyAttr(attr);
  });
  for (auto& thread : threads) thread.join();
  return ok && ascendsim::find_op_attr(attr) == nullptr;
}

int main() {
  CHECK(concurrent());
  aclopAttr* attr = aclopCreateAttr();
  CHECK(attr != nullptr);
  CHECK(aclopSetAttrBool(attr, "b", 7) == ACL_SUCCESS);
  CHECK(aclopSetAttrBool(attr, "b0", 0) == ACL_SUCCESS);
  CHECK(aclopSetAttrInt(attr, "i", -5000000000LL) == ACL_SUCCESS);
  CHECK(aclopSetAttrFloat(attr, "f", 0.25f) == ACL_SUCCESS);
  CHECK(aclopSetAttrString(attr, "s", "SAME") == ACL_SUCCESS);
  CHECK(aclopSetAttrDataType(attr, "dt", ACL_FLOAT16) == ACL_SUCCESS);
  CHECK(aclopSetAttrDataType(attr, "undefined", ACL_DT_UNDEFINED) == ACL_SUCCESS);
  const uint8_t bools[] = {0, 1, 9};
  CHECK(aclopSetAttrListBool(attr, "lb", 3, bools) == ACL_SUCCESS);
  const int64_t ints[] = {1, -2, 3};
  CHECK(aclopSetAttrListInt(attr, "li", 3, ints) == ACL_SUCCESS);
  const float floats[] = {1.5f, -0.125f};
  CHECK(aclopSetAttrListFloat(attr, "lf", 2, floats) == ACL_SUCCESS);
  const char* strings[] = {"a", "", "NCHW"};
  CHECK(aclopSetAttrListString(attr, "ls", 3, strings) == ACL_SUCCESS);
  const aclDataType types[] = {ACL_FLOAT, ACL_INT32, ACL_DT_UNDEFINED};
  CHECK(aclopSetAttrListDataType(attr, "ldt", 3, types) == ACL_SUCCESS);
  const int64_t row0[] = {1, 2}, row2[] = {3};
  const int64_t* rows[] = {row0, row0, row2};  // the middle list is empty: its pointer is set, its count 0
  const int counts[] = {2, 0, 1};
  CHECK(aclopSetAttrListListInt(attr, "lli", 3, counts, rows) == ACL_SUCCESS);
  CHECK(aclopSetAttrListInt(attr, "empty", 0, nullptr) == ACL_SUCCESS);
  CHECK(aclopSetAttrListInt(attr, "negative", -3, ints) == ACL_SUCCESS);  // CANN: an empty list
  CHECK(aclopSetAttrInt(attr, "over", 1) == ACL_SUCCESS);
  CHECK(aclopSetAttrListString(attr, "over", 1, strings) == ACL_SUCCESS);  // overwritten, type and all

  const auto live = ascendsim::find_op_attr(attr);
  CHECK(live != nullptr);
  CHECK(live->values().size() == 16);
  const ascendsim::kernels::Attrs k = live->kernel_attrs();
  CHECK(k.all().size() == 16);
  CHECK(k.find("b")->type == Type::Int && k.get_int("b", -1) == 1);
  CHECK(k.get_int("b0", -1) == 0);
  CHECK(k.find("i")->type == Type::Int && k.get_int("i", 0) == -5000000000LL);
  CHECK(k.find("f")->type == Type::Float && k.get_float("f", 0) == 0.25);
  CHECK(k.find("s")->type == Type::String && k.get_string("s", "") == "SAME");
  CHECK(k.find("dt")->type == Type::Int && k.get_int("dt", -9) == ACL_FLOAT16);
  CHECK(k.get_int("undefined", 0) == ACL_DT_UNDEFINED);
  CHECK(k.find("lb")->type == Type::Ints && k.get_ints("lb") == std::vector<int64_t>({0, 1, 1}));
  CHECK(k.find("li")->type == Type::Ints && k.get_ints("li") == std::vector<int64_t>({1, -2, 3}));
  CHECK(k.find("lf")->type == Type::Floats && k.get_floats("lf") == std::vector<double>({1.5, -0.125}));
  CHECK(k.find("ls")->type == Type::Strings && k.find("ls")->strings == std::vector<std::string>({"a", "", "NCHW"}));
  CHECK(k.find("ldt")->type == Type::Ints && k.get_ints("ldt") == std::vector<int64_t>({0, 3, -1}));
  CHECK(k.find("lli")->type == Type::IntLists);
  CHECK(k.find("lli")->int_lists == std::vector<std::vector<int64_t>>({{1, 2}, {}, {3}}));
  CHECK(k.find("empty")->type == Type::Ints && k.get_ints("empty", {7}).empty());
  CHECK(k.find("negative")->type == Type::Ints && k.get_ints("negative", {7}).empty());
  CHECK(k.find("over")->type == Type::Strings && k.find("over")->strings == std::vector<std::string>({"a"}));

  aclopDestroyAttr(attr);
  CHECK(ascendsim::find_op_attr(attr) == nullptr);
  std::printf("OK\n");
  return 0;
}
