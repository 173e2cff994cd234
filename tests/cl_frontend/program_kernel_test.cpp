// Programs and kernels: builds, logs, options, binaries, argument checks and launch errors.
#include <cstring>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Programs : public KernelTest {};

TEST_P(Programs, BuildFailureLogHasClangDiagnostics) {
  Program p = source("__kernel void k(__global int* o) { o[0] = undefined_thing; }");
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
  EXPECT_NE(log_of(p).find("undefined_thing"), std::string::npos) << log_of(p);
  cl_build_status status;
  ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_STATUS, sizeof(status), &status, nullptr));
  EXPECT_EQ(status, CL_BUILD_ERROR);
  size_t n;
  EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(n), &n, nullptr));
  cl_int err;
  EXPECT_EQ(nullptr, clCreateKernel(p, "k", &err));
  EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
}

TEST_P(Programs, UnsupportedConstructIsABuildFailureNamingIt) {
  // Without images (VKCL_WITHOUT_FEATURES=images) the log says what it met.
  WithoutImages hidden;
  Program p = source("__kernel void k(__read_only image2d_t img, __global int* o) { o[0] = 1; }");
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
  EXPECT_NE(log_of(p).find("ImageBasic is not supported"), std::string::npos)
      << log_of(p);
}

// C99 6.10.4 (OpenCL C's preprocessor): "#line digit-sequence "s-char-sequence"" makes the
// next source line that line number, in the file that string names. Diagnostics name the
// presumed file and line, as clang's driver prints them (the CTS's preprocessor_line_error
// looks for both in the log).
TEST_P(Programs, BuildLogFollowsLineDirectives) {
  Program p = source(
      "__kernel void k(__global int* o)\n"
      "{\n"
      "#line 124 \"fictitious/file/name.c\"\n"
      "  o[0] = undefined_thing;\n"
      "}\n");
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));
  std::string log = log_of(p);
  EXPECT_NE(log.find("fictitious/file/name.c:124:"), std::string::npos) << log;
  // Lines before the directive keep the source's own numbering.
  Program q = source("__kernel void k(__global int* o)\n{\n  o[0] = undefined_thing;\n}\n");
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(q, 1, &device_, "", nullptr, nullptr));
  EXPECT_NE(log_of(q).find(":3:"), std::string::npos) << log_of(q);
}

TEST_P(Programs, InvalidOptions) {
  Program p = source("__kernel void k(__global int* o) { o[0] = 1; }");
  EXPECT_EQ(CL_INVALID_BUILD_OPTIONS, clBuildProgram(p, 1, &device_, "-fno-such-option", nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_BUILD_OPTIONS, clBuildProgram(p, 1, &device_, "-cl-std=CL2.0", nullptr, nullptr));
}

// "-Werror: Make all warnings into errors" (5.8.6.3): a program whose only diagnostic is a
// warning fails to build or compile with it, and the log has the warning; "-w: Inhibit all
// warning messages".
TEST_P(Programs, WerrorTurnsWarningsIntoFailures) {
  const char* text = "__kernel void k(__global int* o) { o[0] == 1; o[0] = 2; }";  // -Wunused-comparison
  Program plain = source(text);
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(plain, 1, &device_, "", nullptr, nullptr)) << log_of(plain);
  EXPECT_NE(log_of(plain).find("warning"), std::string::npos) << log_of(plain);
  Program quiet = source(text);
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(quiet, 1, &device_, "-w", nullptr, nullptr)) << log_of(quiet);
  EXPECT_EQ(log_of(quiet).find("comparison result unused"), std::string::npos) << log_of(quiet);
  Program strict = source(text);
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(strict, 1, &device_, "-Werror", nullptr, nullptr));
  EXPECT_NE(log_of(strict).find("comparison result unused"), std::string::npos) << log_of(strict);
  cl_build_status status = CL_BUILD_NONE;
  ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(strict, device_, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
  EXPECT_EQ(status, CL_BUILD_ERROR);
  Program compiled = source(text);
  EXPECT_EQ(CL_COMPILE_PROGRAM_FAILURE,
            clCompileProgram(compiled, 1, &device_, "-Werror", 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_NE(log_of(compiled).find("comparison result unused"), std::string::npos) << log_of(compiled);
}

TEST_P(Programs, DefinesTakeEffect) {
  Program p = build("__kernel void k(__global int* o) { o[0] = VALUE * 2; }", "-D VALUE=21");
  Kernel k = kernel(p, "k");
  Mem out = poisoned(4);
  set_mem_arg(k, 0, out);
  size_t one = 1;
  run(k, 1, &one, &one);
  EXPECT_EQ(read<int>(out, 1)[0], 42);
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &size));
  std::string options(size, '\0');
  clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_OPTIONS, size, options.data(), nullptr);
  EXPECT_NE(options.find("-D VALUE=21"), std::string::npos);
}

TEST_P(Programs, BinariesRoundTrip) {
  Program p = build("__kernel void twice(__global int* o) { o[get_global_id(0)] *= 2; }");
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr));
  ASSERT_GT(size, 20u);
  std::vector<unsigned char> binary(size);
  unsigned char* ptr = binary.data();
  ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr));
  cl_int err, status;
  const unsigned char* in = binary.data();
  Program again(clCreateProgramWithBinary(context_, 1, &device_, &size, &in, &status, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(again, 1, &device_, "", nullptr, nullptr));
  Kernel k = kernel(again, "twice");
  std::vector<int> data = {1, 2, 3, 4};
  Mem m = buffer(16, data.data());
  set_mem_arg(k, 0, m);
  size_t n = 4;
  run(k, 1, &n, nullptr);
  EXPECT_EQ(read<int>(m, 4), (std::vector<int>{2, 4, 6, 8}));
  binary[0] ^= 0xff;
  EXPECT_EQ(nullptr, clCreateProgramWithBinary(context_, 1, &device_, &size, &in, &status, &err));
  EXPECT_EQ(CL_INVALID_BINARY, err);
  char junk[24] = {};
  EXPECT_EQ(nullptr, clCreateProgramWithIL(context_, junk, sizeof(junk), &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
}

TEST_P(Programs, KernelInfoAndArgInfo) {
  const char* source = R"(
    __kernel __attribute__((reqd_work_group_size(8, 1, 1)))
    void info(__global const float* restrict in, __local int* scratch, __constant int* table,
              float4 scale, int count) {})";
  Program p = build(source, "-cl-kernel-arg-info");
  Kernel k = kernel(p, "info");
  cl_uint nargs = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, nullptr));
  EXPECT_EQ(nargs, 5u);
  char text[128];
  ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(text), text, nullptr));
  EXPECT_STREQ(text, "info");
  ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof(text), text, nullptr));
  EXPECT_NE(std::string(text).find("reqd_work_group_size(8,1,1)"), std::string::npos) << text;
  // vec_type_hint as declared, by its OpenCL C name.
  Program hinted = build(R"(
    __kernel __attribute__((vec_type_hint(uchar2))) void u(__global int* o) {}
    __kernel __attribute__((vec_type_hint(short8))) void s(__global int* o) {}
    __kernel __attribute__((vec_type_hint(double))) void d(__global int* o) {})");
  for (auto [name, hint] : {std::pair<const char*, const char*>{"u", "vec_type_hint(uchar2)"},
                            {"s", "vec_type_hint(short8)"}, {"d", "vec_type_hint(double)"}}) {
    Kernel h = kernel(hinted, name);
    ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(h, CL_KERNEL_ATTRIBUTES, sizeof(text), text, nullptr));
    EXPECT_EQ(std::string(text), hint);
  }
  ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof(text), text, nullptr));
  EXPECT_STREQ(text, "in");
  ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(text), text, nullptr));
  EXPECT_STREQ(text, "float*");
  cl_kernel_arg_type_qualifier tq = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, nullptr));
  EXPECT_EQ(tq, cl_kernel_arg_type_qualifier(CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT));
  cl_kernel_arg_address_qualifier aq[4];
  for (cl_uint i = 0; i < 4; ++i)
    ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq[i]), &aq[i], nullptr));
  EXPECT_EQ(aq[0], cl_kernel_arg_address_qualifier(CL_KERNEL_ARG_ADDRESS_GLOBAL));
  EXPECT_EQ(aq[1], cl_kernel_arg_address_qualifier(CL_KERNEL_ARG_ADDRESS_LOCAL));
  EXPECT_EQ(aq[2], cl_kernel_arg_address_qualifier(CL_KERNEL_ARG_ADDRESS_CONSTANT));
  EXPECT_EQ(aq[3], cl_kernel_arg_address_qualifier(CL_KERNEL_ARG_ADDRESS_PRIVATE));
  EXPECT_EQ(CL_INVALID_ARG_INDEX, clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof(text), text, nullptr));
  // Argument information "is only available if ... the program executable was built with the
  // -cl-kernel-arg-info option"; the kernel's own attributes are there either way.
  Program plain = build(source);
  Kernel without = kernel(plain, "info");
  EXPECT_EQ(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
            clGetKernelArgInfo(without, 0, CL_KERNEL_ARG_NAME, sizeof(text), text, nullptr));
  EXPECT_EQ(CL_INVALID_ARG_INDEX, clGetKernelArgInfo(without, 9, CL_KERNEL_ARG_NAME, sizeof(text), text, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(without, CL_KERNEL_ATTRIBUTES, sizeof(text), text, nullptr));
  EXPECT_NE(std::string(text).find("reqd_work_group_size(8,1,1)"), std::string::npos) << text;
  // Linked: what each kernel's clCompileProgram was given.
  for (const char* options : {"-cl-kernel-arg-info", ""}) {
    Program object = this->source(source);
    ASSERT_EQ(CL_SUCCESS, clCompileProgram(object, 1, &device_, options, 0, nullptr, nullptr, nullptr, nullptr));
    cl_program input = object.get();
    cl_int error = CL_SUCCESS;
    Program linked(clLinkProgram(context_, 1, &device_, "", 1, &input, nullptr, nullptr, &error));
    ASSERT_EQ(CL_SUCCESS, error);
    Kernel l = kernel(linked, "info");
    EXPECT_EQ(*options ? CL_SUCCESS : CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
              clGetKernelArgInfo(l, 0, CL_KERNEL_ARG_NAME, sizeof(text), text, nullptr)) << options;
  }
  size_t compiled[3];
  ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                                 sizeof(compiled), compiled, nullptr));
  EXPECT_EQ(compiled[0], 8u);
  EXPECT_EQ(compiled[1], 1u);
  size_t wg = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, nullptr));
  EXPECT_GE(wg, 8u);
  EXPECT_EQ(CL_INVALID_VALUE, clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_GLOBAL_WORK_SIZE,
                                                       sizeof(compiled), compiled, nullptr));
}

TEST_P(Programs, SetArgAndLaunchErrors) {
  Program p = build(R"(
    __kernel __attribute__((reqd_work_group_size(4, 1, 1)))
    void fixed(__global int* o, __local int* t, int v) { o[get_global_id(0)] = v; }
    __kernel void any(__global int* o) { o[get_global_id(0)] = 1; })");
  Kernel k = kernel(p, "fixed");
  cl_int err;
  EXPECT_EQ(nullptr, clCreateKernel(p, "missing", &err));
  EXPECT_EQ(CL_INVALID_KERNEL_NAME, err);
  Mem m = buffer(64);
  cl_mem h = m.get();
  int v = 3;
  EXPECT_EQ(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 3, sizeof(int), &v));
  EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 4, &h));
  EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 2, 2, &v));
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 2, sizeof(int), nullptr));
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, 16, &v));
  EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 0, nullptr));
  int not_a_mem = 0;
  void* bogus = &not_a_mem;
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof(cl_mem), &bogus));
  size_t global = 16, local = 8;
  EXPECT_EQ(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, 16, nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(int), &v));
  EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_WORK_DIMENSION, clEnqueueNDRangeKernel(queue_, k, 0, nullptr, &global, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_WORK_DIMENSION, clEnqueueNDRangeKernel(queue_, k, 4, nullptr, &global, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(read<int>(m, 16), std::vector<int>(16, 3));
  // OpenCL 3.0: a NULL or zero global size succeeds and runs nothing.
  int other = v + 1;
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(int), &other));
  size_t none = 0;
  EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &none, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(read<int>(m, 16), std::vector<int>(16, 3));

  Kernel any = kernel(p, "any");
  set_mem_arg(any, 0, m);
  size_t odd = 10, four = 4, huge = 4096;
  // OpenCL C 1.2 programs need uniform work-groups.
  EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(queue_, any, 1, nullptr, &odd, &four, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_WORK_ITEM_SIZE, clEnqueueNDRangeKernel(queue_, any, 1, nullptr, &huge, &huge, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_OPERATION, clBuildProgram(p, 1, &device_, "", nullptr, nullptr));

  cl_uint count = 0;
  ASSERT_EQ(CL_SUCCESS, clCreateKernelsInProgram(p, 0, nullptr, &count));
  EXPECT_EQ(count, 2u);
  cl_kernel all[1];
  EXPECT_EQ(CL_INVALID_VALUE, clCreateKernelsInProgram(p, 1, all, nullptr));
}

TEST_P(Programs, AllOfLocalMemoryIsUsable) {
  // OpenCL 3.0 requires at least 32 KB; vkcl reports the device's whole shared memory and a
  // kernel with no internal local data may use all of it through a __local argument.
  cl_ulong local_size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_size, &local_size, nullptr));
  EXPECT_GE(local_size, 32u * 1024);
  Program p = build(R"(
    __kernel void fill(__global int* o, __local int* t, int n) {
      for (int i = get_local_id(0); i < n; i += get_local_size(0)) t[i] = i * 3;
      barrier(CLK_LOCAL_MEM_FENCE);
      o[get_global_id(0)] = t[n - 1 - get_local_id(0)];
    })");
  Kernel k = kernel(p, "fill");
  cl_ulong internal = 1;
  ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof internal, &internal, nullptr));
  EXPECT_EQ(internal, 0u);
  int n = int(local_size / 4);
  size_t global = 64;
  Mem m = buffer(global * 4);
  set_mem_arg(k, 0, m);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, size_t(local_size), nullptr));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof n, &n));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &global, 0, nullptr, nullptr));
  std::vector<int> got = read<int>(m, global);
  for (size_t i = 0; i < global; ++i) EXPECT_EQ(got[i], (n - 1 - int(i)) * 3);
}

INSTANTIATE_TEST_SUITE_P(Api, Programs, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
