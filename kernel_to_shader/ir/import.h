// Functions imported by name from a library module (Debian's libclc SPIR-V, vkcl's own
// polyfills) into the module being translated, together with their callees, types, constants
// and tables. spirv-link cannot do this: it would pull in the whole 2.5 MB library, and the
// library has unresolved imports of its own.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/module.h"

namespace vkcl::ir {

class Library {
 public:
  // Indexes |words| (a Kernel SPIR-V module); nullptr with |error| set when it is malformed.
  // With |no_contraction|, every float multiply, add and subtraction of the library is
  // decorated NoContraction: its code relies on their separate roundings (exact products
  // and sums), which a driver could otherwise fuse. Function bodies are parsed when first
  // imported (|eager|: all of them now, in one parse of the module, as tests compare).
  static std::unique_ptr<Library> load(std::vector<uint32_t> words, std::string* error,
                                       bool no_contraction = false, bool eager = false);
  // The function exported (or named) |name|, or 0.
  uint32_t find(const std::string& name) const;
  std::vector<std::string> names() const;  // every name find() knows

 private:
  friend class Importer;
  // An instruction and the positions in its operands that hold ids (SPIRV-Tools' grammar
  // knows which words are ids; our Instruction does not).
  struct Inst {
    Instruction inst;
    std::vector<uint16_t> ids;
  };
 public:
  // A function body instruction, kept as its place in |words_|. Public for the parser's
  // callback.
  struct Raw {
    uint32_t at;         // first word (the opcode word) in words_
    uint16_t words;      // instruction length
    uint16_t first;      // index of the first operand word after type and result ids
    uint32_t ids_at;     // its id operand positions: the function's ids[ids_at .. + ids_count)
    uint16_t ids_count;
    spv::Op opcode;
    uint32_t type_id, result_id;
  };

 private:
  // A program uses a few of libclc's 2000 functions, and parsing every body took 27 ms of a
  // process's first build on lavapipe (most of libclc's words are bodies): at load only their
  // places are found, by instruction lengths.
  struct Function {
    uint32_t begin = 0, end = 0;  // words_ from OpFunction up to, not including, OpFunctionEnd
    bool defined = false;         // has a body, not only a declaration
    mutable std::atomic<bool> parsed{false};
    mutable std::vector<Raw> body;       // once parsed: OpFunction up to OpFunctionEnd
    mutable std::vector<uint16_t> ids;  // once parsed: the body's id operand positions
  };
  // |f| with its body parsed (under parse_mutex_ the first time); false when SPIRV-Tools
  // cannot parse it.
  bool parse_body(const Function& f) const;
  Inst materialize(const Function& f, const Raw& raw) const;
  std::vector<uint32_t> words_;
  // The header and what parsing a function alone needs: capabilities, extended instruction
  // sets, the memory model, integer and float types.
  std::vector<uint32_t> prefix_;
  mutable std::mutex parse_mutex_;
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
