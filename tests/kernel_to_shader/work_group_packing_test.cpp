// KernelInterface::packable: only kernels whose work-groups can never tell each other apart
// (no barrier, no __local memory, no work-group or sub-group function or built-in, in the
// kernel or anything it calls) may share a Vulkan workgroup with other work-groups.
#include <gtest/gtest.h>

#include <string>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl {
namespace {

struct Case {
  const char* what;
  bool packable;
  const char* body;  // of `__kernel void k(__global uint* o, __global const uint* in)`
};

const Case kCases[] = {
    {"ids and sizes", true,
     "o[get_global_id(0)] = get_local_id(0) + get_group_id(1) * get_local_size(0) + get_local_linear_id();"},
    {"a helper, a loop, global atomics", true,
     "uint s = 0; for (uint k = 0; k < in[0]; ++k) s += helper(in[k]); atomic_add(o, s);"},
    {"printf", true, "printf(\"%u\\n\", (uint)get_global_id(0));"},
    {"a barrier on global memory", false,
     "o[get_global_id(0)] = 1; barrier(CLK_GLOBAL_MEM_FENCE); o[get_global_id(0)] += o[0];"},
    {"a barrier in a helper", false, "o[0] = fenced(in[0]);"},
    {"a __local array", false,
     "__local uint t[4]; t[get_local_id(0) & 3] = in[0]; o[get_global_id(0)] = t[(get_local_id(0) + 1) & 3];"},
    {"a work-group reduction", false, "o[get_global_id(0)] = work_group_reduce_add(in[get_global_id(0)]);"},
    {"a work-group broadcast", false, "o[get_global_id(0)] = work_group_broadcast(in[get_global_id(0)], 0);"},
    {"a sub-group reduction", false, "o[get_global_id(0)] = sub_group_reduce_max(in[get_global_id(0)]);"},
    {"the sub-group local id", false, "o[get_global_id(0)] = get_sub_group_local_id();"},
    {"an async copy", false,
     "__local uint t[8]; event_t e = async_work_group_copy(t, in, 8, 0); wait_group_events(1, &e); o[0] = t[1];"},
};

std::string source(const Case& c, bool local_argument) {
  return std::string(
             "uint helper(uint x) { return x * 3u + 1u; }\n"
             "uint fenced(uint x) { barrier(CLK_LOCAL_MEM_FENCE); return x + 1u; }\n"
             "__kernel void k(__global uint* o, __global const uint* in") +
         (local_argument ? ", __local uint* scratch" : "") + ") {\n" + c.body + "\n}\n" +
         // A second kernel of the same module, always packable: flags are per kernel.
         "__kernel void plain(__global uint* o) { o[get_global_id(0)] = get_group_id(0); }\n";
}

compiler::DeviceFeatures features() {
  compiler::DeviceFeatures f;
  f.features = {"__opencl_c_int64", "__opencl_c_subgroups", "__opencl_c_work_group_collective_functions",
                "__opencl_c_generic_address_space"};
  f.extensions = {"cl_khr_subgroups"};
  return f;
}

TEST(WorkGroupPacking, OnlyKernelsWhoseGroupsNeverMeet) {
  for (const char* options : {"-cl-std=CL3.0", "-cl-std=CL3.0 -cl-opt-disable"})
    for (const Case& c : kCases)
      for (bool local_argument : {false, true}) {
        SCOPED_TRACE(std::string(c.what) + (local_argument ? ", a __local argument" : "") + ", " + options);
        auto compiled = compiler::compile(source(c, local_argument), options, features());
        ASSERT_TRUE(compiled.ok) << compiled.log;
        k2s::TargetCaps caps;
        caps.subgroup_size = 8;
        caps.subgroup_operations = true;
        caps.subgroup_features = k2s::kSubgroupBasic | k2s::kSubgroupVote | k2s::kSubgroupArithmetic |
                                 k2s::kSubgroupBallot | k2s::kSubgroupShuffle;
        k2s::TranslateResult r = k2s::translate(compiled.spirv, caps);
        ASSERT_TRUE(r.ok) << r.log;
        ASSERT_EQ(r.kernels.size(), 2u);
        for (const k2s::TranslatedKernel& t : r.kernels) {
          const bool want = t.interface.name == "plain" || (c.packable && !local_argument);
          EXPECT_EQ(t.interface.packable, want) << t.interface.name;
        }
      }
}

}  // namespace
}  // namespace vkcl
