// libFuzzer target for the program-binary loader: bytes -> clCreateProgramWithBinary, and
// when that makes a program, clBuildProgram (which translates an executable's SPIR-V and links
// a compiled object's) and its kernels, on the first vkcl device (lavapipe in scripts/fuzz.sh).
#include <cstdint>
#include <cstring>
#include <vector>

#include "vkcl_direct.h"

namespace {

// The binary's header as cl_frontend/core/program.cpp writes it: magic, version, type,
// language version, flags, FNV-1a checksum of the SPIR-V, SPIR-V word count.
constexpr size_t kHeaderWords = 7;

uint32_t checksum(const uint8_t* bytes, size_t size) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 16777619u;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("VKCL_CACHE", "0", 0);  // no compile cache on disk: each input is built afresh
  vkcl::fuzz::session();
  return 0;
}

// Most mutants are given a header that agrees with their contents (word count and checksum):
// otherwise nearly all of them stop at the checksum and the loader's later checks, the
// linker and the translator are never reached. One in eight keeps the mutated header.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 8 == 0 || size < kHeaderWords * 4) return size;
  size -= size % 4;
  uint32_t words = uint32_t(size / 4 - kHeaderWords);
  uint32_t sum = checksum(data + kHeaderWords * 4, size - kHeaderWords * 4);
  std::memcpy(data + 5 * 4, &sum, 4);
  std::memcpy(data + 6 * 4, &words, 4);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vkcl::fuzz::Session& s = vkcl::fuzz::session();
  const auto& cl = vkcl::fuzz::cl();
  if (size == 0) return 0;  // CL_INVALID_VALUE, tested by the API tests
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program program =
      cl.clCreateProgramWithBinary(s.context, 1, &s.device, &size, &data, &status, &err);
  if (!program) return 0;
  if (cl.clBuildProgram(program, 1, &s.device, "", nullptr, nullptr) == CL_SUCCESS) {
    cl_uint count = 0;
    if (cl.clCreateKernelsInProgram(program, 0, nullptr, &count) == CL_SUCCESS && count > 0) {
      std::vector<cl_kernel> kernels(count);
      if (cl.clCreateKernelsInProgram(program, count, kernels.data(), nullptr) == CL_SUCCESS)
        for (cl_kernel k : kernels) cl.clReleaseKernel(k);
    }
  }
  size_t log_size = 0;
  cl.clGetProgramBuildInfo(program, s.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
  cl.clReleaseProgram(program);
  return 0;
}
