// Runs one kernel from the registry on tensors in files, for tests/model/test_kernels.py (before the model
// executor exists the kernels are tested this way). Usage: kernel_driver case.json, with the kernel variant
// ASCENDSIM_ISA names (refused unless it is the one that runs); kernel_driver --variants lists those this CPU runs.
// case.json: {"op", "domain", "flags", "attrs": {name: {"t": type, "v": value}}, "inputs": [null |
// {"dtype", "dims", "file", "constant"}], "outputs": [{"dtype", "dims", "file"}], "inplace": [out, in]}.
// Prints "OK" or "REFUSED: <message>". Every input and output ends where an inaccessible page begins
// (GuardedBytes): a kernel reading or writing past a tensor faults.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "core/json.h"
#include "kernels/isa.h"
#include "kernels/kernel.h"

using namespace ascendsim;
using namespace ascendsim::kernels;

// A tensor's bytes placed so that they end where an inaccessible page begins: a kernel reading or writing
// past the end of a tensor faults (the test then fails) instead of touching a neighbour's bytes unnoticed.
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::vector<char>& bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t span = (bytes.size() + page - 1) / page * page;
    mapping_size_ = span + page;
    void* mapping = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED || mprotect(static_cast<char*>(mapping) + span, page, PROT_NONE) != 0) {
      std::perror("kernel_driver: guarded tensor");
      std::exit(2);
    }
    mapping_ = static_cast<char*>(mapping);
    data_ = mapping_ + span - bytes.size();
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
  }
  ~GuardedBytes() { munmap(mapping_, mapping_size_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  char* data() const { return data_; }

 private:
  char* mapping_ = nullptr;
  char* data_ = nullptr;
  size_t mapping_size_ = 0;
};

extern "C" size_t aclDataTypeSize(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_FLOAT16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: return 8;
    default: return 0;
  }
}

static std::shared_ptr<Attrs> to_attrs(const JsonValue& obj);

static AttrValue to_attr(const JsonValue& spec) {
  AttrValue a;
  std::string t = spec.get("t")->string;
  const JsonValue& v = *spec.get("v");
  if (t == "int") { a.type = AttrValue::Type::Int; a.i = static_cast<int64_t>(v.number); }
  else if (t == "float") { a.type = AttrValue::Type::Float; a.f = v.number; }
  else if (t == "string") { a.type = AttrValue::Type::String; a.s = v.string; }
  else if (t == "ints") { a.type = AttrValue::Type::Ints; for (auto& x : v.array) a.ints.push_back(static_cast<int64_t>(x.number)); }
  else if (t == "floats") { a.type = AttrValue::Type::Floats; for (auto& x : v.array) a.floats.push_back(x.number); }
  else if (t == "strings") { a.type = AttrValue::Type::Strings; for (auto& x : v.array) a.strings.push_back(x.string); }
  else if (t == "dict") { a.type = AttrValue::Type::Dicts; a.dicts.push_back(to_attrs(v)); }
  else if (t == "dicts") { a.type = AttrValue::Type::Dicts; for (auto& x : v.array) a.dicts.push_back(to_attrs(x)); }
  else if (t == "tensor") {
    a.type = AttrValue::Type::Tensor;
    a.tensor.dtype = static_cast<aclDataType>(static_cast<int>(v.get("dtype")->number));
    for (auto& x : v.get("dims")->array) a.tensor.dims.push_back(static_cast<int64_t>(x.number));
    for (auto& x : v.get("bytes")->array) a.tensor.data.push_back(static_cast<uint8_t>(x.number));
  }
  return a;
}

static std::shared_ptr<Attrs> to_attrs(const JsonValue& obj) {
  auto attrs = std::make_shared<Attrs>();
  for (const auto& [name, spec] : obj.object) attrs->set(name, to_attr(spec));
  return attrs;
}

static TensorDesc to_desc(const JsonValue& t) {
  TensorDesc d;
  d.dtype = static_cast<aclDataType>(static_cast<int>(t.get("dtype")->number));
  for (auto& x : t.get("dims")->array) d.dims.push_back(static_cast<int64_t>(x.number));
  return d;
}

static std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (std::string(argv[1]) == "--variants") {
    for (const std::string& name : runnable_isas()) std::cout << name << "\n";
    return 0;
  }
  if (const char* wanted = std::getenv("ASCENDSIM_ISA"); wanted != nullptr && std::string(wanted) != active_isa_name()) {
    std::cout << "BAD VARIANT: ASCENDSIM_ISA=" << wanted << " but " << active_isa_name() << " runs\n";
    return 2;
  }
  std::stringstream text;
  text << std::ifstream(argv[1]).rdbuf();
  JsonValue root;
  std::string error;
  if (!parse_json(text.str(), &root, &error)) {
    std::cout << "BAD CASE: " << error << "\n";
    return 2;
  }
  auto attrs = to_attrs(*root.get("attrs"));
  NodeSpec spec;
  spec.name = "node";
  spec.op_type = root.get("op")->string;
  spec.domain = root.get("domain")->string;
  spec.attrs = attrs.get();
  spec.flags = static_cast<uint32_t>(root.get("flags")->number);
  std::vector<std::unique_ptr<GuardedBytes>> data;
  for (const auto& in : root.get("inputs")->array) {
    if (in.kind == JsonValue::Kind::Null) {
      spec.inputs.push_back({});
      spec.present.push_back(false);
      data.emplace_back();
      continue;
    }
    spec.inputs.push_back(to_desc(in));
    spec.present.push_back(true);
    data.push_back(std::make_unique<GuardedBytes>(read_file(in.get("file")->string)));
  }
  for (size_t i = 0; i < data.size(); ++i) {
    const JsonValue& in = root.get("inputs")->array[i];
    bool constant = in.kind == JsonValue::Kind::Object && in.get("constant") && in.get("constant")->boolean;
    spec.constant_data.push_back(constant ? data[i]->data() : nullptr);
  }
  for (const auto& out : root.get("outputs")->array) spec.outputs.push_back(to_desc(out));
  KernelFactory factory = find_kernel(spec.op_type, spec.domain);
  if (factory == nullptr) {
    std::cout << "REFUSED: no kernel for " << spec.op_type << "\n";
    return 0;
  }
  auto kernel = factory(spec, &error);
  if (!kernel) {
    std::cout << "REFUSED: " << error << "\n";
    return 0;
  }
  std::vector<std::unique_ptr<GuardedBytes>> outs;
  for (const auto& d : spec.outputs) outs.push_back(std::make_unique<GuardedBytes>(std::vector<char>(d.nbytes(), '\x5a')));
  std::vector<const void*> in_ptrs;
  for (size_t i = 0; i < data.size(); ++i) in_ptrs.push_back(spec.present[i] ? data[i]->data() : nullptr);
  std::vector<void*> out_ptrs;
  for (auto& o : outs) out_ptrs.push_back(o->data());
  const JsonValue* inplace = root.get("inplace");
  if (inplace != nullptr && inplace->kind == JsonValue::Kind::Array) {
    size_t o = static_cast<size_t>(inplace->array[0].number), i = static_cast<size_t>(inplace->array[1].number);
    out_ptrs[o] = data[i]->data();
  }
  int repeat = root.get("repeat") ? static_cast<int>(root.get("repeat")->number) : 1;
  for (int r = 0; r < repeat; ++r) kernel->run(in_ptrs.data(), out_ptrs.data());
  for (size_t k = 0; k < outs.size(); ++k) {
    std::ofstream f(root.get("outputs")->array[k].get("file")->string, std::ios::binary);
    f.write(static_cast<const char*>(out_ptrs[k]), static_cast<std::streamsize>(spec.outputs[k].nbytes()));
  }
  std::cout << "OK\n";
  return 0;
}
