// OpenCL C memory layout of input (Kernel-model) types: natural alignment, 3-vectors sized as
// 4-vectors, struct padding as clang computes it, CPacked structs without padding, pointers
// 8 bytes (Physical64 addressing).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vkcl::k2s {

class Lowering;

struct Layout {
  uint32_t size = 0;
  uint32_t alignment = 1;
  std::vector<uint32_t> member_offsets;  // structs only
  uint32_t stride = 0;                   // arrays and vectors: distance between elements
};

class TypeLayout {
 public:
  explicit TypeLayout(Lowering& lowering) : lowering_(lowering) {}
  // Layout of input type |in_type|; size 0 for types without one (void, opaque).
  const Layout& of(uint32_t in_type);

 private:
  Lowering& lowering_;
  std::unordered_map<uint32_t, Layout> cache_;
};

}  // namespace vkcl::k2s
