#include "vkcl/kernel_to_shader/translate.h"

#include <spirv-tools/libspirv.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/module.h"
#include "input_checks.h"
#include "passes/pass.h"
#include "side_effects.h"
#include "work_group_packing.h"
#include "vkcl/common/host_allocation.h"

namespace vkcl::k2s {

std::string validate(const std::vector<uint32_t>& words, spv_target_env env) {
  host_allocation::ForeignCode foreign;  // SPIRV-Tools, and the consumer it calls
  spvtools::SpirvTools tools(env);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos,
                               const char* m) {
    messages += m;
    messages += " (word " + std::to_string(pos.index) + ")\n";
  });
  // Names in messages cost a quarter of the validator's time; they are looked up only for a
  // module that fails.
  spvtools::ValidatorOptions options;
  options.SetFriendlyNames(false);
  // The only uniform buffers are __constant arguments' word arrays (stride 4), made only for
  // devices with uniformBufferStandardLayout (TargetCaps::constant_buffer_words).
  options.SetUniformBufferStandardLayout(true);
  if (tools.Validate(words.data(), words.size(), options)) return "";
  messages.clear();
  options.SetFriendlyNames(true);
  tools.Validate(words.data(), words.size(), options);
  return messages.empty() ? "invalid module\n" : messages;
}

namespace {

// VKCL_DUMP_KERNEL_SPIRV=<folder>: every module the translator is given is written there,
// named by its FNV-1a hash, so that a test run leaves scripts/fuzz.sh its seed corpus. One
// getenv per translation, which takes milliseconds.
void dump_input(const std::vector<uint32_t>& words) {
  const char* folder = std::getenv("VKCL_DUMP_KERNEL_SPIRV");
  if (!folder || !*folder) return;
  uint32_t h = 2166136261u;
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) h = (h ^ ((w >> (8 * b)) & 0xff)) * 16777619u;
  char name[16];
  std::snprintf(name, sizeof name, "%08x", h);
  if (FILE* f = std::fopen((std::string(folder) + "/" + name + ".spv").c_str(), "wb")) {
    std::fwrite(words.data(), 4, words.size(), f);
    std::fclose(f);
  }
}

// Places the local memory regions (PassContext::local_regions) that the one kernel of
// |words| uses, one after the other from |base|, and turns every region's offset into a
// constant (0 for those it never reaches). Returns the kernel's local memory bytes. Called
// once the functions the kernel does not reach are gone, so a region is reached when any
// instruction left names its offset: kernels of one program share neither their local
// memory nor its limit, wherever the producer placed the variables and whichever functions
// use them.
uint32_t lay_out_local_memory(std::vector<uint32_t>& words,
                              const std::vector<PassContext::LocalRegion>& regions, uint32_t base) {
  struct Scan {
    std::unordered_map<uint32_t, size_t> region_of;   // offset id -> index in |regions|
    std::vector<bool> reached;
    std::unordered_map<uint32_t, size_t> defined_at;  // offset id -> word of its instruction
    const uint32_t* first = nullptr;
  } scan;
  for (size_t r = 0; r < regions.size(); ++r) scan.region_of[regions[r].offset_id] = r;
  scan.reached.assign(regions.size(), false);
  scan.first = words.data();
  std::optional<host_allocation::ForeignCode> foreign(std::in_place);  // SPIRV-Tools and |scan|
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_2);
  spvBinaryParse(
      context, &scan, words.data(), words.size(), nullptr,
      [](void* user, const spv_parsed_instruction_t* inst) -> spv_result_t {
        auto& s = *static_cast<Scan*>(user);
        for (uint16_t k = 0; k < inst->num_operands; ++k) {
          const spv_parsed_operand_t& o = inst->operands[k];
          if (o.type != SPV_OPERAND_TYPE_ID) continue;
          auto r = s.region_of.find(inst->words[o.offset]);
          if (r != s.region_of.end()) s.reached[r->second] = true;
        }
        if (s.region_of.count(inst->result_id))
          s.defined_at[inst->result_id] = size_t(inst->words - s.first);
        return SPV_SUCCESS;
      },
      nullptr);
  spvContextDestroy(context);
  foreign.reset();
  uint32_t end = base;
  for (size_t r = 0; r < regions.size(); ++r) {
    auto at = scan.defined_at.find(regions[r].offset_id);
    if (at == scan.defined_at.end()) continue;
    uint32_t offset = 0;
    if (scan.reached[r]) {
      uint32_t a = regions[r].alignment;
      offset = end = (end + a - 1) / a * a;
      end += regions[r].size;
    }
    // OpSpecConstant %uint 0 -> OpConstant %uint offset (same length).
    words[at->second] = (words[at->second] & 0xffff0000u) | uint32_t(spv::Op::OpConstant);
    words[at->second + 3] = offset;
  }
  return (end + 15) / 16 * 16;
}

// Drops the functions that none of |entries| calls, directly or not, with the names and
// decorations of everything they define.
void remove_unreached_functions(ir::Module& m, const std::vector<uint32_t>& entries) {
  std::unordered_map<uint32_t, size_t> index;
  for (size_t i = 0; i < m.functions.size(); ++i) index[m.functions[i].id()] = i;
  std::vector<bool> reached(m.functions.size());
  std::vector<size_t> work;
  auto reach = [&](uint32_t id) {
    auto it = index.find(id);
    if (it == index.end() || reached[it->second]) return;
    reached[it->second] = true;
    work.push_back(it->second);
  };
  for (uint32_t entry : entries) reach(entry);
  while (!work.empty()) {
    const ir::Function& f = m.functions[work.back()];
    work.pop_back();
    for (const ir::Block& b : f.blocks)
      for (const ir::Instruction& i : b.instructions)
        if (i.opcode == spv::Op::OpFunctionCall && !i.operands.empty()) reach(i.operands[0]);
  }
  std::unordered_set<uint32_t> gone;
  std::vector<ir::Function> kept;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    ir::Function& f = m.functions[i];
    if (reached[i]) {
      kept.push_back(std::move(f));
      continue;
    }
    gone.insert(f.id());
    for (const ir::Instruction& p : f.parameters) gone.insert(p.result_id);
    for (const ir::Block& b : f.blocks) {
      gone.insert(b.label);
      for (const ir::Instruction& in : b.instructions)
        if (in.result_id) gone.insert(in.result_id);
    }
  }
  m.functions = std::move(kept);
  if (gone.empty()) return;
  auto targets_gone = [&](const ir::Instruction& i) { return !i.operands.empty() && gone.count(i.operands[0]); };
  m.debug.erase(std::remove_if(m.debug.begin(), m.debug.end(),
                               [&](const ir::Instruction& i) { return i.opcode == spv::Op::OpName && targets_gone(i); }),
                m.debug.end());
  for (ir::Instruction& a : m.annotations)
    if (a.opcode == spv::Op::OpGroupDecorate)
      a.operands.erase(std::remove_if(a.operands.begin() + 1, a.operands.end(), [&](uint32_t t) { return gone.count(t) > 0; }),
                       a.operands.end());
  m.annotations.erase(std::remove_if(m.annotations.begin(), m.annotations.end(),
                                     [&](const ir::Instruction& i) {
                                       return (i.opcode == spv::Op::OpDecorate || i.opcode == spv::Op::OpDecorateId ||
                                               i.opcode == spv::Op::OpDecorateString) &&
                                              targets_gone(i);
                                     }),
                      m.annotations.end());
}

// The local arenas of the other kernels (wide_arena.cpp), which this one's functions do not
// name: drivers and validation count every Workgroup variable of a module against the
// device's shared memory, used or not.
void remove_other_arenas(ir::Module& m, const std::vector<uint32_t>& interface) {
  std::unordered_set<uint32_t> named;
  for (const auto& f : m.functions)
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        for (size_t k = 0; k < i.operands.size(); ++k)
          if (!ir::is_literal_operand(i, k)) named.insert(i.operands[k]);
  std::unordered_set<uint32_t> gone;
  for (const auto& g : m.globals)
    if (g.opcode == spv::Op::OpVariable && spv::StorageClass(g.operands[0]) == spv::StorageClass::Workgroup &&
        !named.count(g.result_id) && std::find(interface.begin(), interface.end(), g.result_id) == interface.end())
      gone.insert(g.result_id);
  if (gone.empty()) return;
  auto is_gone = [&](const ir::Instruction& i) { return gone.count(i.result_id) > 0; };
  m.globals.erase(std::remove_if(m.globals.begin(), m.globals.end(), is_gone), m.globals.end());
  auto names_gone = [&](const ir::Instruction& i) { return !i.operands.empty() && gone.count(i.operands[0]); };
  m.debug.erase(std::remove_if(m.debug.begin(), m.debug.end(), names_gone), m.debug.end());
  m.annotations.erase(std::remove_if(m.annotations.begin(), m.annotations.end(), names_gone), m.annotations.end());
}

// The module reduced to one kernel: its entry point renamed "main", its local memory laid out
// (|*local_bytes|) and functions it does not reach removed.
bool extract_kernel(const ir::Module& shader, size_t index, const PassContext& context,
                    std::vector<uint32_t>* out, uint32_t* local_bytes, std::string* log) {
  ir::Module m = shader;
  const ir::Instruction ep = shader.entry_points[index];
  m.entry_points.clear();
  ir::Instruction renamed(spv::Op::OpEntryPoint, 0, 0, {ep.operands[0], ep.operands[1]});
  std::string name = ir::decode_string(ep.operands, 2);
  ir::append_string(&renamed.operands, "main");
  size_t name_words = name.size() / 4 + 1;
  renamed.operands.insert(renamed.operands.end(), ep.operands.begin() + 2 + name_words,
                          ep.operands.end());
  m.entry_points.push_back(renamed);
  std::vector<ir::Instruction> modes;
  for (const auto& mode : m.execution_modes)
    if (mode.operands[0] == ep.operands[1]) modes.push_back(mode);
  m.execution_modes = modes;
  remove_unreached_functions(m, {ep.operands[1]});
  const size_t interface_at = 2 + 2;  // after the model, the function and "main" (two words)
  remove_other_arenas(m, std::vector<uint32_t>(renamed.operands.begin() + interface_at, renamed.operands.end()));
  *out = ir::serialize(m);
  *local_bytes = lay_out_local_memory(*out, context.local_regions, context.local_base);
  return true;
}

// get_global_id(4) and friends with a constant dimension past the third arrive as an
// out-of-range OpCompositeExtract of the built-in vector (invalid SPIR-V): they become the
// value OpenCL defines, 1 for sizes and 0 for ids.
void fold_out_of_range_builtins(ir::Module& module) {
  std::unordered_map<uint32_t, spv::BuiltIn> builtin_of;  // Input variable -> built-in
  for (const auto& a : module.annotations)
    if (a.opcode == spv::Op::OpDecorate && spv::Decoration(a.operands[1]) == spv::Decoration::BuiltIn)
      builtin_of[a.operands[0]] = spv::BuiltIn(a.operands[2]);
  for (ir::Function& f : module.functions) {
    std::unordered_map<uint32_t, spv::BuiltIn> loaded;  // load result -> built-in
    for (ir::Block& b : f.blocks)
      for (ir::Instruction& i : b.instructions) {
        if (i.opcode == spv::Op::OpLoad && builtin_of.count(i.operands[0]))
          loaded[i.result_id] = builtin_of[i.operands[0]];
        if (i.opcode != spv::Op::OpCompositeExtract || i.operands.size() != 2 ||
            !loaded.count(i.operands[0]) || i.operands[1] < 3)
          continue;
        spv::BuiltIn bi = loaded[i.operands[0]];
        bool is_size = bi == spv::BuiltIn::GlobalSize || bi == spv::BuiltIn::WorkgroupSize ||
                       bi == spv::BuiltIn::EnqueuedWorkgroupSize || bi == spv::BuiltIn::NumWorkgroups;
        uint32_t width = 64;
        for (const auto& g : module.globals)
          if (g.result_id == i.type_id && g.opcode == spv::Op::OpTypeInt) width = g.operands[0];
        uint32_t constant = module.take_id();
        std::vector<uint32_t> words = {is_size ? 1u : 0u};
        if (width == 64) words.push_back(0);
        module.globals.emplace_back(spv::Op::OpConstant, i.type_id, constant, words);
        i = ir::Instruction(spv::Op::OpCopyObject, i.type_id, i.result_id, {constant});
      }
  }
}

}  // namespace

// Decoration groups (OpDecorationGroup with OpGroupDecorate/OpGroupMemberDecorate) become the
// plain decorations they stand for, which is all later passes look at.
void expand_decoration_groups(ir::Module& module) {
  std::unordered_map<uint32_t, std::vector<ir::Instruction>> group;  // group id -> decorations
  std::vector<ir::Instruction> kept;
  for (const auto& a : module.annotations)
    if (a.opcode == spv::Op::OpDecorationGroup) group[a.result_id];
  for (auto& a : module.annotations) {
    bool on_group = (a.opcode == spv::Op::OpDecorate || a.opcode == spv::Op::OpDecorateId ||
                     a.opcode == spv::Op::OpDecorateString) &&
                    !a.operands.empty() && group.count(a.operands[0]);
    if (on_group) group[a.operands[0]].push_back(a);
    else if (a.opcode != spv::Op::OpDecorationGroup) kept.push_back(std::move(a));
  }
  module.annotations.clear();
  for (auto& a : kept) {
    if (a.opcode == spv::Op::OpGroupDecorate && !a.operands.empty()) {
      for (size_t t = 1; t < a.operands.size(); ++t)
        for (ir::Instruction d : group[a.operands[0]]) {
          d.operands[0] = a.operands[t];
          module.annotations.push_back(d);
        }
    } else if (a.opcode == spv::Op::OpGroupMemberDecorate && !a.operands.empty()) {
      for (size_t t = 1; t + 1 < a.operands.size(); t += 2)
        for (const ir::Instruction& d : group[a.operands[0]]) {
          std::vector<uint32_t> ops = {a.operands[t], a.operands[t + 1]};
          ops.insert(ops.end(), d.operands.begin() + 1, d.operands.end());
          module.annotations.emplace_back(d.opcode == spv::Op::OpDecorateString
                                              ? spv::Op::OpMemberDecorateString
                                              : spv::Op::OpMemberDecorate,
                                          0, 0, ops);
        }
    } else {
      module.annotations.push_back(std::move(a));
    }
  }
  // A decoration group is an OpDecorationGroup result; its id may appear in OpName.
  module.debug.erase(std::remove_if(module.debug.begin(), module.debug.end(),
                                    [&](const ir::Instruction& d) {
                                      return d.opcode == spv::Op::OpName && !d.operands.empty() &&
                                             group.count(d.operands[0]);
                                    }),
                     module.debug.end());
}

// Constant on something other than a variable (the CTS puts it on kernel parameters, which
// SPIR-V 1.0 tools accepted and spirv-val now rejects) is a hint with nothing to hint at.
void drop_misplaced_constant_decorations(ir::Module& module) {
  std::unordered_map<uint32_t, bool> is_variable;
  for (const auto& g : module.globals) is_variable[g.result_id] = g.opcode == spv::Op::OpVariable;
  for (const auto& f : module.functions)
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.opcode == spv::Op::OpVariable) is_variable[i.result_id] = true;
  module.annotations.erase(
      std::remove_if(module.annotations.begin(), module.annotations.end(),
                     [&](const ir::Instruction& a) {
                       return a.opcode == spv::Op::OpDecorate && a.operands.size() == 2 &&
                              spv::Decoration(a.operands[1]) == spv::Decoration::Constant &&
                              !is_variable[a.operands[0]];
                     }),
      module.annotations.end());
}

// The name of a function that calls itself, directly or through others, or "" when the call
// graph has no cycle. OpenCL C forbids recursion and Vulkan cannot express it.
std::string recursive_function(const ir::Module& module) {
  std::unordered_map<uint32_t, std::vector<uint32_t>> calls;
  for (const auto& f : module.functions)
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.opcode == spv::Op::OpFunctionCall) calls[f.id()].push_back(i.operands[0]);
  std::unordered_map<uint32_t, int> state;  // 1 on the current path, 2 done
  uint32_t found = 0;
  std::function<void(uint32_t)> visit = [&](uint32_t f) {
    state[f] = 1;
    for (uint32_t g : calls[f]) {
      if (found) return;
      if (state[g] == 1) found = g;
      else if (!state[g]) visit(g);
    }
    state[f] = 2;
  };
  for (const auto& f : module.functions)
    if (!found && !state[f.id()]) visit(f.id());
  if (!found) return "";
  for (const auto& d : module.debug)
    if (d.opcode == spv::Op::OpName && d.operands[0] == found) return ir::decode_string(d.operands, 1);
  return "%" + std::to_string(found);
}

// OpAtomicCompareExchangeWeak is OpAtomicCompareExchange (SPIR-V: it may fail spuriously but
// need not), and is gone from SPIR-V 1.4, where llvm-spirv 15 still writes it
// (atomic_compare_exchange_weak).
void strengthen_weak_compare_exchange(ir::Module& module) {
  for (auto& f : module.functions)
    for (auto& b : f.blocks)
      for (auto& i : b.instructions)
        if (i.opcode == spv::Op::OpAtomicCompareExchangeWeak) i.opcode = spv::Op::OpAtomicCompareExchange;
}

// From SPIR-V 1.4 an entry point lists every module-scope variable it uses; llvm-spirv 15
// leaves out some (a variable only named in another's initializer), so every entry point gets
// all of them. Before 1.4 it lists the Input variables it uses, which older producers left
// out for built-ins (which variable a kernel reads is clear from its code), so every entry
// point gets every Input variable.
void complete_interfaces(ir::Module& module) {
  bool all = module.version >= 0x00010400;
  std::vector<uint32_t> variables;
  for (const auto& g : module.globals)
    if (g.opcode == spv::Op::OpVariable &&
        (all || spv::StorageClass(g.operands[0]) == spv::StorageClass::Input))
      variables.push_back(g.result_id);
  for (auto& ep : module.entry_points) {
    size_t first = 2 + ir::decode_string(ep.operands, 2).size() / 4 + 1;
    std::set<uint32_t> listed(ep.operands.begin() + long(std::min(first, ep.operands.size())),
                              ep.operands.end());
    for (uint32_t v : variables)
      if (!listed.count(v)) ep.operands.push_back(v);
  }
}

// A vector OpSelect with a scalar condition (SPIR-V 1.4 allows it) gets a vector condition:
// llvm-spirv 15 writes such selects into modules it labels 1.3, which spirv-val rejects, and the
// lowering of 8- and 16-component vectors takes conditions component by component.
void splat_select_conditions(ir::Module& module) {
  std::unordered_map<uint32_t, const ir::Instruction*> types;
  uint32_t bool_type = 0;
  for (const auto& g : module.globals) {
    if (g.opcode == spv::Op::OpTypeVector || g.opcode == spv::Op::OpTypeBool) types[g.result_id] = &g;
    if (g.opcode == spv::Op::OpTypeBool) bool_type = g.result_id;
  }
  std::unordered_map<uint32_t, uint32_t> bool_vectors;  // count -> type
  for (const auto& g : module.globals)
    if (g.opcode == spv::Op::OpTypeVector && g.operands[0] == bool_type)
      bool_vectors[g.operands[1]] = g.result_id;
  std::vector<ir::Instruction> new_types;
  std::unordered_map<uint32_t, uint32_t> global_type_of;  // constants, OpUndef
  for (const auto& g : module.globals)
    if (g.result_id && g.type_id) global_type_of[g.result_id] = g.type_id;
  for (ir::Function& f : module.functions) {
    std::unordered_map<uint32_t, uint32_t> type_of = global_type_of;
    for (const auto& p : f.parameters) type_of[p.result_id] = p.type_id;
    for (const auto& b : f.blocks)
      for (const auto& i : b.instructions)
        if (i.result_id) type_of[i.result_id] = i.type_id;
    for (ir::Block& b : f.blocks) {
      std::vector<ir::Instruction> out;
      for (ir::Instruction& i : b.instructions) {
        auto t = types.find(i.type_id);
        if (i.opcode == spv::Op::OpSelect && t != types.end() &&
            t->second->opcode == spv::Op::OpTypeVector && type_of[i.operands[0]] == bool_type) {
          uint32_t n = t->second->operands[1];
          uint32_t& vt = bool_vectors[n];
          if (!vt) {
            vt = module.take_id();
            new_types.emplace_back(spv::Op::OpTypeVector, 0, vt, std::vector<uint32_t>{bool_type, n});
          }
          uint32_t splat = module.take_id();
          out.emplace_back(spv::Op::OpCompositeConstruct, vt, splat,
                           std::vector<uint32_t>(n, i.operands[0]));
          i.operands[0] = splat;
        }
        out.push_back(std::move(i));
      }
      b.instructions = std::move(out);
    }
  }
  module.globals.insert(module.globals.end(), new_types.begin(), new_types.end());
}

namespace {

// llvm-spirv at -O2 sometimes leaves a block after a block it dominates, which SPIR-V
// forbids (spirv-val then reports a use before its definition): blocks go into reverse
// post-order, unreachable ones last, before the input is validated.
void order_blocks(ir::Module& module) {
  for (ir::Function& f : module.functions) {
    if (f.blocks.size() < 2) continue;
    std::unordered_map<uint32_t, size_t> index;
    for (size_t b = 0; b < f.blocks.size(); ++b) index[f.blocks[b].label] = b;
    std::vector<size_t> post;
    std::vector<bool> seen(f.blocks.size(), false);
    // Iterative DFS: (block, next successor to visit).
    std::vector<std::pair<size_t, size_t>> stack = {{0, 0}};
    seen[0] = true;
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      const ir::Block& blk = f.blocks[b];
      bool is_switch = !blk.instructions.empty() && blk.terminator().opcode == spv::Op::OpSwitch;
      std::vector<uint32_t> succ =
          blk.successors(is_switch ? ir::switch_literal_words(module, f, blk.terminator()) : 1);
      if (next < succ.size()) {
        auto it = index.find(succ[next++]);
        if (it != index.end() && !seen[it->second]) {
          seen[it->second] = true;
          stack.push_back({it->second, 0});
        }
        continue;
      }
      post.push_back(b);
      stack.pop_back();
    }
    std::vector<ir::Block> ordered;
    for (auto it = post.rbegin(); it != post.rend(); ++it) ordered.push_back(std::move(f.blocks[*it]));
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (!seen[b]) ordered.push_back(std::move(f.blocks[b]));
    f.blocks = std::move(ordered);
  }
}

}  // namespace

namespace {

// |normalized| gets the module as validated, or as it would have been where it was not.
TranslateResult translate_module(const std::vector<uint32_t>& kernel_spirv, const TargetCaps& caps,
                                 InputOrigin origin, std::vector<uint32_t>* normalized) {
  TranslateResult result;
  ir::Module module;
  std::string error;
  if (!parse_input(kernel_spirv, &module, &error)) {
    result.log = "error: " + error + "\n";
    return result;
  }
  // llvm-spirv sometimes leaves Function variables after other instructions; they belong at
  // the top of the entry block (a rule of the module, not of what it means).
  for (ir::Function& f : module.functions) {
    if (f.blocks.empty()) continue;
    std::vector<ir::Instruction> variables;
    for (ir::Block& b : f.blocks) {
      std::vector<ir::Instruction> rest;
      for (ir::Instruction& i : b.instructions)
        (i.opcode == spv::Op::OpVariable ? variables : rest).push_back(std::move(i));
      b.instructions = std::move(rest);
    }
    auto& entry = f.blocks.front().instructions;
    entry.insert(entry.begin(), variables.begin(), variables.end());
  }
  fold_out_of_range_builtins(module);
  expand_decoration_groups(module);
  drop_misplaced_constant_decorations(module);
  splat_select_conditions(module);
  complete_interfaces(module);
  strengthen_weak_compare_exchange(module);
  // llvm-spirv writes OpLoopMerge for loops with an unroll pragma, not always where SPIR-V
  // allows it; the structurizer decides every merge itself, so input merges are dropped.
  for (ir::Function& f : module.functions)
    for (ir::Block& b : f.blocks)
      b.instructions.erase(
          std::remove_if(b.instructions.begin(), b.instructions.end(),
                         [](const ir::Instruction& i) {
                           return i.opcode == spv::Op::OpLoopMerge ||
                                  i.opcode == spv::Op::OpSelectionMerge;
                         }),
          b.instructions.end());
  order_blocks(module);
  *normalized = ir::serialize(module);
  if (origin == InputOrigin::Application) {
    std::string invalid = validate(*normalized, SPV_ENV_UNIVERSAL_1_6);
    if (!invalid.empty()) {
      result.log = "error: the SPIR-V module is not valid:\n" + invalid;
      return result;
    }
  }
  // The passes see only what some kernel calls: a program's sources may hold many more
  // functions (hashcat's hold the helpers of every hash type; its MD5 program is 12.5 MB
  // of SPIR-V, most of it never called).
  std::vector<uint32_t> kernels;
  for (const ir::Instruction& ep : module.entry_points) kernels.push_back(ep.operands[1]);
  remove_unreached_functions(module, kernels);
  std::string bad_index = non_integer_index(module);
  if (!bad_index.empty()) {
    result.log = "error: access chain " + bad_index + " has an index that is not an integer\n";
    return result;
  }
  std::string recursive = recursive_function(module);
  if (!recursive.empty()) {
    result.log = "error: function " + recursive + " calls itself (recursion is not allowed)\n";
    return result;
  }
  // The structurizer's own output is only checked here, by the Vulkan validator. When that
  // fails, the passes run once more with every unstructured function going through a
  // dispatch loop, which is always structured (slower code, but code); the first log stands
  // if that fails too. On a driver that cuts loops short, the first try makes kernels
  // resumable (resumable-loops); should that fail in any way, the same passes run without.
  struct Attempt {
    bool resumable, dispatch_loops, rotate = false, waits = false;
  };
  std::vector<Attempt> attempts = {{false, false}, {false, true}};
  if (caps.loop_iteration_limit && caps.resumable_loops)
    attempts.insert(attempts.begin(), {Attempt{true, false, true, true}, Attempt{true, false, false, true},
                                       Attempt{true, false, true, false}, Attempt{true, false, false, false}});
  // A resumable try that failed without rotating (or without stopping in loops without
  // barriers) says the others would not either: tries that would do the same are skipped.
  bool rotate_applies = true, waits_apply = true;
  std::set<std::pair<bool, bool>> tried;
  const ir::Module input = module;
  const bool rerunnable = writes_only_local_memory_and_images(input);
  std::vector<std::vector<bool>> read_only;
  const bool restoring = !rerunnable && writes_global_only_through_parameters(input, &read_only);
  const std::unordered_set<uint32_t> packable = packable_kernels(input);
  PassContext context;
  std::string first_failure;
  for (size_t a = 0; a < attempts.size(); ++a) {
    const Attempt& attempt = attempts[a];
    const std::pair<bool, bool> effect = {attempt.rotate && rotate_applies, attempt.waits && waits_apply};
    if (attempt.resumable && !tried.insert(effect).second) continue;
    module = input;
    context = PassContext{};
    context.caps = caps;
    context.dispatch_loops = attempt.dispatch_loops;
    context.resumable_loops = attempt.resumable;
    context.rotate_resumed_loops = attempt.rotate;
    context.wait_in_loops = attempt.waits;
    context.packable = packable;
    bool failed = false;
    for (const std::string& name : pass_names()) {
      std::unique_ptr<Pass> pass = create_pass(name);
      if (pass->Process(module, context) == PassStatus::Failure) {
        failed = true;
        break;
      }
    }
    if (attempt.resumable) {
      rotate_applies = rotate_applies && (!attempt.rotate || context.rotated);
      waits_apply = waits_apply && (!attempt.waits || context.waited);
    }
    if (failed) {
      if (attempt.resumable) continue;
      result.log = attempt.dispatch_loops ? first_failure : context.log;
      return result;
    }
    std::string log;
    result.kernels.clear();
    for (size_t k = 0; log.empty() && k < module.entry_points.size(); ++k) {
      TranslatedKernel kernel;
      kernel.interface = context.kernels[k];
      kernel.interface.rerunnable = rerunnable;
      if (restoring && k < read_only.size() && read_only[k].size() == kernel.interface.args.size()) {
        kernel.interface.rerunnable_restoring_buffers = true;
        for (size_t a = 0; a < read_only[k].size(); ++a) kernel.interface.args[a].read_only = read_only[k][a];
      }
      if (!extract_kernel(module, k, context, &kernel.shader,
                          &kernel.interface.static_local_memory_size, &log)) {
        if (log.empty()) log = "internal error: kernel " + kernel.interface.name + " not extracted\n";
        break;
      }
      std::string bad = validate(kernel.shader, SPV_ENV_VULKAN_1_2);
      if (!bad.empty())
        log = "internal error: the translated kernel " + kernel.interface.name +
              " does not validate for Vulkan:\n" + bad;
      result.kernels.push_back(std::move(kernel));
    }
    if (log.empty()) break;
    if (attempt.dispatch_loops) {
      result.kernels.clear();
      result.log = first_failure;
      return result;
    }
    if (!attempt.resumable) first_failure = log;
  }
  result.program_data = context.program_data;
  result.program_relocations = context.program_relocations;
  result.global_variable_size = context.global_variable_size;
  result.log += context.log;
  result.ok = true;
  return result;
}

}  // namespace

TranslateResult translate(const std::vector<uint32_t>& kernel_spirv, const TargetCaps& caps,
                          InputOrigin origin) {
  dump_input(kernel_spirv);
  std::vector<uint32_t> normalized;
  TranslateResult result = translate_module(kernel_spirv, caps, origin, &normalized);
  if (result.ok || origin == InputOrigin::Application || normalized.empty()) return result;
  // The compiler's module failed to translate: if it is itself invalid, that comes first,
  // and what stopped the translation after it (the invalidity may not be the cause).
  std::string invalid = validate(normalized, SPV_ENV_UNIVERSAL_1_6);
  if (!invalid.empty())
    result.log = "internal error: the compiler made an invalid SPIR-V module:\n" + invalid +
                 "and translating it failed with:\n" + result.log;
  return result;
}

}  // namespace vkcl::k2s
