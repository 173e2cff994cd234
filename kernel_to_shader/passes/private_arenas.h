// Which private variables share a word array.
//
// Private memory that cannot stay a real variable lives in per-invocation u32 word arrays,
// and a private pointer is a byte offset into one of them. With one array for everything, a
// single access at an index known only at run time keeps the driver from turning any of the
// kernel's private arrays into registers: hashcat's MD5 passes its four 16-byte blocks by
// pointer, and on lavapipe the shader spent over 15 minutes in LLVM (rusticl: 17 s), every
// byte shuffle a memory access. So variables go into separate arrays, arenas, unless some
// pointer can point into more than one of them: the groups are the classes of a union of
// pointer values over the whole module (the pointer an access chain starts from, the values
// a phi or select joins, a call's arguments and its callee's parameters, what a function
// returns and its calls' results). Pointers the lowering cannot follow (stored in memory,
// turned into integers or generic pointers, loaded) take their variables into arena 0, the
// one generic accesses reach.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "ir/module.h"

namespace vkcl::k2s {

class PrivateArenas {
 public:
  static constexpr uint32_t kMain = 0;
  void analyze(const ir::Module& m);
  // Arena of input private pointer |id| (kMain for ids it does not know).
  uint32_t of_value(uint32_t id) const;
  // The arena instruction |i|'s private accesses reach: that of its private pointer
  // operands (one arena, by construction), or of its result for OpVariable.
  uint32_t of_access(const ir::Instruction& i) const;
  // Arenas 1..count()-1 hold at least one variable; 0 always exists.
  uint32_t count() const { return count_; }
  // Whether Function variable |id| is only ever loaded and stored whole: it stays a real
  // variable, in no arena.
  bool kept_whole(uint32_t id) const { return whole_.count(id) > 0; }

 private:
  std::unordered_map<uint32_t, uint32_t> arena_;  // private pointer id -> arena
  std::unordered_set<uint32_t> whole_;
  uint32_t count_ = 1;
};

}  // namespace vkcl::k2s
