#include "vkcl/kernel_to_shader/translate.h"

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include "ir/module.h"
#include "passes/pass.h"

namespace vkcl::k2s {

namespace {

std::string validate(const std::vector<uint32_t>& words, spv_target_env env) {
  spvtools::SpirvTools tools(env);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos,
                               const char* m) {
    messages += m;
    messages += " (word " + std::to_string(pos.index) + ")\n";
  });
  spvtools::ValidatorOptions options;
  if (tools.Validate(words.data(), words.size(), options)) return "";
  return messages.empty() ? "invalid module\n" : messages;
}

// The module reduced to one kernel: its entry point renamed "main" and functions it does not
// reach removed.
bool extract_kernel(const ir::Module& shader, size_t index, std::vector<uint32_t>* out,
                    std::string* log) {
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
  std::vector<uint32_t> words = ir::serialize(m);
  spvtools::Optimizer opt(SPV_ENV_VULKAN_1_2);
  opt.RegisterPass(spvtools::CreateEliminateDeadFunctionsPass());
  std::string messages;
  opt.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&,
                             const char* msg) { messages += std::string(msg) + "\n"; });
  spvtools::ValidatorOptions vopts;
  spvtools::OptimizerOptions oopts;
  oopts.set_run_validator(false);
  if (!opt.Run(words.data(), words.size(), out, oopts)) {
    *log += "internal error while extracting kernel " + name + ": " + messages;
    return false;
  }
  return true;
}

}  // namespace

TranslateResult translate(const std::vector<uint32_t>& kernel_spirv, const TargetCaps& caps) {
  TranslateResult result;
  ir::Module module;
  std::string error;
  if (!ir::parse(kernel_spirv.data(), kernel_spirv.size(), &module, &error)) {
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
  std::string invalid = validate(ir::serialize(module), SPV_ENV_UNIVERSAL_1_6);
  if (!invalid.empty()) {
    result.log = "error: the SPIR-V module is not valid:\n" + invalid;
    return result;
  }
  PassContext context;
  context.caps = caps;
  for (const std::string& name : pass_names()) {
    std::unique_ptr<Pass> pass = create_pass(name);
    if (pass->Process(module, context) == PassStatus::Failure) {
      result.log = context.log;
      return result;
    }
  }
  for (size_t k = 0; k < module.entry_points.size(); ++k) {
    TranslatedKernel kernel;
    kernel.interface = context.kernels[k];
    if (!extract_kernel(module, k, &kernel.shader, &result.log)) return result;
    std::string bad = validate(kernel.shader, SPV_ENV_VULKAN_1_2);
    if (!bad.empty()) {
      result.log += "internal error: the translated kernel " + kernel.interface.name +
                    " does not validate for Vulkan:\n" + bad;
      return result;
    }
    result.kernels.push_back(std::move(kernel));
  }
  result.log += context.log;
  result.ok = true;
  return result;
}

}  // namespace vkcl::k2s
