// clCreateProgramWithIL: Kernel SPIR-V made offline, run on the device, checked on the CPU.
#include <cmath>
#include <fstream>
#include <iterator>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class ILProgram : public KernelTest {};

TEST_P(ILProgram, ScaleKernelFromSpirv) {
  std::string path = std::string(VKCL_IL_DIR) + "/scale." + (GetParam().empty() ? "O2" : "O0") + ".spv";
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << path;
  std::string il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  cl_int err = CL_SUCCESS;
  Program p(clCreateProgramWithIL(context_, il.data(), il.size(), &err));
  ASSERT_EQ(CL_SUCCESS, err);
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

// The parameter selects the offline optimisation level of the IL (O2 or O0).
INSTANTIATE_TEST_SUITE_P(Options, ILProgram,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
