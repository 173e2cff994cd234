// Bad input never crashes the translator: modules derived from real kernels by changing one
// or two words (ids, literals, opcodes, operand counts) either translate to valid Vulkan
// SPIR-V or fail with a log. Most mutants are rejected by the input validation; the ones that
// pass it exercise the passes with unusual but valid input. VKCL_MUTANTS=<n> runs more.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::test {
namespace {

const char* kSources[] = {
    R"(__kernel void k(__global float* a, __global int* b, __local int* t, int n) {
         int i = get_global_id(0);
         t[get_local_id(0)] = b[i];
         barrier(CLK_LOCAL_MEM_FENCE);
         float s = 0;
         for (int j = 0; j < n; ++j) s += sin(a[(i + j) % n]) * t[j % 4];
         if (s > 1.0f) b[i] = (int)s; else a[i] = s;
       })",
    R"(typedef struct { int x; float y[3]; } S;
       global S g = {1, {2, 3, 4}};
       int pick(__global int* p, int k) { switch (k & 3) { case 0: return p[0]; case 1: return p[k]; default: return -k; } }
       __kernel void k(__global int* o, __global long8* w) {
         int i = get_global_id(0);
         o[i] = pick(o, i) + (int)g.y[i % 3];
         w[i] = w[i] * 3 + (long8)(i);
         atomic_add(o, 1);
       })",
};

void mutate(std::vector<uint32_t>& words, std::mt19937& rng) {
  std::uniform_int_distribution<size_t> at(5, words.size() - 1);
  std::uniform_int_distribution<int> kind(0, 3), small(0, 64);
  for (int n = 1 + int(rng() % 2); n > 0; --n) {
    size_t w = at(rng);
    switch (kind(rng)) {
      case 0: words[w] = uint32_t(small(rng)); break;             // another id or literal
      case 1: words[w] = words[at(rng)]; break;                   // a word from elsewhere
      case 2: words[w] ^= 1u << (rng() % 32); break;              // one bit
      default: words[w] = (words[w] & 0xffff0000u) | (rng() % 400); break;  // an opcode
    }
  }
}

TEST(Mutation, MutatedModulesTranslateOrFailWithALog) {
  int per_source = 150;
  if (const char* n = std::getenv("VKCL_MUTANTS")) per_source = std::atoi(n);
  compiler::DeviceFeatures features;
  features.int64 = true;
  features.features = {"__opencl_c_program_scope_global_variables"};
  k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.storage8 = caps.storage16 = true;
  std::mt19937 rng(2026);
  int translated = 0;
  for (const char* source : kSources) {
    auto compiled = compiler::compile(source, "-cl-std=CL3.0", features);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    for (int m = 0; m < per_source; ++m) {
      std::vector<uint32_t> words = compiled.spirv;
      mutate(words, rng);
      k2s::TranslateResult r = k2s::translate(words, caps);
      if (r.ok) ++translated;
      else EXPECT_FALSE(r.log.empty()) << "mutant " << m << " failed without a log";
    }
  }
  RecordProperty("translated", translated);
}

}  // namespace
}  // namespace vkcl::test
