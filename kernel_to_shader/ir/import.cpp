#include "ir/import.h"

#include <spirv-tools/libspirv.h>

#include <algorithm>
#include <optional>

#include "vkcl/common/host_allocation.h"

namespace vkcl::ir {

namespace {

bool is_id_operand(spv_operand_type_t t) {
  return t == SPV_OPERAND_TYPE_ID || t == SPV_OPERAND_TYPE_TYPE_ID ||
         t == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID || t == SPV_OPERAND_TYPE_SCOPE_ID;
}

bool is_type(spv::Op op) {
  switch (op) {
    case spv::Op::OpTypeVoid: case spv::Op::OpTypeBool: case spv::Op::OpTypeInt:
    case spv::Op::OpTypeFloat: case spv::Op::OpTypeVector: case spv::Op::OpTypeArray:
    case spv::Op::OpTypeStruct: case spv::Op::OpTypePointer: case spv::Op::OpTypeFunction:
    case spv::Op::OpTypeEvent: case spv::Op::OpTypeOpaque:
      return true;
    default:
      return false;
  }
}

bool is_constant(spv::Op op) {
  switch (op) {
    case spv::Op::OpConstant: case spv::Op::OpConstantTrue: case spv::Op::OpConstantFalse:
    case spv::Op::OpConstantNull: case spv::Op::OpConstantComposite: case spv::Op::OpUndef:
      return true;
    default:
      return false;
  }
}

// Types and constants are the same thing when their opcode, type and operand words are.
std::string key_of(const Instruction& i) {
  std::string key;
  auto put = [&](uint32_t w) { key.append(reinterpret_cast<const char*>(&w), sizeof(w)); };
  put(uint32_t(i.opcode));
  put(i.type_id);
  for (uint32_t w : i.operands) put(w);
  return key;
}

struct ParseState {
  std::vector<std::pair<Instruction, std::vector<uint16_t>>> insts;  // outside functions
  // Inside functions, grouped by function (each starts with its OpFunction), with their id
  // operand positions.
  std::vector<std::vector<Library::Raw>> functions;
  std::vector<std::vector<uint16_t>> function_ids;
  bool in_function = false;
  const uint32_t* base = nullptr;  // the words parsed: function instructions are kept as offsets
  size_t size = 0;
  int64_t shift = 0;  // added to offsets in |base| to make them offsets in the library's words
};

spv_result_t on_instruction(void* user, const spv_parsed_instruction_t* p) {
  auto* state = static_cast<ParseState*>(user);
  const spv::Op opcode = spv::Op(p->opcode);
  uint16_t first = uint16_t(1 + (p->type_id ? 1 : 0) + (p->result_id ? 1 : 0));
  if (opcode == spv::Op::OpFunction) {
    state->in_function = true;
    state->functions.emplace_back();
    state->function_ids.emplace_back();
  }
  if (state->in_function) {
    if (opcode == spv::Op::OpFunctionEnd) {
      state->in_function = false;
      return SPV_SUCCESS;
    }
    if (opcode == spv::Op::OpLine || opcode == spv::Op::OpNoLine) return SPV_SUCCESS;
    // The parser hands out words inside the module it was given (a little-endian one).
    if (p->words < state->base || p->words + p->num_words > state->base + state->size)
      return SPV_ERROR_INTERNAL;
    std::vector<uint16_t>& ids = state->function_ids.back();
    Library::Raw raw{uint32_t(p->words - state->base + state->shift), p->num_words, first,
                     uint32_t(ids.size()), 0, opcode, p->type_id, p->result_id};
    for (uint16_t k = 0; k < p->num_operands; ++k) {
      const spv_parsed_operand_t& o = p->operands[k];
      if (o.offset < first || !is_id_operand(o.type)) continue;
      ids.push_back(uint16_t(o.offset - first));
      ++raw.ids_count;
    }
    state->functions.back().push_back(raw);
    return SPV_SUCCESS;
  }
  Instruction inst;
  inst.opcode = opcode;
  inst.type_id = p->type_id;
  inst.result_id = p->result_id;
  inst.operands.assign(p->words + first, p->words + p->num_words);
  std::vector<uint16_t> ids;
  for (uint16_t k = 0; k < p->num_operands; ++k) {
    const spv_parsed_operand_t& o = p->operands[k];
    if (o.offset < first || !is_id_operand(o.type)) continue;
    ids.push_back(uint16_t(o.offset - first));
  }
  state->insts.emplace_back(std::move(inst), std::move(ids));
  return SPV_SUCCESS;
}

// Parses |count| words at |words| into |state|; the diagnostic in |error| on failure.
bool parse_into(ParseState* state, const uint32_t* words, size_t count, std::string* error) {
  state->base = words;
  state->size = count;
  // SPIRV-Tools, and on_instruction, which it calls.
  std::optional<vkcl::host_allocation::ForeignCode> foreign(std::in_place);
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  spv_diagnostic diagnostic = nullptr;
  spv_result_t r = spvBinaryParse(context, state, words, count, nullptr, on_instruction, &diagnostic);
  if (r != SPV_SUCCESS && error) *error = diagnostic && diagnostic->error ? diagnostic->error : "malformed SPIR-V";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return r == SPV_SUCCESS;
}

// Words taken by the literal string at |words|[at] (of |end|), or 0 when it is not closed.
size_t string_words(const uint32_t* words, size_t at, size_t end) {
  for (size_t k = at; k < end; ++k)
    if ((words[k] >> 24) == 0 || ((words[k] >> 16) & 0xff) == 0 || ((words[k] >> 8) & 0xff) == 0 ||
        (words[k] & 0xff) == 0)
      return k - at + 1;
  return 0;
}

// The declarations before a library's first function (types, constants, names, decorations:
// 22,000 instructions in libclc) parsed by their opcodes' layouts alone: SPIRV-Tools' parser,
// which looks every operand up in the grammar, took 4/5 of a library's load (15 ms on
// lavapipe's machine for libclc, which a process's first build waited for). False, with
// nothing added, for an opcode not listed here or a layout that does not fit: the caller
// parses with SPIRV-Tools then.
bool parse_declarations(ParseState* state, const uint32_t* words, size_t count) {
  if (count < 5 || words[0] != 0x07230203u) return false;
  std::vector<std::pair<Instruction, std::vector<uint16_t>>> out;
  size_t instructions = 0;
  for (size_t at = 5; at < count && (words[at] >> 16) != 0; at += words[at] >> 16) ++instructions;
  out.reserve(instructions);
  for (size_t at = 5; at < count;) {
    const uint32_t n = words[at] >> 16;
    const spv::Op op = spv::Op(words[at] & 0xffff);
    if (n == 0 || n > count - at) return false;
    const size_t end = at + n;
    bool typed = false, result = false;
    spv::HasResultAndType(op, &result, &typed);
    const size_t first = at + 1 + (typed ? 1 : 0) + (result ? 1 : 0);
    if (first > end) return false;
    const size_t operands = end - first;
    std::vector<uint16_t> ids;
    auto all_ids = [&](size_t from) {
      for (size_t k = from; k < operands; ++k) ids.push_back(uint16_t(k));
    };
    auto string_at = [&](size_t operand) {
      return operand < operands ? string_words(words, first + operand, end) : 0;
    };
    switch (op) {
      case spv::Op::OpCapability: case spv::Op::OpMemoryModel: case spv::Op::OpTypeVoid:
      case spv::Op::OpTypeBool: case spv::Op::OpTypeInt: case spv::Op::OpTypeFloat:
      case spv::Op::OpTypeSampler: case spv::Op::OpTypeEvent: case spv::Op::OpTypeDeviceEvent:
      case spv::Op::OpTypeReserveId: case spv::Op::OpTypeQueue: case spv::Op::OpTypePipe:
      case spv::Op::OpConstantTrue: case spv::Op::OpConstantFalse: case spv::Op::OpConstant:
      case spv::Op::OpConstantNull: case spv::Op::OpConstantSampler: case spv::Op::OpUndef:
      case spv::Op::OpSpecConstantTrue: case spv::Op::OpSpecConstantFalse:
      case spv::Op::OpSpecConstant: case spv::Op::OpDecorationGroup: case spv::Op::OpNoLine:
        break;
      case spv::Op::OpExtension: case spv::Op::OpExtInstImport: case spv::Op::OpSourceExtension:
      case spv::Op::OpString: case spv::Op::OpModuleProcessed: case spv::Op::OpTypeOpaque:
        if (string_at(0) != operands) return false;
        break;
      case spv::Op::OpName:
        if (operands < 2 || 1 + string_at(1) != operands) return false;
        ids = {0};
        break;
      case spv::Op::OpMemberName:
        if (operands < 3 || 2 + string_at(2) != operands) return false;
        ids = {0};
        break;
      case spv::Op::OpSource:
        // Language, version, then an optional file and source text.
        if (operands > 2) ids = {2};
        if (operands > 3 && 3 + string_at(3) != operands) return false;
        break;
      case spv::Op::OpDecorate: case spv::Op::OpMemberDecorate: case spv::Op::OpExecutionMode:
      case spv::Op::OpLine: case spv::Op::OpTypeVector: case spv::Op::OpTypeMatrix:
      case spv::Op::OpTypeImage: case spv::Op::OpTypeSampledImage:
      case spv::Op::OpTypeRuntimeArray: case spv::Op::OpTypeForwardPointer:
        if (operands < 1) return false;
        ids = {0};
        break;
      case spv::Op::OpTypeArray:
        if (operands != 2) return false;
        ids = {0, 1};
        break;
      case spv::Op::OpTypePointer:
        if (operands != 2) return false;
        ids = {1};
        break;
      case spv::Op::OpVariable:
        if (operands < 1 || operands > 2) return false;
        if (operands == 2) ids = {1};
        break;
      case spv::Op::OpTypeStruct: case spv::Op::OpTypeFunction: case spv::Op::OpConstantComposite:
      case spv::Op::OpSpecConstantComposite: case spv::Op::OpGroupDecorate:
        all_ids(0);
        break;
      case spv::Op::OpEntryPoint: {
        const size_t name = string_at(2);
        if (operands < 3 || name == 0) return false;
        ids = {1};
        all_ids(2 + name);
        break;
      }
      default:
        return false;  // SPIRV-Tools knows it
    }
    Instruction inst;
    inst.opcode = op;
    size_t w = at + 1;
    if (typed) inst.type_id = words[w++];
    if (result) inst.result_id = words[w++];
    inst.operands.assign(words + first, words + end);
    out.emplace_back(std::move(inst), std::move(ids));
    at = end;
  }
  state->insts = std::move(out);
  return true;
}

}  // namespace

std::unique_ptr<Library> Library::load(std::vector<uint32_t> words, std::string* error,
                                       bool no_contraction, bool eager) {
  // Where the functions start (SPIR-V puts them last), found by instruction lengths.
  size_t functions_at = words.size();
  for (size_t at = 5; at < words.size() && functions_at == words.size();) {
    const uint32_t n = words[at] >> 16;
    if (n == 0 || n > words.size() - at) break;  // the parser below says what is wrong
    if (spv::Op(words[at] & 0xffff) == spv::Op::OpFunction) functions_at = at;
    at += n;
  }
  ParseState state;
  if ((eager || !parse_declarations(&state, words.data(), functions_at)) &&
      !parse_into(&state, words.data(), eager ? words.size() : functions_at, error))
    return nullptr;
  auto lib = std::make_unique<Library>();
  size_t decorations = 0, names = 0;
  for (const auto& [inst, ids] : state.insts) {
    decorations += inst.opcode == spv::Op::OpDecorate;
    names += inst.opcode == spv::Op::OpName;
  }
  lib->decorations_.reserve(decorations);
  lib->names_.reserve(names);
  lib->globals_.reserve(state.insts.size() - decorations - names);
  for (auto& [inst, ids] : state.insts) {
    spv::Op op = inst.opcode;
    if (op == spv::Op::OpExtInstImport) {
      lib->ext_sets_[inst.result_id] = decode_string(inst.operands, 0);
    } else if (op == spv::Op::OpName) {
      lib->names_.emplace(decode_string(inst.operands, 1), inst.operands[0]);
    } else if (op == spv::Op::OpDecorate) {
      uint32_t target = inst.operands[0];
      if (spv::Decoration(inst.operands[1]) == spv::Decoration::LinkageAttributes) {
        // The linkage name wins over a debug name of the same spelling.
        std::string name = decode_string(inst.operands, 2);
        lib->names_[name] = target;
      }
      lib->decorations_[target].push_back({std::move(inst), std::move(ids)});
    } else if (inst.result_id && (is_type(op) || is_constant(op) || op == spv::Op::OpVariable ||
                                  op == spv::Op::OpTypeForwardPointer)) {
      lib->globals_[inst.result_id] = {std::move(inst), std::move(ids)};
    }
  }
  // What a function parsed alone needs of the rest.
  lib->prefix_.assign(words.begin(), words.begin() + std::min<size_t>(5, words.size()));
  for (size_t at = 5; at < functions_at;) {
    const uint32_t n = words[at] >> 16;
    const spv::Op op = spv::Op(words[at] & 0xffff);
    if (op == spv::Op::OpCapability || op == spv::Op::OpExtension || op == spv::Op::OpExtInstImport ||
        op == spv::Op::OpMemoryModel || op == spv::Op::OpTypeInt || op == spv::Op::OpTypeFloat)
      lib->prefix_.insert(lib->prefix_.end(), words.begin() + at, words.begin() + at + n);
    at += n;
  }
  // The functions' places (the parse above checked the lengths up to here; the rest are
  // checked now).
  Function* open = nullptr;
  for (size_t at = functions_at; at < words.size();) {
    const uint32_t n = words[at] >> 16;
    const spv::Op op = spv::Op(words[at] & 0xffff);
    if (n == 0 || n > words.size() - at || (op == spv::Op::OpFunction && (n != 5 || open)) ||
        (op == spv::Op::OpFunctionEnd && !open) || (op != spv::Op::OpFunction && !open)) {
      *error = "malformed SPIR-V function at word " + std::to_string(at);
      return nullptr;
    }
    if (op == spv::Op::OpFunction) {
      open = &lib->functions_[words[at + 2]];
      open->begin = uint32_t(at);
    } else if (op == spv::Op::OpFunctionEnd) {
      open->end = uint32_t(at);
      open = nullptr;
    } else if (op == spv::Op::OpLabel) {
      open->defined = true;
    } else if (no_contraction && n >= 4 &&
               (op == spv::Op::OpFMul || op == spv::Op::OpFAdd || op == spv::Op::OpFSub)) {
      lib->decorations_[words[at + 2]].push_back(
          {Instruction(spv::Op::OpDecorate, 0, 0, {words[at + 2], uint32_t(spv::Decoration::NoContraction)}), {0}});
    }
    at += n;
  }
  if (open) {
    *error = "malformed SPIR-V: a function without OpFunctionEnd";
    return nullptr;
  }
  for (size_t k = 0; k < state.functions.size(); ++k) {  // eager: every body parsed already
    auto f = lib->functions_.find(state.functions[k].front().result_id);
    if (f == lib->functions_.end()) continue;
    f->second.body = std::move(state.functions[k]);
    f->second.ids = std::move(state.function_ids[k]);
    f->second.parsed.store(true);
  }
  // Names that do not denote a defined function (variables, declarations) are dropped.
  for (auto it = lib->names_.begin(); it != lib->names_.end();) {
    auto f = lib->functions_.find(it->second);
    bool defined = f != lib->functions_.end() && f->second.defined;
    it = defined ? std::next(it) : lib->names_.erase(it);
  }
  lib->words_ = std::move(words);
  return lib;
}

bool Library::parse_body(const Function& f) const {
  if (f.parsed.load(std::memory_order_acquire)) return true;
  std::lock_guard<std::mutex> lock(parse_mutex_);
  if (f.parsed.load(std::memory_order_relaxed)) return true;
  // The function alone, after the prefix, parses as a module of its own. Should that fail
  // (a library whose bodies need more of the module than the prefix has), the whole module
  // is parsed, as before bodies were parsed lazily.
  std::vector<uint32_t> module = prefix_;
  module.insert(module.end(), words_.begin() + f.begin, words_.begin() + f.end);
  module.push_back((1u << 16) | uint32_t(spv::Op::OpFunctionEnd));
  ParseState state;
  state.shift = int64_t(f.begin) - int64_t(prefix_.size());
  size_t k = 0;
  if (!parse_into(&state, module.data(), module.size(), nullptr) || state.functions.size() != 1) {
    state = ParseState{};
    if (!parse_into(&state, words_.data(), words_.size(), nullptr)) return false;
    for (k = 0; k < state.functions.size() && state.functions[k].front().at != f.begin; ++k) {
    }
    if (k == state.functions.size()) return false;
  }
  f.body = std::move(state.functions[k]);
  f.ids = std::move(state.function_ids[k]);
  f.parsed.store(true, std::memory_order_release);
  return true;
}

Library::Inst Library::materialize(const Function& f, const Raw& raw) const {
  Inst i{Instruction(raw.opcode, raw.type_id, raw.result_id,
                     std::vector<uint32_t>(words_.begin() + raw.at + raw.first, words_.begin() + raw.at + raw.words)),
         std::vector<uint16_t>(f.ids.begin() + raw.ids_at, f.ids.begin() + raw.ids_at + raw.ids_count)};
  return i;
}

std::vector<std::string> Library::names() const {
  std::vector<std::string> out;
  for (const auto& [name, id] : names_) out.push_back(name);
  return out;
}

uint32_t Library::find(const std::string& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? 0 : it->second;
}

Importer::Importer(Module& target) : target_(target) {
  for (const Instruction& g : target_.globals)
    if (is_type(g.opcode) || is_constant(g.opcode)) known_.emplace(key_of(g), g.result_id);
}

uint32_t Importer::ext_set(const std::string& name) {
  for (const Instruction& e : target_.ext_inst_imports)
    if (decode_string(e.operands, 0) == name) return e.result_id;
  Instruction imp(spv::Op::OpExtInstImport, 0, target_.take_id());
  append_string(&imp.operands, name);
  target_.ext_inst_imports.push_back(imp);
  return imp.result_id;
}

uint32_t Importer::map(const Library& lib, uint32_t id) {
  auto& ids = ids_[&lib];
  if (auto it = ids.find(id); it != ids.end()) return it->second;
  if (auto s = lib.ext_sets_.find(id); s != lib.ext_sets_.end())
    return ids[id] = ext_set(s->second);
  if (auto f = lib.functions_.find(id); f != lib.functions_.end()) {
    if (!f->second.defined && error_.empty())
      error_ = "the built-in library declares a function it does not define";
    uint32_t fresh = target_.take_id();
    ids[id] = fresh;
    pending_.emplace_back(&lib, id);
    return fresh;
  }
  auto g = lib.globals_.find(id);
  if (g == lib.globals_.end()) {
    if (error_.empty()) error_ = "the built-in library refers to an undefined id";
    return ids[id] = target_.take_id();
  }
  if (auto d = lib.decorations_.find(id); d != lib.decorations_.end())
    for (const auto& dec : d->second)
      if (spv::Decoration(dec.inst.operands[1]) == spv::Decoration::LinkageAttributes &&
          spv::LinkageType(dec.inst.operands.back()) == spv::LinkageType::Import &&
          error_.empty())
        error_ = "a built-in library function uses " + decode_string(dec.inst.operands, 2) +
                 ", which vkcl does not provide";
  Instruction inst = g->second.inst;
  inst.type_id = inst.type_id ? map(lib, inst.type_id) : 0;
  for (uint16_t pos : g->second.ids) inst.operands[pos] = map(lib, inst.operands[pos]);
  if (inst.opcode != spv::Op::OpVariable) {
    std::string key = key_of(inst);
    if (auto k = known_.find(key); k != known_.end()) return ids[id] = k->second;
    inst.result_id = target_.take_id();
    known_.emplace(key, inst.result_id);
  } else {
    inst.result_id = target_.take_id();
  }
  ids[id] = inst.result_id;
  target_.globals.push_back(inst);
  if (auto d = lib.decorations_.find(id); d != lib.decorations_.end())
    for (const auto& dec : d->second) {
      auto kind = spv::Decoration(dec.inst.operands[1]);
      if (kind == spv::Decoration::LinkageAttributes || kind == spv::Decoration::BuiltIn) continue;
      Instruction copy = dec.inst;
      copy.operands[0] = inst.result_id;
      target_.annotations.push_back(copy);
    }
  return inst.result_id;
}

std::vector<uint32_t> Importer::remap(const Library& lib, const Library::Inst& inst,
                                      const std::unordered_map<uint32_t, uint32_t>& locals) {
  std::vector<uint32_t> ops = inst.inst.operands;
  for (uint16_t pos : inst.ids) {
    auto l = locals.find(ops[pos]);
    ops[pos] = l != locals.end() ? l->second : map(lib, ops[pos]);
  }
  return ops;
}

void Importer::import_body(const Library& lib, uint32_t lib_id, uint32_t new_id) {
  const Library::Function& source = lib.functions_.at(lib_id);
  if (!lib.parse_body(source)) {
    if (error_.empty()) error_ = "a built-in library function cannot be parsed";
    return;
  }
  std::unordered_map<uint32_t, uint32_t> locals;
  for (const auto& r : source.body)
    if (r.result_id && r.opcode != spv::Op::OpFunction) locals[r.result_id] = target_.take_id();
  ir::Function f;
  ir::Block* block = nullptr;
  for (const auto& r : source.body) {
    const Library::Inst i = lib.materialize(source, r);
    Instruction out(i.inst.opcode, i.inst.type_id ? map(lib, i.inst.type_id) : 0,
                    i.inst.result_id ? (i.inst.opcode == spv::Op::OpFunction
                                            ? new_id
                                            : locals.at(i.inst.result_id))
                                     : 0,
                    remap(lib, i, locals));
    switch (out.opcode) {
      case spv::Op::OpFunction: f.definition = std::move(out); break;
      case spv::Op::OpFunctionParameter: f.parameters.push_back(std::move(out)); break;
      case spv::Op::OpLabel:
        f.blocks.push_back(Block{out.result_id, {}});
        block = &f.blocks.back();
        break;
      default:
        if (block) block->instructions.push_back(std::move(out));
    }
  }
  // Decorations of the body's values (NoContraction, FPRoundingMode, Alignment...).
  for (const auto& [old_id, fresh] : locals) {
    auto d = lib.decorations_.find(old_id);
    if (d == lib.decorations_.end()) continue;
    for (const auto& dec : d->second) {
      Instruction copy = dec.inst;
      copy.operands[0] = fresh;
      target_.annotations.push_back(copy);
    }
  }
  target_.functions.push_back(std::move(f));
}

uint32_t Importer::intern(Instruction inst) {
  std::string key = key_of(inst);
  if (auto k = known_.find(key); k != known_.end()) return k->second;
  inst.result_id = target_.take_id();
  known_.emplace(key, inst.result_id);
  target_.globals.push_back(inst);
  return inst.result_id;
}

uint32_t Importer::function(const Library& lib, const std::string& name, std::string* error) {
  uint32_t lib_id = lib.find(name);
  if (!lib_id) return 0;
  uint32_t id = map(lib, lib_id);
  while (!pending_.empty()) {
    auto [from, fid] = pending_.back();
    pending_.pop_back();
    import_body(*from, fid, ids_[from].at(fid));
  }
  if (!error_.empty()) {
    *error = error_ + " (importing " + name + ")";
    return 0;
  }
  return id;
}

uint32_t Importer::imported(const Library& lib, const std::string& name) const {
  uint32_t lib_id = lib.find(name);
  auto ids = ids_.find(&lib);
  if (!lib_id || ids == ids_.end()) return 0;
  auto it = ids->second.find(lib_id);
  return it == ids->second.end() ? 0 : it->second;
}

}  // namespace vkcl::ir
