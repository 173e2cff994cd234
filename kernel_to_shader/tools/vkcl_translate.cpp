// vkcl-translate: translates a Kernel SPIR-V module (.spv) or OpenCL C source (.cl) into the
// Vulkan Shader SPIR-V vkcl would run, and prints each kernel's interface. A debugging aid.
//
//   vkcl-translate input.{spv,cl} [-o out-prefix] [--pass NAME] [--build-options "..."]
//                  [--text]
//
// --pass NAME runs that single pass and writes the module it produces (no validation);
// --until NAME runs every pass up to and including NAME, as a translation's first attempt
// does (what a pass knows from the ones before it, such as which functions are the library's,
// holds), and writes the module after NAME; without either the whole translation runs and
// one <out-prefix>.<kernel>.spv is written per kernel.
#include <cstdio>
#include <fstream>
#include <algorithm>
#include <iostream>
#include <iterator>
#include <string>

#include <spirv-tools/libspirv.hpp>

#include "compiler/compiler.h"
#include "ir/module.h"
#include "passes/pass.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace {

bool read_file(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

void write_words(const std::string& path, const std::vector<uint32_t>& words, bool text) {
  if (text) {
    spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_6);
    std::string dis;
    tools.Disassemble(words, &dis, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                                       SPV_BINARY_TO_TEXT_OPTION_INDENT);
    std::ofstream(path + ".spvasm") << dis;
    std::cout << "wrote " << path << ".spvasm\n";
    return;
  }
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  std::cout << "wrote " << path << "\n";
}

const char* kind_name(vkcl::k2s::ArgKind k) {
  switch (k) {
    case vkcl::k2s::ArgKind::GlobalPointer: return "global pointer";
    case vkcl::k2s::ArgKind::LocalPointer: return "local pointer";
    case vkcl::k2s::ArgKind::ByValue: return "by value";
    case vkcl::k2s::ArgKind::Sampler: return "sampler";
    case vkcl::k2s::ArgKind::Image: return "image";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, out = "out", pass, options, without;
  bool text = false, loop_limit = false, resume = true, until = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc) out = argv[++i];
    else if (a == "--pass" && i + 1 < argc) pass = argv[++i];
    else if (a == "--until" && i + 1 < argc) pass = argv[++i], until = true;
    else if (a == "--build-options" && i + 1 < argc) options = argv[++i];
    else if (a == "--text") text = true;
    else if (a == "--loop-limit") loop_limit = true;
    else if (a == "--no-resume") resume = false;
    else if (a == "--without" && i + 1 < argc) without = argv[++i];
    else if (a == "-h" || a == "--help") input.clear(), i = argc;
    else input = a;
  }
  if (input.empty()) {
    std::cerr << "usage: vkcl-translate input.{spv,cl} [-o out-prefix] [--pass NAME | --until NAME] "
                 "[--build-options \"...\"] [--text] [--loop-limit [--no-resume]]\n"
                 "  [--without int8,int16,storage8,storage16,float16,float64] (device features to lack)\npasses:";
    for (const auto& n : vkcl::k2s::pass_names()) std::cerr << " " << n;
    std::cerr << "\n";
    return 2;
  }
  std::string bytes;
  if (!read_file(input, &bytes)) {
    std::cerr << "cannot read " << input << "\n";
    return 1;
  }
  std::vector<uint32_t> spirv;
  if (input.size() > 3 && input.substr(input.size() - 3) == ".cl") {
    vkcl::compiler::DeviceFeatures features;
    features.features = {"__opencl_c_int64", "__opencl_c_generic_address_space",
                         "__opencl_c_program_scope_global_variables", "__opencl_c_subgroups",
                         "__opencl_c_images", "__opencl_c_read_write_images",
                         "__opencl_c_3d_image_writes"};
    features.images = true;
    features.extensions = {"cl_khr_subgroups", "cl_khr_subgroup_ballot",
                           "cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_shuffle",
                           "cl_khr_subgroup_shuffle_relative",
                           "cl_khr_subgroup_non_uniform_arithmetic",
                           "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_rotate",
                           "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
                           "cl_khr_3d_image_writes"};
    features.fp64 = features.fp16 = true;  // what a translation may meet, not what a device reports
    // As clBuildProgram compiles: a whole program, whose functions no kernel calls are dropped.
    auto compiled = vkcl::compiler::compile(bytes, options, features, nullptr, {}, true);
    std::cerr << compiled.log;
    if (!compiled.ok) return 1;
    spirv = compiled.spirv;
    write_words(out + ".kernel.spv", spirv, text);
  } else {
    spirv.resize(bytes.size() / 4);
    std::copy(bytes.begin(), bytes.begin() + spirv.size() * 4,
              reinterpret_cast<char*>(spirv.data()));
  }
  vkcl::k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.float16 = caps.float64 = caps.storage8 = caps.storage16 = true;
  caps.int64_atomics = true;
  caps.images = caps.storage_image_write_without_format = caps.read_write_images = true;
  for (size_t at = 0; at < without.size();) {
    size_t end = std::min(without.find(',', at), without.size());
    std::string name = without.substr(at, end - at);
    at = end + 1;
    if (name == "int8") caps.int8 = false;
    else if (name == "int16") caps.int16 = false;
    else if (name == "storage8") caps.storage8 = false;
    else if (name == "storage16") caps.storage16 = false;
    else if (name == "float16") caps.float16 = false;
    else if (name == "float64") caps.float64 = false;
    else {
      std::cerr << "unknown feature " << name << " in --without\n";
      return 2;
    }
  }
  caps.preserve_inf_nan32 = caps.preserve_inf_nan64 = true;  // most drivers' float controls
  if (loop_limit) {  // lavapipe's: loops cut short, sub-groups of 8
    caps.loop_iteration_limit = true;
    caps.subgroup_size = 8;
    caps.resumable_loops = resume;
    caps.resumable_barrier_loops = resume;
  }
  // A desktop GPU's subgroups: every operation class.
  caps.subgroup_operations = true;
  caps.subgroup_extended_types = true;
  caps.subgroup_features = vkcl::k2s::kSubgroupBasic | vkcl::k2s::kSubgroupVote | vkcl::k2s::kSubgroupArithmetic |
                           vkcl::k2s::kSubgroupBallot | vkcl::k2s::kSubgroupShuffle |
                           vkcl::k2s::kSubgroupShuffleRelative | vkcl::k2s::kSubgroupClustered;
  if (!pass.empty()) {
    const std::vector<std::string> all = vkcl::k2s::pass_names();
    auto last = std::find(all.begin(), all.end(), pass);
    if (last == all.end()) {
      std::cerr << "unknown pass " << pass << "\n";
      return 2;
    }
    vkcl::ir::Module module;
    std::string error;
    if (!vkcl::ir::parse(spirv.data(), spirv.size(), &module, &error)) {
      std::cerr << error << "\n";
      return 1;
    }
    vkcl::k2s::PassContext context;
    context.caps = caps;
    context.resumable_loops = true;
    context.rotate_resumed_loops = until;
    auto status = vkcl::k2s::PassStatus::SuccessWithoutChange;
    for (auto name = until ? all.begin() : last; name != last + 1 && status != vkcl::k2s::PassStatus::Failure; ++name)
      status = vkcl::k2s::create_pass(*name)->Process(module, context);
    std::cerr << context.log;
    if (status == vkcl::k2s::PassStatus::Failure) return 1;
    std::cout << (status == vkcl::k2s::PassStatus::SuccessWithChange ? "changed\n" : "unchanged\n");
    write_words(out + "." + pass + ".spv", vkcl::ir::serialize(module), text);
    return 0;
  }
  auto result = vkcl::k2s::translate(spirv, caps);
  std::cerr << result.log;
  if (!result.ok) return 1;
  for (const auto& k : result.kernels) {
    const auto& ki = k.interface;
    std::cout << "kernel " << ki.name << ": argument block " << ki.argument_block_size
              << " bytes, static local " << ki.static_local_memory_size << " bytes, private "
              << ki.private_memory_size << " bytes\n";
    if (ki.resume_area_offset != UINT32_MAX)
      std::cout << "  resumes: record " << ki.resume_record_size << " bytes per work-item\n";
    for (size_t a = 0; a < ki.args.size(); ++a)
      std::cout << "  arg " << a << ": " << kind_name(ki.args[a].kind) << " at "
                << ki.args[a].offset << ", " << ki.args[a].size << " bytes\n";
    write_words(out + "." + ki.name + ".spv", k.shader, text);
  }
  return 0;
}
