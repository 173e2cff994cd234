// The addresses the frontend writes before a kernel's arguments (program data, printf buffer)
// are read from push constants where the pushed window reaches them: one uniform 64-bit value
// (a load from the argument block in memory is per work-item on llvmpipe, and every access
// through an address it gives is then taken apart lane by lane).
#include <gtest/gtest.h>

#include <string>

#include "compiler/compiler.h"
#include "kernel_to_shader/spirv_text.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

TEST(PushedArguments, AddressesBeforeTheArgumentsArePushed) {
  compiler::DeviceFeatures features;
  features.int64 = true;
  features.features = {"__opencl_c_program_scope_global_variables", "__opencl_c_int64"};
  const char* source = R"(
    __global int counter;
    __kernel void k(__global int* o) {
      o[get_global_id(0)] = atomic_inc(&counter);
      printf("%d\n", o[0]);
    })";
  auto compiled = compiler::compile(source, "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const std::string memory_load = "OpConvertUToPtr %_ptr_PhysicalStorageBuffer_ulong";

  k2s::TargetCaps caps;  // 128 bytes of push constants: 40 of them for arguments
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.kernels.size(), 1u);
  const k2s::KernelInterface& pushed = r.kernels[0].interface;
  EXPECT_EQ(pushed.pushed_arguments_offset, pushed.program_data_address_offset);
  EXPECT_GE(pushed.pushed_arguments_offset + pushed.pushed_arguments_size, pushed.printf_buffer_address_offset + 8);
  EXPECT_EQ(disassemble(r.kernels[0].shader).find(memory_load), std::string::npos);

  caps.max_push_constant_size = sizeof(k2s::DispatchBlock);  // no room for arguments
  r = k2s::translate(compiled.spirv, caps);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.kernels[0].interface.pushed_arguments_size, 0u);
  EXPECT_NE(disassemble(r.kernels[0].shader).find(memory_load), std::string::npos);
}

}  // namespace
}  // namespace vkcl::test
