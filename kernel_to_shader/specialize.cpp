// Specialization constants of Kernel SPIR-V (clSetProgramSpecializationConstant): the values
// the application sets become the constants' defaults before translation, so the translator
// sees plain constants; OpSpecConstantOp instructions are then folded into constants.
#include <cstring>

#include "fold_spec_constants.h"
#include "input_checks.h"
#include "ir/module.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

namespace {

// SpecId decoration of each decorated id.
std::map<uint32_t, uint32_t> spec_ids(const ir::Module& m) {
  std::map<uint32_t, uint32_t> ids;
  for (const auto& a : m.annotations)
    if (a.opcode == spv::Op::OpDecorate && spv::Decoration(a.operands[1]) == spv::Decoration::SpecId)
      ids[a.operands[0]] = a.operands[2];
  return ids;
}

// Whether |words| has an OpSpecConstantOp, by walking the instruction words alone; a module
// too broken to walk says yes (the parse that follows reports it).
bool may_have_spec_constant_ops(const std::vector<uint32_t>& words) {
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    if (count == 0) return true;
    if (spv::Op(words[i] & 0xffff) == spv::Op::OpSpecConstantOp) return true;
    i += count;
  }
  return false;
}

uint32_t size_of(const ir::Module& m, const ir::Instruction& c) {
  if (c.opcode == spv::Op::OpSpecConstantTrue || c.opcode == spv::Op::OpSpecConstantFalse) return 1;
  for (const auto& g : m.globals)
    if (g.result_id == c.type_id && (g.opcode == spv::Op::OpTypeInt || g.opcode == spv::Op::OpTypeFloat))
      return g.operands[0] / 8;
  return 0;
}

}  // namespace

std::map<uint32_t, uint32_t> spec_constant_sizes(const std::vector<uint32_t>& kernel_spirv) {
  std::map<uint32_t, uint32_t> sizes;
  ir::Module m;
  std::string error;
  if (!parse_input(kernel_spirv, &m, &error)) return sizes;
  auto ids = spec_ids(m);
  for (const auto& g : m.globals) {
    auto it = ids.find(g.result_id);
    if (it == ids.end()) continue;
    if (g.opcode == spv::Op::OpSpecConstant || g.opcode == spv::Op::OpSpecConstantTrue ||
        g.opcode == spv::Op::OpSpecConstantFalse)
      sizes[it->second] = size_of(m, g);
  }
  return sizes;
}

std::vector<uint32_t> specialize(const std::vector<uint32_t>& kernel_spirv,
                                 const std::map<uint32_t, std::vector<uint8_t>>& values) {
  // Most programs have neither: no parse (a third of a millisecond for a small kernel).
  if (values.empty() && !may_have_spec_constant_ops(kernel_spirv)) return kernel_spirv;
  ir::Module m;
  std::string error;
  if (!parse_input(kernel_spirv, &m, &error)) return kernel_spirv;
  bool has_ops = false;
  for (const auto& g : m.globals) has_ops = has_ops || g.opcode == spv::Op::OpSpecConstantOp;
  if (values.empty() && !has_ops) return kernel_spirv;
  auto ids = spec_ids(m);
  for (auto& g : m.globals) {
    auto id = ids.find(g.result_id);
    if (id == ids.end()) continue;
    auto v = values.find(id->second);
    if (v == values.end()) continue;
    const std::vector<uint8_t>& bytes = v->second;
    if (g.opcode == spv::Op::OpSpecConstantTrue || g.opcode == spv::Op::OpSpecConstantFalse) {
      bool on = false;
      for (uint8_t b : bytes) on = on || b;
      g.opcode = on ? spv::Op::OpSpecConstantTrue : spv::Op::OpSpecConstantFalse;
    } else if (g.opcode == spv::Op::OpSpecConstant) {
      // Literal words, little-endian, the value zero-extended to whole words.
      std::vector<uint32_t> words((bytes.size() + 3) / 4, 0);
      std::memcpy(words.data(), bytes.data(), bytes.size());
      if (words.size() == g.operands.size()) g.operands = words;
    }
  }
  // With every value final, operations on specialization constants are constants too.
  fold_spec_constant_ops(m);
  return ir::serialize(m);
}

}  // namespace vkcl::k2s
