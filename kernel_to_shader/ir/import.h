// Functions imported by name from a library module (Debian's libclc SPIR-V, vkcl's own
// polyfills) into the module being translated, together with their callees, types, constants
// and tables. spirv-link cannot do this: it would pull in the whole 2.5 MB library, and the
// library has unresolved imports of its own.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/module.h"

namespace vkcl::ir {

class Library {
 public:
  // Parses |words| (a Kernel SPIR-V module); nullptr with |error| set when it is malformed.
  // With |no_contraction|, every float multiply, add and subtraction of the library is
  // decorated NoContraction: its code relies on their separate roundings (exact products
  // and sums), which a driver could otherwise fuse.
  static std::unique_ptr<Library> load(std::vector<uint32_t> words, std::string* error,
                                       bool no_contraction = false);
  // The function exported (or named) |name|, or 0.
  uint32_t find(const std::string& name) const;

 private:
  friend class Importer;
  // An instruction and the positions in its operands that hold ids (SPIRV-Tools' grammar
  // knows which words are ids; our Instruction does not).
  struct Inst {
    Instruction inst;
    std::vector<uint16_t> ids;
  };
 public:
  // A function body instruction, kept as its place in |words_| until a program imports the
  // function: a program uses a few of libclc's functions, and parsing every body into Insts
  // took 35-40 ms of a process's first build on lavapipe. Public for the parser's callback.
  struct Raw {
    uint32_t at;         // first word (the opcode word) in words_
    uint16_t words;      // instruction length
    uint16_t first;      // index of the first operand word after type and result ids
    uint32_t ids_at;     // its id operand positions: ids_[ids_at .. ids_at + ids_count)
    uint16_t ids_count;
    spv::Op opcode;
    uint32_t type_id, result_id;
  };

 private:
  struct Function {
    std::vector<Raw> body;  // OpFunction up to, not including, OpFunctionEnd
  };
  Inst materialize(const Raw& raw) const;
  std::vector<uint32_t> words_;
  std::vector<uint16_t> ids_;
  std::unordered_map<uint32_t, Inst> globals_;  // types, constants, variables, OpUndef by id
  std::unordered_map<uint32_t, std::string> ext_sets_;  // OpExtInstImport id -> set name
  std::unordered_map<uint32_t, Function> functions_;  // by function id
  std::unordered_map<std::string, uint32_t> names_;    // linkage or debug name -> function id
  std::unordered_map<uint32_t, std::vector<Inst>> decorations_;  // by target id
};

// Imports into one target module; remembers what it already brought in, per library.
class Importer {
 public:
  explicit Importer(Module& target);
  // Id in the target of library function |name| (imported with its callees on first use), or
  // 0 when |library| does not have it. Sets |error| and returns 0 on a construct it cannot
  // import (e.g. an unresolved import of the library).
  uint32_t function(const Library& library, const std::string& name, std::string* error);
  // Id in the target of library function |name| if it has been imported already, else 0.
  uint32_t imported(const Library& library, const std::string& name) const;
  // Id of a type or constant equal to |inst| (its operands already target ids), added to the
  // target when it has none.
  uint32_t intern(Instruction inst);

 private:
  uint32_t map(const Library& library, uint32_t id);
  uint32_t ext_set(const std::string& name);
  void import_body(const Library& library, uint32_t lib_id, uint32_t new_id);
  std::vector<uint32_t> remap(const Library& library, const Library::Inst& inst,
                              const std::unordered_map<uint32_t, uint32_t>& locals);

  Module& target_;
  std::unordered_map<std::string, uint32_t> known_;  // structural key -> target type/constant
  std::unordered_map<const Library*, std::unordered_map<uint32_t, uint32_t>> ids_;
  std::vector<std::pair<const Library*, uint32_t>> pending_;  // functions mapped, not yet copied
  std::string error_;
};

}  // namespace vkcl::ir
