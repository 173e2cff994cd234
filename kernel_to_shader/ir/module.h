// A small in-memory form of a SPIR-V module that passes read and rewrite.
// Instructions keep their operands as raw words; ids are plain uint32_t.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <spirv/unified1/spirv.hpp11>

namespace vkcl::ir {

struct Instruction {
  spv::Op opcode = spv::Op::OpNop;
  uint32_t type_id = 0;    // 0 when the opcode has no result type
  uint32_t result_id = 0;  // 0 when the opcode has no result
  std::vector<uint32_t> operands;  // every word after the result id

  Instruction() = default;
  Instruction(spv::Op op, uint32_t type, uint32_t result, std::vector<uint32_t> words = {})
      : opcode(op), type_id(type), result_id(result), operands(std::move(words)) {}
};

// A basic block: label id, then its instructions. OpPhi come first; the block ends with an
// optional merge instruction (OpSelectionMerge/OpLoopMerge) followed by the terminator.
struct Block {
  uint32_t label = 0;
  std::vector<Instruction> instructions;

  const Instruction& terminator() const { return instructions.back(); }
  Instruction& terminator() { return instructions.back(); }
  // Merge instruction, or nullptr.
  const Instruction* merge() const;
  // Label ids this block may branch to (from the terminator), in operand order, duplicates
  // kept. |switch_literal_words| is the width of an OpSwitch selector in words (1 or 2; see
  // switch_literal_words()).
  std::vector<uint32_t> successors(uint32_t switch_literal_words = 1) const;
};

struct Function {
  Instruction definition;           // OpFunction
  std::vector<Instruction> parameters;  // OpFunctionParameter
  std::vector<Block> blocks;        // first block is the entry

  uint32_t id() const { return definition.result_id; }
  Block* find_block(uint32_t label);
};

struct Module {
  uint32_t version = 0x00010000;
  uint32_t generator = 0;
  uint32_t bound = 1;

  std::vector<Instruction> capabilities;
  std::vector<Instruction> extensions;
  std::vector<Instruction> ext_inst_imports;
  Instruction memory_model;
  std::vector<Instruction> entry_points;
  std::vector<Instruction> execution_modes;
  std::vector<Instruction> debug;        // OpString, OpSource*, OpName, OpMemberName, OpModuleProcessed
  std::vector<Instruction> annotations;  // OpDecorate and friends
  std::vector<Instruction> globals;      // types, constants, global variables, OpUndef
  std::vector<Function> functions;

  uint32_t take_id() { return bound++; }
};

// Width in words of the case literals of |opswitch| (the selector's integer width / 32, at
// least 1), found by looking up the selector's type in |module| and |function|.
uint32_t switch_literal_words(const Module& module, const Function& function,
                              const Instruction& opswitch);

// Whether operand |k| of |inst| (a function-body instruction) is a literal rather than an id,
// so code that renames ids leaves it alone (e.g. OpExtInst's instruction number,
// OpCompositeExtract's indices, memory-operand alignments).
bool is_literal_operand(const Instruction& inst, size_t k);

// Gives each copy (|copies|: original id -> copy's id) the decorations of its original:
// SaturatedConversion, FPRoundingMode, NoContraction and the like belong to the value,
// however many times a pass duplicates the instruction that makes it.
void copy_decorations(Module& module, const std::unordered_map<uint32_t, uint32_t>& copies);

// A copy of |f| with fresh ids for everything it defines (decorations on them copied).
Function clone_function(Module& module, const Function& f);

// Parses a binary module. Returns false and sets |error| on malformed input.
// Id of the module-scope type, constant or OpUndef with this opcode, type and operands; added
// at the end of |module|'s globals when there is none.
uint32_t intern_global(Module& module, spv::Op op, uint32_t type, std::vector<uint32_t> operands);

bool parse(const uint32_t* words, size_t count, Module* module, std::string* error);
std::vector<uint32_t> serialize(const Module& module);

// Literal string helpers (SPIR-V packs strings little-endian, nul-terminated, word padded).
std::string decode_string(const std::vector<uint32_t>& words, size_t first_word);
void append_string(std::vector<uint32_t>* words, const std::string& text);

}  // namespace vkcl::ir
