#include "ir/module.h"

#include <unordered_set>

namespace vkcl::ir {

const Instruction* Block::merge() const {
  if (instructions.size() < 2) return nullptr;
  const Instruction& m = instructions[instructions.size() - 2];
  if (m.opcode == spv::Op::OpSelectionMerge || m.opcode == spv::Op::OpLoopMerge) return &m;
  return nullptr;
}

std::vector<uint32_t> Block::successors(uint32_t switch_literal_words) const {
  std::vector<uint32_t> out;
  if (instructions.empty()) return out;
  const Instruction& t = instructions.back();
  switch (t.opcode) {
    case spv::Op::OpBranch:
      out.push_back(t.operands[0]);
      break;
    case spv::Op::OpBranchConditional:
      out.push_back(t.operands[1]);
      out.push_back(t.operands[2]);
      break;
    case spv::Op::OpSwitch:
      // selector, default, then (literal, label) pairs; a literal is as wide as the selector.
      out.push_back(t.operands[1]);
      for (size_t i = 2 + switch_literal_words; i < t.operands.size();
           i += switch_literal_words + 1)
        out.push_back(t.operands[i]);
      break;
    default:
      break;
  }
  return out;
}

Block* Function::find_block(uint32_t label) {
  for (Block& b : blocks)
    if (b.label == label) return &b;
  return nullptr;
}

std::string decode_string(const std::vector<uint32_t>& words, size_t first_word) {
  std::string s;
  for (size_t i = first_word; i < words.size(); ++i) {
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((words[i] >> (8 * b)) & 0xff);
      if (c == 0) return s;
      s.push_back(c);
    }
  }
  return s;
}

void append_string(std::vector<uint32_t>* words, const std::string& text) {
  size_t n = text.size() / 4 + 1;
  size_t start = words->size();
  words->resize(start + n, 0);
  for (size_t i = 0; i < text.size(); ++i)
    (*words)[start + i / 4] |= uint32_t(uint8_t(text[i])) << (8 * (i % 4));
}

namespace {

bool is_type_or_global(spv::Op op) {
  switch (op) {
    case spv::Op::OpTypeVoid: case spv::Op::OpTypeBool: case spv::Op::OpTypeInt:
    case spv::Op::OpTypeFloat: case spv::Op::OpTypeVector: case spv::Op::OpTypeMatrix:
    case spv::Op::OpTypeImage: case spv::Op::OpTypeSampler: case spv::Op::OpTypeSampledImage:
    case spv::Op::OpTypeArray: case spv::Op::OpTypeRuntimeArray: case spv::Op::OpTypeStruct:
    case spv::Op::OpTypeOpaque: case spv::Op::OpTypePointer: case spv::Op::OpTypeFunction:
    case spv::Op::OpTypeEvent: case spv::Op::OpTypeDeviceEvent: case spv::Op::OpTypeReserveId:
    case spv::Op::OpTypeQueue: case spv::Op::OpTypePipe: case spv::Op::OpTypeForwardPointer:
    case spv::Op::OpConstantTrue: case spv::Op::OpConstantFalse: case spv::Op::OpConstant:
    case spv::Op::OpConstantComposite: case spv::Op::OpConstantSampler:
    case spv::Op::OpConstantNull: case spv::Op::OpSpecConstantTrue:
    case spv::Op::OpSpecConstantFalse: case spv::Op::OpSpecConstant:
    case spv::Op::OpSpecConstantComposite: case spv::Op::OpSpecConstantOp:
    case spv::Op::OpVariable: case spv::Op::OpUndef: case spv::Op::OpTypePipeStorage:
    case spv::Op::OpConstantPipeStorage: case spv::Op::OpTypeNamedBarrier:
    case spv::Op::OpLine: case spv::Op::OpNoLine:
      return true;
    default:
      return false;
  }
}

bool is_debug(spv::Op op) {
  switch (op) {
    case spv::Op::OpString: case spv::Op::OpSourceExtension: case spv::Op::OpSource:
    case spv::Op::OpSourceContinued: case spv::Op::OpName: case spv::Op::OpMemberName:
    case spv::Op::OpModuleProcessed:
      return true;
    default:
      return false;
  }
}

bool is_annotation(spv::Op op) {
  switch (op) {
    case spv::Op::OpDecorate: case spv::Op::OpMemberDecorate: case spv::Op::OpDecorationGroup:
    case spv::Op::OpGroupDecorate: case spv::Op::OpGroupMemberDecorate:
    case spv::Op::OpDecorateId: case spv::Op::OpDecorateString:
    case spv::Op::OpMemberDecorateString:
      return true;
    default:
      return false;
  }
}

bool is_terminator(spv::Op op) {
  switch (op) {
    case spv::Op::OpBranch: case spv::Op::OpBranchConditional: case spv::Op::OpSwitch:
    case spv::Op::OpReturn: case spv::Op::OpReturnValue: case spv::Op::OpKill:
    case spv::Op::OpUnreachable: case spv::Op::OpTerminateInvocation:
      return true;
    default:
      return false;
  }
}

void emit(std::vector<uint32_t>* out, const Instruction& inst) {
  uint32_t count = 1 + (inst.type_id ? 1 : 0) + (inst.result_id ? 1 : 0) +
                   static_cast<uint32_t>(inst.operands.size());
  out->push_back((count << 16) | static_cast<uint32_t>(inst.opcode));
  if (inst.type_id) out->push_back(inst.type_id);
  if (inst.result_id) out->push_back(inst.result_id);
  out->insert(out->end(), inst.operands.begin(), inst.operands.end());
}

}  // namespace

bool parse(const uint32_t* words, size_t count, Module* module, std::string* error) {
  *module = Module();
  if (count < 5 || words[0] != spv::MagicNumber) {
    *error = "not a SPIR-V binary (bad magic number or too short)";
    return false;
  }
  module->version = words[1];
  module->generator = words[2];
  module->bound = words[3];
  Function* function = nullptr;
  Block* block = nullptr;
  // Debug-information and other non-semantic instruction sets (OpenCL.DebugInfo.100 of
  // cl_khr_spirv_extended_debug_info, NonSemantic.*): their imports and instructions are
  // dropped here, since nothing else may use their results and Vulkan does not take
  // OpenCL.DebugInfo.100.
  std::unordered_set<uint32_t> dropped_sets;
  size_t i = 5;
  while (i < count) {
    uint32_t word_count = words[i] >> 16;
    auto op = static_cast<spv::Op>(words[i] & 0xffff);
    if (word_count == 0 || i + word_count > count) {
      *error = "truncated instruction at word " + std::to_string(i);
      return false;
    }
    bool has_result = false, has_type = false;
    spv::HasResultAndType(op, &has_result, &has_type);
    Instruction inst;
    inst.opcode = op;
    size_t w = i + 1;
    size_t end = i + word_count;
    if (has_type) {
      if (w >= end) { *error = "instruction missing its result type"; return false; }
      inst.type_id = words[w++];
    }
    if (has_result) {
      if (w >= end) { *error = "instruction missing its result id"; return false; }
      inst.result_id = words[w++];
      if (inst.result_id == 0 || inst.result_id >= module->bound) {
        *error = "result id out of the module's bound";
        return false;
      }
    }
    inst.operands.assign(words + w, words + end);
    i = end;
    if (op == spv::Op::OpExtInstImport) {
      std::string name = decode_string(inst.operands, 0);
      if (name == "OpenCL.DebugInfo.100" || name.rfind("NonSemantic.", 0) == 0) {
        dropped_sets.insert(inst.result_id);
        continue;
      }
    }
    if (op == spv::Op::OpExtInst && !inst.operands.empty() && dropped_sets.count(inst.operands[0]))
      continue;

    if (function) {
      if (op == spv::Op::OpFunctionEnd) {
        if (block) { *error = "function ends inside a block"; return false; }
        function = nullptr;
      } else if (op == spv::Op::OpFunctionParameter) {
        function->parameters.push_back(std::move(inst));
      } else if (op == spv::Op::OpLabel) {
        if (block) { *error = "block without terminator"; return false; }
        function->blocks.push_back(Block{inst.result_id, {}});
        block = &function->blocks.back();
      } else if (op == spv::Op::OpLine || op == spv::Op::OpNoLine) {
        continue;  // debug line info is dropped
      } else {
        if (!block) { *error = "instruction outside a block"; return false; }
        bool term = is_terminator(op);
        block->instructions.push_back(std::move(inst));
        if (term) block = nullptr;
      }
      continue;
    }
    switch (op) {
      case spv::Op::OpCapability: module->capabilities.push_back(std::move(inst)); break;
      case spv::Op::OpExtension: module->extensions.push_back(std::move(inst)); break;
      case spv::Op::OpExtInstImport: module->ext_inst_imports.push_back(std::move(inst)); break;
      case spv::Op::OpMemoryModel: module->memory_model = std::move(inst); break;
      case spv::Op::OpEntryPoint: module->entry_points.push_back(std::move(inst)); break;
      case spv::Op::OpExecutionMode:
      case spv::Op::OpExecutionModeId:
        module->execution_modes.push_back(std::move(inst));
        break;
      case spv::Op::OpFunction:
        module->functions.push_back(Function{std::move(inst), {}, {}});
        function = &module->functions.back();
        break;
      default:
        if (is_debug(op)) module->debug.push_back(std::move(inst));
        else if (is_annotation(op)) module->annotations.push_back(std::move(inst));
        else if (is_type_or_global(op)) {
          if (op != spv::Op::OpLine && op != spv::Op::OpNoLine)
            module->globals.push_back(std::move(inst));
        } else {
          *error = std::string("unexpected instruction at module scope (opcode ") +
                   std::to_string(static_cast<uint32_t>(op)) + ")";
          return false;
        }
    }
  }
  if (function) {
    *error = "module ends inside a function";
    return false;
  }
  return true;
}

std::vector<uint32_t> serialize(const Module& m) {
  std::vector<uint32_t> out = {spv::MagicNumber, m.version, m.generator, m.bound, 0};
  for (const auto& i : m.capabilities) emit(&out, i);
  for (const auto& i : m.extensions) emit(&out, i);
  for (const auto& i : m.ext_inst_imports) emit(&out, i);
  emit(&out, m.memory_model);
  for (const auto& i : m.entry_points) emit(&out, i);
  for (const auto& i : m.execution_modes) emit(&out, i);
  for (const auto& i : m.debug) emit(&out, i);
  for (const auto& i : m.annotations) emit(&out, i);
  for (const auto& i : m.globals) emit(&out, i);
  for (const auto& f : m.functions) {
    emit(&out, f.definition);
    for (const auto& p : f.parameters) emit(&out, p);
    for (const auto& b : f.blocks) {
      emit(&out, Instruction(spv::Op::OpLabel, 0, b.label));
      for (const auto& i : b.instructions) emit(&out, i);
    }
    emit(&out, Instruction(spv::Op::OpFunctionEnd, 0, 0));
  }
  return out;
}

}  // namespace vkcl::ir

namespace vkcl::ir {

uint32_t switch_literal_words(const Module& module, const Function& function,
                              const Instruction& opswitch) {
  uint32_t selector = opswitch.operands[0];
  uint32_t type = 0;
  for (const auto& p : function.parameters)
    if (p.result_id == selector) type = p.type_id;
  for (const auto& b : function.blocks)
    for (const auto& i : b.instructions)
      if (i.result_id == selector) type = i.type_id;
  for (const auto& g : module.globals)
    if (g.result_id == selector) type = g.type_id;
  for (const auto& g : module.globals)
    if (g.result_id == type && g.opcode == spv::Op::OpTypeInt)
      return g.operands[0] > 32 ? 2 : 1;
  return 1;
}

bool is_literal_operand(const Instruction& inst, size_t k) {
  switch (inst.opcode) {
    case spv::Op::OpExtInst: return k == 1;
    case spv::Op::OpCompositeExtract: return k >= 1;
    case spv::Op::OpCompositeInsert: case spv::Op::OpVectorShuffle: return k >= 2;
    case spv::Op::OpLoad: return k >= 1;
    case spv::Op::OpStore: case spv::Op::OpCopyMemory: return k >= 2;
    case spv::Op::OpCopyMemorySized: return k >= 3;
    case spv::Op::OpVariable: return k == 0;
    case spv::Op::OpSelectionMerge: return k >= 1;
    case spv::Op::OpLoopMerge: return k >= 2;
    case spv::Op::OpBranchConditional: return k >= 3;
    case spv::Op::OpSwitch: return k >= 2 && k % 2 == 0;  // 32-bit selectors
    case spv::Op::OpLifetimeStart: case spv::Op::OpLifetimeStop: return k == 1;
    case spv::Op::OpGroupIAdd: case spv::Op::OpGroupFAdd: case spv::Op::OpGroupFMin:
    case spv::Op::OpGroupUMin: case spv::Op::OpGroupSMin: case spv::Op::OpGroupFMax:
    case spv::Op::OpGroupUMax: case spv::Op::OpGroupSMax:
      return k == 1;
    default: return false;
  }
}

void copy_decorations(Module& module, const std::unordered_map<uint32_t, uint32_t>& copies) {
  std::vector<Instruction> added;
  for (const Instruction& a : module.annotations) {
    if (a.opcode != spv::Op::OpDecorate && a.opcode != spv::Op::OpDecorateId &&
        a.opcode != spv::Op::OpDecorateString)
      continue;
    auto it = copies.find(a.operands[0]);
    if (it == copies.end() || it->second == a.operands[0]) continue;
    Instruction c = a;
    c.operands[0] = it->second;
    added.push_back(c);
  }
  module.annotations.insert(module.annotations.end(), added.begin(), added.end());
}

uint32_t intern_global(Module& module, spv::Op op, uint32_t type, std::vector<uint32_t> operands) {
  for (const auto& g : module.globals)
    if (g.opcode == op && g.type_id == type && g.operands == operands) return g.result_id;
  uint32_t id = module.take_id();
  module.globals.emplace_back(op, type, id, std::move(operands));
  return id;
}

// A copy of |f| with fresh ids for everything it defines; decorations on those ids are
// copied too.
Function clone_function(Module& m, const Function& f) {
  std::unordered_map<uint32_t, uint32_t> fresh;
  auto rename = [&](uint32_t id) {
    if (id) fresh[id] = m.take_id();
  };
  rename(f.id());
  for (const auto& p : f.parameters) rename(p.result_id);
  for (const auto& b : f.blocks) {
    rename(b.label);
    for (const auto& i : b.instructions) rename(i.result_id);
  }
  auto mapped = [&](uint32_t id) {
    auto it = fresh.find(id);
    return it == fresh.end() ? id : it->second;
  };
  Function c = f;
  c.definition.result_id = mapped(f.id());
  for (auto& p : c.parameters) p.result_id = mapped(p.result_id);
  for (auto& b : c.blocks) {
    b.label = mapped(b.label);
    for (auto& i : b.instructions) {
      uint32_t switch_words = i.opcode == spv::Op::OpSwitch ? switch_literal_words(m, f, i) : 0;
      i.result_id = mapped(i.result_id);
      for (size_t k = 0; k < i.operands.size(); ++k) {
        bool literal = switch_words ? k >= 2 && (k - 2) % (switch_words + 1) != switch_words
                                    : is_literal_operand(i, k);
        if (!literal) i.operands[k] = mapped(i.operands[k]);
      }
    }
  }
  std::vector<Instruction> copies;
  for (const auto& a : m.annotations)
    if (a.opcode == spv::Op::OpDecorate && !a.operands.empty() && fresh.count(a.operands[0])) {
      Instruction d = a;
      d.operands[0] = fresh[a.operands[0]];
      copies.push_back(d);
    }
  m.annotations.insert(m.annotations.end(), copies.begin(), copies.end());
  return c;
}


}  // namespace vkcl::ir
