// TranslateResult to bytes and back (serialize.cpp), as the build cache keeps translations:
// kernels with printf, local and by-value arguments, work-group size attributes and program-
// scope variables come back field for field; cut or altered bytes do not come back.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

const char* kSource = R"(
__global int counter = 7;
typedef struct { float x; int y; } S;
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void first(__global int* o, __local float* l, S s, float4 v) {
  l[get_local_id(0)] = s.x + v.w;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < s.y; ++i) o[i] = (int)l[i % 8] + counter;
  printf("%d %v4f %s\n", s.y, v, "text");
}
__kernel __attribute__((work_group_size_hint(4, 2, 1))) void second(__global float* o) {
  o[get_global_id(0)] *= 2.0f;
}
)";

TEST(Serialize, TranslationsComeBackWhole) {
  compiler::DeviceFeatures features;
  features.features = {"__opencl_c_int64", "__opencl_c_program_scope_global_variables",
                       "__opencl_c_generic_address_space"};
  features.program_scope_global_variables = true;
  features.generic_address_space = true;
  auto compiled = compiler::compile(kSource, "-cl-std=CL3.0", features);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  k2s::TargetCaps caps;
  caps.loop_iteration_limit = true;
  k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.kernels.size(), 2u);
  const std::string bytes = k2s::serialize(r);
  k2s::TranslateResult back;
  ASSERT_TRUE(k2s::deserialize(bytes, &back));
  EXPECT_EQ(k2s::serialize(back), bytes);
  EXPECT_EQ(back.log, r.log);
  EXPECT_EQ(back.program_data, r.program_data);
  EXPECT_EQ(back.program_relocations, r.program_relocations);
  EXPECT_EQ(back.global_variable_size, r.global_variable_size);
  EXPECT_GT(back.global_variable_size, 0u);
  for (size_t k = 0; k < 2; ++k) {
    const k2s::KernelInterface &a = r.kernels[k].interface, &b = back.kernels[k].interface;
    EXPECT_EQ(back.kernels[k].shader, r.kernels[k].shader);
    EXPECT_EQ(b.name, a.name);
    ASSERT_EQ(b.args.size(), a.args.size());
    for (size_t i = 0; i < a.args.size(); ++i) {
      EXPECT_EQ(b.args[i].kind, a.args[i].kind);
      EXPECT_EQ(b.args[i].offset, a.args[i].offset);
      EXPECT_EQ(b.args[i].size, a.args[i].size);
      EXPECT_EQ(b.args[i].address_space, a.args[i].address_space);
    }
    EXPECT_EQ(b.argument_block_size, a.argument_block_size);
    EXPECT_EQ(b.pushed_arguments_size, a.pushed_arguments_size);
    EXPECT_EQ(b.static_local_memory_size, a.static_local_memory_size);
    EXPECT_EQ(b.printf_buffer_address_offset, a.printf_buffer_address_offset);
    EXPECT_EQ(b.loop_limit_status_offset, a.loop_limit_status_offset);
    EXPECT_EQ(b.resume_area_offset, a.resume_area_offset);
    EXPECT_EQ(b.required_work_group_size, a.required_work_group_size);
    EXPECT_EQ(b.work_group_size_hint, a.work_group_size_hint);
    EXPECT_EQ(b.attributes, a.attributes);
    ASSERT_EQ(b.printf_calls.size(), a.printf_calls.size());
    for (size_t i = 0; i < a.printf_calls.size(); ++i) {
      EXPECT_EQ(b.printf_calls[i].format, a.printf_calls[i].format);
      ASSERT_EQ(b.printf_calls[i].args.size(), a.printf_calls[i].args.size());
      for (size_t j = 0; j < a.printf_calls[i].args.size(); ++j) {
        EXPECT_EQ(b.printf_calls[i].args[j].kind, a.printf_calls[i].args[j].kind);
        EXPECT_EQ(b.printf_calls[i].args[j].components, a.printf_calls[i].args[j].components);
        EXPECT_EQ(b.printf_calls[i].args[j].text, a.printf_calls[i].args[j].text);
      }
    }
  }
  const k2s::KernelInterface& first = back.kernels[0].interface.name == "first" ? back.kernels[0].interface
                                                                               : back.kernels[1].interface;
  ASSERT_TRUE(first.required_work_group_size);
  EXPECT_EQ((*first.required_work_group_size)[0], 8u);
  // One call in each of its two forms: the loop after its barrier resumes on a driver that
  // limits loops.
  ASSERT_EQ(first.printf_calls.size(), 2u);
  for (const auto& call : first.printf_calls) EXPECT_EQ(call.args.size(), 3u);
  // Cut anywhere, or with a count that claims more than is there: not a translation.
  for (size_t cut : {size_t(0), size_t(3), bytes.size() / 2, bytes.size() - 1}) {
    k2s::TranslateResult none;
    EXPECT_FALSE(k2s::deserialize(bytes.substr(0, cut), &none)) << cut;
  }
  std::string huge = bytes;
  huge[4 + 4 + r.log.size()] = '\xff';  // the kernel count's low byte
  k2s::TranslateResult none;
  EXPECT_FALSE(k2s::deserialize(huge, &none));
}

TEST(Serialize, CapsThatDifferDescribeDifferently) {
  k2s::TargetCaps a, b;
  EXPECT_EQ(k2s::describe_caps(a), k2s::describe_caps(b));
  b.widen_half_from_bits = true;
  EXPECT_NE(k2s::describe_caps(a), k2s::describe_caps(b));
  b = a;
  b.snap_packed_unorm = true;
  EXPECT_NE(k2s::describe_caps(a), k2s::describe_caps(b));
  b = a;
  b.subgroup_size = 32;
  EXPECT_NE(k2s::describe_caps(a), k2s::describe_caps(b));
  b = a;
  b.read_write_images = true;
  EXPECT_NE(k2s::describe_caps(a), k2s::describe_caps(b));
}

}  // namespace
}  // namespace vkcl::test
