// Clients that make thousands of small buffers (PyOpenCL's arrays, CLBlast's temporaries):
// drivers allow as few as 4096 allocations at once (maxMemoryAllocationCount), so small
// buffers share allocations (vk_backend/blocks.h). Each must still be its own: kernels write
// through one buffer's address and every other buffer keeps its contents.
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

using ManyBuffers = KernelTest;

TEST_P(ManyBuffers, ThousandsOfSmallBuffersKeepTheirOwnContents) {
  Program p = build(R"(
    kernel void tag(global uint* out, uint tag) { out[get_global_id(0)] = tag * 4096u + (uint)get_global_id(0); })");
  Kernel k = kernel(p, "tag");
  constexpr size_t kCount = 5000;
  std::vector<Mem> buffers;
  std::vector<size_t> words;
  for (size_t i = 0; i < kCount; ++i) {
    words.push_back(1 + rng_() % 700);
    buffers.push_back(buffer(words.back() * 4));
    ASSERT_TRUE(buffers.back().get());
  }
  for (size_t i = 0; i < kCount; ++i) {
    set_mem_arg(k, 0, buffers[i]);
    set_arg(k, 1, cl_uint(i));
    ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &words[i], nullptr, 0, nullptr, nullptr));
  }
  // Every other buffer released and made anew (its memory reused within the context), and
  // written by the host this time.
  for (size_t i = 0; i < kCount; i += 2) {
    buffers[i] = Mem();
    std::vector<cl_uint> init(words[i]);
    for (size_t w = 0; w < words[i]; ++w) init[w] = cl_uint(i) * 4096u + cl_uint(w) + 1u;
    buffers[i] = buffer(words[i] * 4, init.data());
  }
  for (size_t i = 0; i < kCount; ++i) {
    std::vector<cl_uint> got = read<cl_uint>(buffers[i], words[i]);
    for (size_t w = 0; w < words[i]; ++w) {
      ASSERT_EQ(got[w], cl_uint(i) * 4096u + cl_uint(w) + (i % 2 ? 0u : 1u)) << "buffer " << i << " word " << w;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, ManyBuffers, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
