// clCreateProgramWithIL: Kernel SPIR-V made offline, run on the device, checked on the CPU.
#include <cmath>
#include <fstream>
#include <iterator>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ILProgram : public KernelTest {
 protected:
  // A program from the IL file |name| made at build time (tests/CMakeLists.txt).
  Program from_il(const std::string& name) {
    std::string path = std::string(VKCL_IL_DIR) + "/" + name;
    std::ifstream file(path, std::ios::binary);
    EXPECT_TRUE(file) << path;
    std::string il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    cl_int err = CL_SUCCESS;
    Program p(clCreateProgramWithIL(context_, il.data(), il.size(), &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return p;
  }
};

TEST_P(ILProgram, ScaleKernelFromSpirv) {
  Program p = from_il(std::string("scale.") + (GetParam().empty() ? "O2" : "O0") + ".spv");
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
  Kernel k = kernel(p, "scale");
  const size_t n = 777;
  std::uniform_real_distribution<float> dist(-50, 50);
  std::vector<float> in(n);
  for (auto& v : in) v = dist(rng_);
  Mem din = buffer(n * 4, in.data()), dout = poisoned(n * 4);
  float factor = -3.25f;
  set_mem_arg(k, 0, din); set_mem_arg(k, 1, dout); set_arg(k, 2, factor);
  run(k, 1, &n, nullptr);
  auto out = read<float>(dout, n);
  for (size_t i = 0; i < n; ++i) {
    volatile float product = in[i] * factor;
    float separate = product + float(i), fused = std::fma(in[i], factor, float(i));
    ASSERT_TRUE(out[i] == separate || out[i] == fused) << i << ": " << out[i];
  }
}

// clSetProgramSpecializationConstant: values set before a build replace the defaults; each
// build takes the values set so far; wrong ids, sizes and programs give the spec's errors.
TEST_P(ILProgram, SpecializationConstants) {
  Program p = from_il("spec.spv");
  cl_int err = CL_SUCCESS;
  auto run_once = [&]() {
    EXPECT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
    Kernel k = kernel(p, "spec");
    Mem out = poisoned(12);
    set_mem_arg(k, 0, out);
    size_t one = 1;
    run(k, 1, &one, nullptr);
    return read<uint32_t>(out, 3);
  };
  EXPECT_EQ(run_once(), (std::vector<uint32_t>{7, 9, 1}));  // the defaults
  uint32_t a = 123456;
  uint64_t b = 0x100000005ull;  // the kernel keeps the low 32 bits
  uint8_t c = 0;
  EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 1, sizeof a, &a));
  EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 2, sizeof b, &b));
  EXPECT_EQ(CL_SUCCESS, clSetProgramSpecializationConstant(p, 3, sizeof c, &c));
  EXPECT_EQ(run_once(), (std::vector<uint32_t>{123456, 5, 0}));
  EXPECT_EQ(CL_INVALID_SPEC_ID, clSetProgramSpecializationConstant(p, 9, 4, &a));
  EXPECT_EQ(CL_INVALID_VALUE, clSetProgramSpecializationConstant(p, 1, 8, &b));
  EXPECT_EQ(CL_INVALID_VALUE, clSetProgramSpecializationConstant(p, 1, 4, nullptr));
  const char* src = "__kernel void k() {}";
  Program from_source(clCreateProgramWithSource(context_, 1, &src, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(from_source, 1, 4, &a));
}

// The parameter selects the offline optimisation level of the IL (O2 or O0).
INSTANTIATE_TEST_SUITE_P(Options, ILProgram,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
