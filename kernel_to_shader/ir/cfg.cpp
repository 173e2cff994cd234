#include "ir/cfg.h"

#include <algorithm>

namespace vkcl::ir {

std::vector<uint32_t> successor_labels(const Module& module, const Function& function,
                                       const Block& block) {
  if (block.instructions.empty()) return {};
  const Instruction& t = block.instructions.back();
  uint32_t words = t.opcode == spv::Op::OpSwitch ? switch_literal_words(module, function, t) : 1;
  return block.successors(words);
}

BlockLabels block_labels(const Module& module, const Function& function) {
  BlockLabels out;
  for (size_t b = 0; b < function.blocks.size(); ++b) {
    const uint32_t label = function.blocks[b].label;
    out.at[label] = b;
    for (uint32_t s : successor_labels(module, function, function.blocks[b])) {
      auto& p = out.preds[s];
      if (std::find(p.begin(), p.end(), label) == p.end()) p.push_back(label);
    }
  }
  return out;
}

void retarget(const Module& module, const Function& function, Block& block, uint32_t from,
              uint32_t to) {
  Instruction& t = block.instructions.back();
  switch (t.opcode) {
    case spv::Op::OpBranch:
      if (t.operands[0] == from) t.operands[0] = to;
      break;
    case spv::Op::OpBranchConditional:
      for (int k = 1; k <= 2; ++k)
        if (t.operands[k] == from) t.operands[k] = to;
      break;
    case spv::Op::OpSwitch: {
      uint32_t words = switch_literal_words(module, function, t);
      if (t.operands[1] == from) t.operands[1] = to;
      for (size_t k = 2 + words; k < t.operands.size(); k += words + 1)
        if (t.operands[k] == from) t.operands[k] = to;
      break;
    }
    default:
      break;
  }
}

void rename_phi_predecessor(Block& block, uint32_t from, uint32_t to) {
  for (Instruction& i : block.instructions) {
    if (i.opcode != spv::Op::OpPhi) break;
    for (size_t k = 1; k < i.operands.size(); k += 2)
      if (i.operands[k] == from) i.operands[k] = to;
  }
}

Cfg::Cfg(const Module& module, Function& function) : function_(function) {
  size_t n = function.blocks.size();
  for (size_t i = 0; i < n; ++i) index_[function.blocks[i].label] = int(i);
  succ_.assign(n, {});
  pred_.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t label : successor_labels(module, function, function.blocks[i])) {
      int s = index(label);
      if (s < 0) continue;
      if (std::find(succ_[i].begin(), succ_[i].end(), s) == succ_[i].end()) {
        succ_[i].push_back(s);
        pred_[s].push_back(int(i));
      }
    }
  }
  // Iterative DFS for the post-order.
  rpo_number_.assign(n, -1);
  std::vector<int> post;
  std::vector<char> seen(n, 0);
  std::vector<std::pair<int, size_t>> stack;
  if (n) {
    stack.push_back({0, 0});
    seen[0] = 1;
  }
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (next < succ_[b].size()) {
      int s = succ_[b][next++];
      if (!seen[s]) {
        seen[s] = 1;
        stack.push_back({s, 0});
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  rpo_.assign(post.rbegin(), post.rend());
  for (size_t i = 0; i < rpo_.size(); ++i) rpo_number_[rpo_[i]] = int(i);
  // Cooper, Harvey and Kennedy's iterative dominators.
  idom_.assign(n, -1);
  if (!n) return;
  idom_[0] = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 1; i < rpo_.size(); ++i) {
      int b = rpo_[i];
      int candidate = -1;
      for (int p : pred_[b]) {
        if (idom_[p] < 0) continue;
        if (candidate < 0) { candidate = p; continue; }
        int x = p, y = candidate;
        while (x != y) {
          while (rpo_number_[x] > rpo_number_[y]) x = idom_[x];
          while (rpo_number_[y] > rpo_number_[x]) y = idom_[y];
        }
        candidate = x;
      }
      if (candidate >= 0 && idom_[b] != candidate) {
        idom_[b] = candidate;
        changed = true;
      }
    }
  }
  idom_[0] = -1;
}

int Cfg::index(uint32_t label) const {
  auto it = index_.find(label);
  return it == index_.end() ? -1 : it->second;
}

bool Cfg::dominates(int a, int b) const {
  if (!reachable(a) || !reachable(b)) return false;
  while (b >= 0) {
    if (a == b) return true;
    b = idom_[b];
  }
  return false;
}

}  // namespace vkcl::ir
