// The global-memory writes of one launch, per block, to find bytes that two blocks both write (blocks of one
// launch run in no defined order, so such a kernel's result depends on timing). A block's writes that continue
// where its previous one ended are merged, so a block writing its slice tile by tile keeps one entry. After the
// launch the entries are sorted by address and swept once, keeping the entry that reaches furthest: a later entry
// of another block starting before that end overlaps it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ascendsim::ascendc {

class WriteLog {
 public:
  explicit WriteLog(uint32_t blocks) : last_(blocks, kNone) {}
  void add(uint32_t block, const void* p, size_t size, const char* api);
  // Two blocks writing the same bytes: the lower block first.
  struct Conflict {
    uint32_t block, other_block;
    const char* api;
    const char* other_api;
    const void* addr;
    size_t size;
  };
  // The first overlap between two blocks' writes, or false.
  bool conflict(Conflict* out);

 private:
  struct Write {
    uintptr_t begin, end;
    uint32_t block;
    const char* api;
  };
  static constexpr size_t kNone = SIZE_MAX;
  std::mutex mutex_;
  std::vector<Write> writes_;
  std::vector<size_t> last_;  // per block: its latest entry in writes_
};

}  // namespace ascendsim::ascendc
