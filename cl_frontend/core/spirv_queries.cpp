// cl_khr_spirv_queries: the extended instruction sets, SPIR-V extensions and capabilities a
// module given to clCreateProgramWithIL may use on this device. Each entry is something the
// translator takes (OpenCL SPIR-V environment chapters 3 and 5); what depends on the device
// follows the extensions and features it reports.
#include "core/spirv_queries.h"

#include <spirv/unified1/spirv.hpp11>

#include <algorithm>

namespace vkcl::cl {

SpirvQueries spirv_queries(const std::vector<std::string>& extensions,
                           const std::vector<std::string>& features, bool subgroups) {
  auto has = [](const std::vector<std::string>& list, const char* name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  SpirvQueries q;
  q.instruction_sets = {"OpenCL.std"};
  if (has(extensions, "cl_khr_spirv_extended_debug_info"))
    q.instruction_sets.push_back("OpenCL.DebugInfo.100");

  using C = spv::Capability;
  auto cap = [&](C c) { q.capabilities.push_back(cl_uint(c)); };
  // Every OpenCL environment's (chapter 3.1), and what OpenCL C 3.0's features add.
  for (C c : {C::Addresses, C::Float16Buffer, C::Int16, C::Int8, C::Kernel, C::Linkage, C::Vector16})
    cap(c);
  if (has(features, "__opencl_c_int64")) cap(C::Int64);
  if (has(features, "__opencl_c_generic_address_space")) cap(C::GenericPointer);
  if (subgroups || has(features, "__opencl_c_work_group_collective_functions")) cap(C::Groups);
  if (subgroups) cap(C::SubgroupDispatch);
  // Images: what the environment spec requires of devices with images, and read_write ones.
  if (has(features, "__opencl_c_images"))
    for (C c : {C::Image1D, C::ImageBasic, C::ImageBuffer, C::LiteralSampler, C::Sampled1D, C::SampledBuffer}) cap(c);
  if (has(features, "__opencl_c_read_write_images")) cap(C::ImageReadWrite);
  if (has(extensions, "cl_khr_fp16")) cap(C::Float16);
  if (has(extensions, "cl_khr_fp64")) cap(C::Float64);
  if (has(extensions, "cl_khr_int64_base_atomics") || has(extensions, "cl_khr_int64_extended_atomics"))
    cap(C::Int64Atomics);
  // Every device takes SPIR-V 1.6 (CL_DEVICE_IL_VERSION), whose environment requires
  // UniformDecoration; the translator accepts Uniform and UniformId decorations.
  cap(C::UniformDecoration);

  // Chapter 5: each extension with its SPIR-V extension and capabilities.
  struct Mapping {
    const char* cl;
    const char* spirv;  // nullptr: the capabilities need no SPIR-V extension (SPIR-V 1.3)
    std::vector<C> capabilities;
  };
  const Mapping mappings[] = {
      {"cl_khr_expect_assume", "SPV_KHR_expect_assume", {C::ExpectAssumeKHR}},
      {"cl_khr_extended_bit_ops", "SPV_KHR_bit_instructions", {C::BitInstructions}},
      {"cl_khr_integer_dot_product", "SPV_KHR_integer_dot_product",
       {C::DotProduct, C::DotProductInput4x8BitPacked, C::DotProductInput4x8Bit}},
      {"cl_khr_kernel_clock", "SPV_KHR_shader_clock", {C::ShaderClockKHR}},
      {"cl_khr_spirv_linkonce_odr", "SPV_KHR_linkonce_odr", {}},
      {"cl_khr_spirv_no_integer_wrap_decoration", "SPV_KHR_no_integer_wrap_decoration", {}},
      {"cl_khr_subgroup_rotate", "SPV_KHR_subgroup_rotate", {C::GroupNonUniformRotateKHR}},
      {"cl_khr_work_group_uniform_arithmetic", "SPV_KHR_uniform_group_instructions",
       {C::GroupUniformArithmeticKHR}},
      {"cl_ext_float_atomics", "SPV_EXT_shader_atomic_float_add", {C::AtomicFloat32AddEXT}},
      {"cl_ext_float_atomics", "SPV_EXT_shader_atomic_float_min_max", {C::AtomicFloat32MinMaxEXT}},
      {"cl_khr_subgroup_non_uniform_vote", nullptr, {C::GroupNonUniform, C::GroupNonUniformVote}},
      {"cl_khr_subgroup_ballot", nullptr, {C::GroupNonUniformBallot}},
      {"cl_khr_subgroup_non_uniform_arithmetic", nullptr, {C::GroupNonUniformArithmetic}},
      {"cl_khr_subgroup_shuffle", nullptr, {C::GroupNonUniformShuffle}},
      {"cl_khr_subgroup_shuffle_relative", nullptr, {C::GroupNonUniformShuffleRelative}},
      {"cl_khr_subgroup_clustered_reduce", nullptr, {C::GroupNonUniformClustered}},
  };
  for (const Mapping& m : mappings) {
    if (!has(extensions, m.cl)) continue;
    if (m.spirv) q.extensions.push_back(m.spirv);
    for (C c : m.capabilities)
      if (std::find(q.capabilities.begin(), q.capabilities.end(), cl_uint(c)) == q.capabilities.end())
        cap(c);
  }
  return q;
}

}  // namespace vkcl::cl
