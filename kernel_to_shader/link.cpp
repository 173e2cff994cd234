// clLinkProgram's linking of Kernel SPIR-V modules: SPIRV-Tools' linker joins them (types
// merged, imports resolved against exports); what is still imported must be a built-in
// variable, which the translator provides, or the link fails naming the symbol.
#include <spirv-tools/linker.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "input_checks.h"
#include "ir/module.h"
#include "vkcl/common/host_allocation.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

namespace {

// SPIRV-Tools' linker (2023.1) does not know LinkOnceODR: the first definition of each such
// name becomes an export and later ones (equal by the ODR) become imports of it.
void keep_first_linkonce_odr(ir::Module& m, std::set<std::string>* kept) {
  for (auto& a : m.annotations) {
    if (a.opcode != spv::Op::OpDecorate || a.operands.size() < 3 ||
        spv::Decoration(a.operands[1]) != spv::Decoration::LinkageAttributes ||
        spv::LinkageType(a.operands.back()) != spv::LinkageType::LinkOnceODR)
      continue;
    std::string name = ir::decode_string(a.operands, 2);
    if (kept->insert(name).second) {
      a.operands.back() = uint32_t(spv::LinkageType::Export);
      continue;
    }
    a.operands.back() = uint32_t(spv::LinkageType::Import);
    for (auto& f : m.functions)
      if (f.id() == a.operands[0]) f.blocks.clear();
  }
}

// The names |m| defines for other modules (LinkageAttributes Export).
std::vector<std::string> exported_names(const ir::Module& m) {
  std::vector<std::string> names;
  for (const auto& a : m.annotations)
    if (a.opcode == spv::Op::OpDecorate && a.operands.size() >= 3 &&
        spv::Decoration(a.operands[1]) == spv::Decoration::LinkageAttributes &&
        spv::LinkageType(a.operands.back()) == spv::LinkageType::Export)
      names.push_back(ir::decode_string(a.operands, 2));
  return names;
}

}  // namespace

bool link_modules(const std::vector<std::vector<uint32_t>>& modules, bool library,
                  std::vector<uint32_t>* out, std::string* error) {
  std::string messages;
  spvtools::LinkerOptions options;
  options.SetCreateLibrary(library);
  // Built-in variables stay imported (every module imports its own).
  options.SetAllowPartialLinkage(true);
  // llvm-spirv writes the lowest version a module needs; SPIRV-Tools links only modules of
  // one version, and a module stays valid under a later one, so all take the highest.
  // SPIRV-Tools' linker trusts its input (a malformed type can crash it): each module is
  // validated first, after the repair translate() also makes.
  std::vector<std::vector<uint32_t>> inputs;
  std::set<std::string> once_defined;  // SPV_KHR_linkonce_odr names already kept
  // Each exported name and the module defining it. SPIRV-Tools' linker keeps two exports of
  // one name side by side, so a function defined twice would silently become two.
  std::map<std::string, size_t> definitions;
  for (size_t k = 0; k < modules.size(); ++k) {
    ir::Module m;
    std::string parse_error;
    if (!parse_input(modules[k], &m, &parse_error)) {
      *error = "error: module " + std::to_string(k + 1) + " is malformed: " + parse_error + "\n";
      return false;
    }
    splat_select_conditions(m);
    complete_interfaces(m);
    strengthen_weak_compare_exchange(m);
    keep_first_linkonce_odr(m, &once_defined);
    for (const std::string& name : exported_names(m)) {
      auto [it, first] = definitions.emplace(name, k);
      if (!first && it->second != k)
        *error += "error: " + name + " is defined in module " + std::to_string(it->second + 1) +
                  " and again in module " + std::to_string(k + 1) + "\n";
    }
    inputs.push_back(ir::serialize(m));
    std::string invalid = validate(inputs.back(), SPV_ENV_UNIVERSAL_1_6);
    if (!invalid.empty()) {
      *error = "error: module " + std::to_string(k + 1) + " is not valid SPIR-V:\n" + invalid;
      return false;
    }
  }
  if (!error->empty()) return false;
  uint32_t version = 0;
  for (const auto& m : inputs)
    if (m.size() > 1) version = std::max(version, m[1]);
  for (auto& m : inputs)
    if (m.size() > 1) m[1] = version;
  spv_result_t linked;
  {
    host_allocation::ForeignCode foreign;  // SPIRV-Tools, and the consumer it calls
    spvtools::Context context(SPV_ENV_UNIVERSAL_1_6);
    context.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&,
                                   const char* m) { messages += std::string(m) + "\n"; });
    linked = spvtools::Link(context, inputs, out, options);
  }
  if (linked != SPV_SUCCESS) {
    *error = "error: linking failed:\n" + messages;
    return false;
  }
  if (library) return true;
  ir::Module m;
  std::string parse_error;
  if (!ir::parse(out->data(), out->size(), &m, &parse_error)) {
    *error = "error: the linked module is malformed: " + parse_error + "\n";
    return false;
  }
  std::set<uint32_t> declared;  // functions without a body
  for (const auto& f : m.functions)
    if (f.blocks.empty()) declared.insert(f.id());
  for (const auto& a : m.annotations)
    if (a.opcode == spv::Op::OpDecorate &&
        spv::Decoration(a.operands[1]) == spv::Decoration::LinkageAttributes &&
        spv::LinkageType(a.operands.back()) == spv::LinkageType::Import &&
        declared.count(a.operands[0]))
      *error += "error: unresolved symbol " + ir::decode_string(a.operands, 2) + "\n";
  return error->empty();
}

}  // namespace vkcl::k2s
