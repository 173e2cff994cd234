// clCompileProgram / clLinkProgram: separate compilation with embedded headers, libraries
// (-create-library), executables from several objects, and the spec's errors.
#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class CompileLink : public KernelTest {
 protected:
  cl_program_binary_type binary_type(cl_program p) {
    cl_program_binary_type t = 0;
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, nullptr);
    return t;
  }
};

TEST_P(CompileLink, ObjectsLibrariesAndExecutables) {
  const char* options = GetParam().c_str();
  // A header only the compiler sees (input_headers), and a function defined elsewhere.
  Program header = source("#define SCALE 3\nint scale(int x);\n");
  Program lib_src = source("#include \"scale.h\"\nint scale(int x) { return x * SCALE; }\n");
  Program main_src = source(R"(
    #include "scale.h"
    int offset(int x);
    __kernel void k(__global int* out) {
      int i = (int)get_global_id(0);
      out[i] = offset(scale(i));
    })");
  Program off_src = source("int offset(int x) { return x + 1000; }\n");
  cl_program headers[] = {header};
  const char* names[] = {"scale.h"};
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(lib_src, 1, &device_, options, 1, headers, names, nullptr, nullptr))
      << log_of(lib_src);
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(main_src, 0, nullptr, options, 1, headers, names, nullptr, nullptr))
      << log_of(main_src);
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(off_src, 0, nullptr, options, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(binary_type(main_src), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT));
  // A compiled object is not an executable.
  cl_int err;
  EXPECT_EQ(nullptr, clCreateKernel(main_src, "k", &err));
  EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);

  // A library of two objects, then an executable from the library and the main object.
  cl_program lib_inputs[] = {lib_src, off_src};
  Program library(clLinkProgram(context_, 1, &device_, "-create-library", 2, lib_inputs, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err) << log_of(library);
  EXPECT_EQ(binary_type(library), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
  cl_program exe_inputs[] = {main_src, library};
  Program exe(clLinkProgram(context_, 1, &device_, "", 2, exe_inputs, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err) << log_of(exe);
  EXPECT_EQ(binary_type(exe), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_EXECUTABLE));
  Kernel k = kernel(exe, "k");
  Mem out = poisoned(64 * 4);
  set_mem_arg(k, 0, out);
  size_t n = 64;
  run(k, 1, &n, nullptr);
  auto v = read<int>(out, n);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 3 + 1000) << i;

  // A missing definition is a link failure that names the symbol.
  cl_program alone[] = {main_src};
  Program broken(clLinkProgram(context_, 1, &device_, "", 1, alone, nullptr, nullptr, &err));
  EXPECT_EQ(CL_LINK_PROGRAM_FAILURE, err);
  EXPECT_NE(log_of(broken).find("offset"), std::string::npos) << log_of(broken);
}

// Two compiled objects that both define the same function: clLinkProgram fails with
// CL_LINK_PROGRAM_FAILURE ("if there is a failure to link the compiled binaries and/or
// libraries") and the log names the function.
TEST_P(CompileLink, DuplicateDefinitionsFailToLink) {
  const char* options = GetParam().c_str();
  Program first = source(R"(
    int twice_value(int x) { return 2 * x; }
    __kernel void k(__global int* out) { out[0] = twice_value(out[0]); })");
  Program second = source("int twice_value(int x) { return x + x; }\n");
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(first, 1, &device_, options, 0, nullptr, nullptr, nullptr, nullptr))
      << log_of(first);
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(second, 1, &device_, options, 0, nullptr, nullptr, nullptr, nullptr))
      << log_of(second);
  cl_program inputs[] = {first, second};
  for (const char* link_options : {"", "-create-library"}) {
    cl_int err = CL_SUCCESS;
    Program linked(clLinkProgram(context_, 1, &device_, link_options, 2, inputs, nullptr, nullptr, &err));
    EXPECT_EQ(CL_LINK_PROGRAM_FAILURE, err) << link_options;
    ASSERT_NE(linked.get(), nullptr) << "the program is returned so its log can be read";
    EXPECT_NE(log_of(linked).find("twice_value"), std::string::npos) << log_of(linked);
    cl_build_status status = CL_BUILD_NONE;
    ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(linked, device_, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
    EXPECT_EQ(status, CL_BUILD_ERROR);
  }
  // The same kernel name in two objects is a duplicate definition too.
  Program again = source("__kernel void k(__global int* out) { out[0] = 1; }");
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(again, 1, &device_, options, 0, nullptr, nullptr, nullptr, nullptr));
  Program other = source("int twice_value(int x);\n__kernel void k2(__global int* out) { out[0] = twice_value(3); }");
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(other, 1, &device_, options, 0, nullptr, nullptr, nullptr, nullptr));
  cl_program kernels_twice[] = {first, again};
  cl_int err = CL_SUCCESS;
  Program clash(clLinkProgram(context_, 1, &device_, "", 2, kernels_twice, nullptr, nullptr, &err));
  EXPECT_EQ(CL_LINK_PROGRAM_FAILURE, err);
  // A declaration in one object and the definition in another still links.
  cl_program fine[] = {other, second};
  Program ok(clLinkProgram(context_, 1, &device_, "", 2, fine, nullptr, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err) << log_of(ok);
}

TEST_P(CompileLink, Errors) {
  Program p = source("__kernel void k(__global int* o) { o[0] = 1; }");
  cl_int err;
  // Not compiled yet: nothing to link.
  cl_program inputs[] = {p};
  EXPECT_EQ(nullptr, clLinkProgram(context_, 1, &device_, "", 1, inputs, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_OPERATION, err);
  ASSERT_EQ(CL_SUCCESS, clCompileProgram(p, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(nullptr, clLinkProgram(context_, 1, &device_, "-no-such-option", 1, inputs, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_LINKER_OPTIONS, err);
  EXPECT_EQ(nullptr, clLinkProgram(context_, 1, &device_, "", 0, inputs, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  const char* name = "h.h";
  EXPECT_EQ(CL_INVALID_VALUE, clCompileProgram(p, 0, nullptr, "", 1, nullptr, &name, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_COMPILER_OPTIONS, clCompileProgram(p, 0, nullptr, "-fmystery", 0, nullptr, nullptr, nullptr, nullptr));
  Program bad = source("__kernel void k() { nope(); }");
  EXPECT_EQ(CL_COMPILE_PROGRAM_FAILURE, clCompileProgram(bad, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr));
}

INSTANTIATE_TEST_SUITE_P(Options, CompileLink, ::testing::Values(std::string(""),
                                                                 std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
