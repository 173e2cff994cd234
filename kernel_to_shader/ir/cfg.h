// Control-flow analysis of one function: reverse post-order, predecessors, dominators.
// Rebuilt after every change; functions are small.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/module.h"

namespace vkcl::ir {

class Cfg {
 public:
  Cfg(const Module& module, Function& function);

  Function& function() { return function_; }
  // Blocks reachable from the entry, in reverse post-order (indices into function.blocks).
  const std::vector<int>& rpo() const { return rpo_; }
  int index(uint32_t label) const;  // -1 when unknown
  Block& block(int index) { return function_.blocks[index]; }
  const std::vector<int>& successors(int b) const { return succ_[b]; }  // distinct
  const std::vector<int>& predecessors(int b) const { return pred_[b]; }
  bool reachable(int b) const { return rpo_number_[b] >= 0; }
  int rpo_number(int b) const { return rpo_number_[b]; }
  int idom(int b) const { return idom_[b]; }  // -1 for the entry and unreachable blocks
  bool dominates(int a, int b) const;

 private:
  Function& function_;
  std::unordered_map<uint32_t, int> index_;
  std::vector<std::vector<int>> succ_, pred_;
  std::vector<int> rpo_, rpo_number_, idom_;
};

// Successor labels of |block|'s terminator (duplicates kept).
std::vector<uint32_t> successor_labels(const Module& module, const Function& function,
                                       const Block& block);
// Replaces branch target |from| by |to| in |block|'s terminator (every occurrence).
void retarget(const Module& module, const Function& function, Block& block, uint32_t from,
              uint32_t to);
// In |block|'s OpPhi instructions, renames predecessor |from| to |to|.
void rename_phi_predecessor(Block& block, uint32_t from, uint32_t to);

// Each block of |function| by label: its index, and the labels of its predecessors (each
// once), for passes that rewrite a function between lookups.
struct BlockLabels {
  std::unordered_map<uint32_t, size_t> at;
  std::unordered_map<uint32_t, std::vector<uint32_t>> preds;
};
BlockLabels block_labels(const Module& module, const Function& function);

}  // namespace vkcl::ir
