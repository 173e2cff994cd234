// Writes the seed corpus of fuzz_program_binary: real binaries from
// clGetProgramInfo(CL_PROGRAM_BINARIES) of a few kernels built from source (executables,
// compiled objects, libraries), and of the Kernel SPIR-V modules named on the command line
// built with clCreateProgramWithIL (those that build).
// Usage: fuzz_program_binary_seeds <out-folder> [module.spv ...]
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "vkcl_direct.h"

namespace {

const char* kSources[] = {
    R"(__kernel void add(__global uint* a, uint k) { a[get_global_id(0)] = a[get_global_id(0)] * 3u + k; })",
    R"(__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
       void sum(__global const float* in, __global float* out, __local float* t) {
         size_t l = get_local_id(0);
         t[l] = in[get_global_id(0)];
         for (uint s = 32; s > 0; s >>= 1) {
           barrier(CLK_LOCAL_MEM_FENCE);
           if (l < s) t[l] += t[l + s];
         }
         if (l == 0) out[get_group_id(0)] = t[0];
       })",
    R"(typedef struct { int x; float y[3]; } S;
       global S g = {1, {2, 3, 4}};
       constant int table[4] = {1, 2, 3, 5};
       int pick(__global int* p, int k) { switch (k & 3) { case 0: return p[0]; default: return table[k & 3]; } }
       __kernel void k(__global int* o, __global long4* w) {
         int i = get_global_id(0);
         o[i] = pick(o, i) + (int)g.y[i % 3];
         w[i] = w[i] * 3 + (long4)(i);
         atomic_add(o, 1);
         if (i == 0) printf("%d %f\n", o[0], g.y[1]);
       })",
    R"(__kernel void img(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {
         int2 p = (int2)(get_global_id(0), get_global_id(1));
         write_imagef(dst, p, read_imagef(src, s, p) * 2.0f);
       })",
    R"(__kernel void loops(__global int* a, int n) {
         int s = 0;
         for (int i = 0; i < n; ++i) for (int j = 0; j < i; ++j) s += sub_group_reduce_add(i ^ j);
         a[get_global_id(0)] = s;
       })",
};

bool write_binary(cl_program program, const std::string& path) {
  const auto& cl = vkcl::fuzz::cl();
  size_t size = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0)
    return false;
  std::vector<unsigned char> bytes(size);
  unsigned char* pointer = bytes.data();
  if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr) != CL_SUCCESS)
    return false;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(size));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <out-folder> [module.spv ...]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const vkcl::fuzz::Session& s = vkcl::fuzz::session();
  const auto& cl = vkcl::fuzz::cl();
  int written = 0;
  cl_int err = CL_SUCCESS;
  for (size_t i = 0; i < std::size(kSources); ++i) {
    const std::string name = out + "/source" + std::to_string(i);
    cl_program p = cl.clCreateProgramWithSource(s.context, 1, &kSources[i], nullptr, &err);
    if (cl.clBuildProgram(p, 1, &s.device, "", nullptr, nullptr) == CL_SUCCESS)
      written += write_binary(p, name + ".executable");
    cl.clReleaseProgram(p);
    p = cl.clCreateProgramWithSource(s.context, 1, &kSources[i], nullptr, &err);
    if (cl.clCompileProgram(p, 1, &s.device, "", 0, nullptr, nullptr, nullptr, nullptr) == CL_SUCCESS) {
      written += write_binary(p, name + ".object");
      cl_program library = cl.clLinkProgram(s.context, 1, &s.device, "-create-library", 1, &p,
                                            nullptr, nullptr, &err);
      if (library) {
        written += write_binary(library, name + ".library");
        cl.clReleaseProgram(library);
      }
    }
    cl.clReleaseProgram(p);
  }
  for (int a = 2; a < argc; ++a) {
    std::ifstream in(argv[a], std::ios::binary);
    std::vector<char> il((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    cl_program p = cl.clCreateProgramWithIL(s.context, il.data(), il.size(), &err);
    if (!p) continue;
    if (cl.clBuildProgram(p, 1, &s.device, "", nullptr, nullptr) == CL_SUCCESS)
      written += write_binary(p, out + "/il" + std::to_string(a - 1) + ".executable");
    cl.clReleaseProgram(p);
  }
  std::printf("%d binaries in %s\n", written, out.c_str());
  return written > 0 ? 0 : 1;
}
