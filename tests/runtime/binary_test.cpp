// Program binaries (clGetProgramInfo CL_PROGRAM_BINARIES, clCreateProgramWithBinary): each
// records whether it is a compiled object, a library or an executable, objects and libraries
// loaded from binaries link with clLinkProgram, executables build and run, and damaged
// binaries are CL_INVALID_BINARY.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class Binaries : public KernelTest {
 protected:
  cl_program_binary_type binary_type(cl_program p) {
    cl_program_binary_type t = 0;
    EXPECT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, device_, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, nullptr));
    return t;
  }
  cl_build_status build_status(cl_program p) {
    cl_build_status s = CL_BUILD_SUCCESS;
    EXPECT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr));
    return s;
  }
  std::vector<unsigned char> binary_of(cl_program p) {
    size_t size = 0;
    EXPECT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
    std::vector<unsigned char> binary(size);
    unsigned char* ptr = binary.data();
    EXPECT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr));
    return binary;
  }
  // A program from |binary|; |status| gets binary_status, |err| errcode_ret.
  Program load(const std::vector<unsigned char>& binary, cl_int* status, cl_int* err) {
    size_t size = binary.size();
    const unsigned char* in = binary.data();
    return Program(clCreateProgramWithBinary(context_, 1, &device_, &size, &in, status, err));
  }
  Program load(const std::vector<unsigned char>& binary) {
    cl_int status = CL_INVALID_VALUE, err = CL_INVALID_VALUE;
    Program p = load(binary, &status, &err);
    EXPECT_EQ(CL_SUCCESS, err);
    EXPECT_EQ(CL_SUCCESS, status);
    return p;
  }
  Program compiled(const char* text) {
    Program p = source(text);
    EXPECT_EQ(CL_SUCCESS, clCompileProgram(p, 1, &device_, GetParam().c_str(), 0, nullptr, nullptr,
                                           nullptr, nullptr)) << log_of(p);
    return p;
  }
  Program link(std::vector<cl_program> inputs, const char* options, cl_int expected = CL_SUCCESS) {
    cl_int err;
    Program p(clLinkProgram(context_, 1, &device_, options, cl_uint(inputs.size()), inputs.data(),
                            nullptr, nullptr, &err));
    EXPECT_EQ(expected, err) << (p.get() ? log_of(p) : std::string());
    return p;
  }
  // Runs k(out) over 64 work-items and returns out.
  std::vector<int> run_64(cl_program p, const char* name) {
    cl_int err;
    Kernel k(clCreateKernel(p, name, &err));
    EXPECT_EQ(CL_SUCCESS, err);
    Mem out = poisoned(64 * 4);
    set_mem_arg(k, 0, out);
    size_t n = 64;
    run(k, 1, &n, nullptr);
    return read<int>(out, n);
  }
};

const char* kMain = R"(
  int scale(int x);
  __kernel void k(__global int* out) {
    int i = (int)get_global_id(0);
    out[i] = scale(i) + 7;
  })";
const char* kScale = "int scale(int x) { return x * 5; }\n";

TEST_P(Binaries, CompiledObjectsLinkAfterReload) {
  Program main_obj = compiled(kMain), scale_obj = compiled(kScale);
  Program main_bin = load(binary_of(main_obj)), scale_bin = load(binary_of(scale_obj));
  EXPECT_EQ(binary_type(main_bin), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT));
  EXPECT_EQ(build_status(main_bin), CL_BUILD_NONE);
  // Nothing is executable until linked.
  cl_int err;
  EXPECT_EQ(nullptr, clCreateKernel(main_bin, "k", &err));
  EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
  Program exe = link({main_bin, scale_bin}, "");
  EXPECT_EQ(binary_type(exe), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_EXECUTABLE));
  auto v = run_64(exe, "k");
  for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 5 + 7) << i;
  // A reloaded object still names what it imports when the definition is missing.
  Program broken = link({main_bin}, "", CL_LINK_PROGRAM_FAILURE);
  EXPECT_NE(log_of(broken).find("scale"), std::string::npos) << log_of(broken);
}

TEST_P(Binaries, LibraryLinksAfterReload) {
  Program scale_obj = compiled(kScale);
  Program library = link({scale_obj}, "-create-library");
  Program library_bin = load(binary_of(library));
  EXPECT_EQ(binary_type(library_bin), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
  // A library made of a reloaded library is still a library, and links into an executable.
  Program again = link({library_bin}, "-create-library");
  EXPECT_EQ(binary_type(again), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
  Program main_obj = compiled(kMain);
  Program exe = link({main_obj, load(binary_of(again))}, "");
  auto v = run_64(exe, "k");
  for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 5 + 7) << i;
}

TEST_P(Binaries, ExecutableBuildsAfterReload) {
  Program exe = link({compiled(kMain), compiled(kScale)}, "");
  Program exe_bin = load(binary_of(exe));
  EXPECT_EQ(binary_type(exe_bin), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_EXECUTABLE));
  cl_int err;
  EXPECT_EQ(nullptr, clCreateKernel(exe_bin, "k", &err));
  EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(exe_bin, 1, &device_, "", nullptr, nullptr)) << log_of(exe_bin);
  EXPECT_EQ(build_status(exe_bin), CL_BUILD_SUCCESS);
  auto v = run_64(exe_bin, "k");
  for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 5 + 7) << i;
  // And the rebuilt program's binary is again an executable binary.
  EXPECT_EQ(binary_type(load(binary_of(exe_bin))), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_EXECUTABLE));
}

// A program built in one step links nothing more: the functions none of its kernels calls
// are not in its executable (hashcat's sources carry the helpers of every hash type), while a
// compiled object keeps them all for clLinkProgram.
TEST_P(Binaries, BuiltProgramsKeepOnlyWhatTheirKernelsCall) {
  const char* text = R"(
    int helper_nobody_calls(int x) { return x * 11; }
    int scale(int x) { return x * 5; }
    __kernel void k(__global int* out) { int i = (int)get_global_id(0); out[i] = scale(i) + 7; })";
  auto holds = [](const std::vector<unsigned char>& binary, const std::string& name) {
    return std::search(binary.begin(), binary.end(), name.begin(), name.end()) != binary.end();
  };
  Program built = source(text);
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(built, 1, &device_, GetParam().c_str(), nullptr, nullptr)) << log_of(built);
  EXPECT_FALSE(holds(binary_of(built), "helper_nobody_calls"));
  auto v = run_64(built, "k");
  for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 5 + 7) << i;
  EXPECT_TRUE(holds(binary_of(compiled(text)), "helper_nobody_calls"));
}

TEST_P(Binaries, ObjectBinaryBuildsWhenSelfContained) {
  // clBuildProgram on a compiled object links it alone: fine when it imports nothing...
  Program whole = load(binary_of(compiled(
      "__kernel void k(__global int* out) { out[get_global_id(0)] = (int)get_global_id(0) * 3; }")));
  ASSERT_EQ(CL_SUCCESS, clBuildProgram(whole, 1, &device_, "", nullptr, nullptr)) << log_of(whole);
  auto v = run_64(whole, "k");
  for (int i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 3) << i;
  // ... and a build failure naming the symbol when it does.
  Program part = load(binary_of(compiled(kMain)));
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(part, 1, &device_, "", nullptr, nullptr));
  EXPECT_NE(log_of(part).find("scale"), std::string::npos) << log_of(part);
}

TEST_P(Binaries, LanguageVersionSurvives) {
  // OpenCL C 1.2 programs need uniform work-groups; 3.0 programs do not. The binary keeps
  // which one it was built from.
  const char* text = "__kernel void k(__global int* o) { o[get_global_id(0)] = 1; }";
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL3.0"}) {
    Program built = build(text, std);
    Program p = load(binary_of(built));
    ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &device_, "", nullptr, nullptr)) << log_of(p);
    Kernel k = kernel(p, "k");
    Mem out = poisoned(12 * 4);
    set_mem_arg(k, 0, out);
    size_t global = 10, local = 4;
    cl_int expected = std == std::string("-cl-std=CL1.2") ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS;
    EXPECT_EQ(expected, clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0, nullptr, nullptr))
        << std;
    ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
  }
}

// FNV-1a, as the format checks its SPIR-V (to forge binaries whose checksum matches).
uint32_t fnv1a(const unsigned char* bytes, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 16777619u;
  return h;
}

TEST_P(Binaries, DamagedBinariesAreInvalid) {
  const std::vector<unsigned char> good = binary_of(compiled(kMain));
  ASSERT_GT(good.size(), 64u);
  auto expect_invalid = [&](const std::vector<unsigned char>& bad, const char* what) {
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    Program p = load(bad, &status, &err);
    EXPECT_EQ(nullptr, p.get()) << what;
    EXPECT_EQ(CL_INVALID_BINARY, err) << what;
    EXPECT_EQ(CL_INVALID_BINARY, status) << what;
  };
  for (size_t cut : {size_t(1), size_t(4), good.size() / 2, good.size() - 28, good.size() - 4})
    expect_invalid(std::vector<unsigned char>(good.begin(), good.end() - long(cut)), "truncated");
  std::vector<unsigned char> longer = good;
  longer.resize(good.size() + 4);
  expect_invalid(longer, "trailing bytes");
  // Every header word and a byte in the middle of the SPIR-V.
  for (size_t at : {size_t(0), size_t(4), size_t(8), size_t(12), size_t(16), size_t(20),
                    size_t(24), size_t(28), good.size() / 2, good.size() - 1}) {
    std::vector<unsigned char> bad = good;
    bad[at] ^= 0x5a;
    expect_invalid(bad, ("byte " + std::to_string(at)).c_str());
  }
  // A well-framed header around an instruction stream whose word counts do not add up.
  std::vector<unsigned char> forged = good;
  forged[28 + 5 * 4 + 2] = 0xff;  // word count of the first instruction after the header
  forged[28 + 5 * 4 + 3] = 0xff;
  uint32_t sum = fnv1a(forged.data() + 28, forged.size() - 28);
  std::memcpy(forged.data() + 20, &sum, 4);
  expect_invalid(forged, "malformed instruction stream");
  // An IL module is not a vkcl binary.
  std::vector<unsigned char> il(good.begin() + 28, good.end());
  expect_invalid(il, "bare SPIR-V");
  // A zero length is CL_INVALID_VALUE.
  size_t zero = 0;
  const unsigned char* in = good.data();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  EXPECT_EQ(nullptr, clCreateProgramWithBinary(context_, 1, &device_, &zero, &in, &status, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
}

TEST_P(Binaries, CorruptModulesInIntactBinariesFailToBuild) {
  // Damage the checksum cannot see (a forger's): the build fails or succeeds, never crashes.
  const std::vector<unsigned char> good = binary_of(compiled(
      "__kernel void k(__global int* out) { out[get_global_id(0)] = (int)get_global_id(0) * 3; }"));
  // (Empty when the compile failed, as under VKCL_FAIL_HOST_ALLOCATIONS.)
  ASSERT_GT(good.size(), 28u + 5 * 4);
  std::mt19937 rng(7);
  size_t words = (good.size() - 28) / 4;
  int failures = 0;
  for (int round = 0; round < 24; ++round) {
    std::vector<unsigned char> bad = good;
    size_t word = 5 + rng() % (words - 5);
    // Keep each instruction's word count (bits 16-31) so the stream stays framed.
    bad[28 + word * 4 + rng() % 2] ^= uint8_t(1 + rng() % 255);
    uint32_t sum = fnv1a(bad.data() + 28, bad.size() - 28);
    std::memcpy(bad.data() + 20, &sum, 4);
    cl_int status, err;
    Program p = load(bad, &status, &err);
    if (!p.get()) continue;
    cl_int r = clBuildProgram(p, 1, &device_, "", nullptr, nullptr);
    EXPECT_TRUE(r == CL_SUCCESS || r == CL_BUILD_PROGRAM_FAILURE) << r;
    failures += r != CL_SUCCESS;
  }
  EXPECT_GT(failures, 0);
}

// Inputs with which fuzz/program_binary_fuzzer.cpp (scripts/fuzz.sh) crashed vkcl, as it
// wrote them (tests/data/fuzz/program_binary).
TEST_P(Binaries, FoundByFuzzing) {
  const std::string folder = std::string(VKCL_TEST_DATA_DIR) + "/fuzz/program_binary/";
  // A header that agrees with its contents but no SPIR-V at all: its 0 words were copied
  // into an empty vector (memcpy to a null pointer).
  const std::vector<std::string> refused = {"crash-2a9812748eb19911985ded25e4691cba56d24bb1"};
  for (const std::string& name : refused) {
    std::ifstream in(folder + name, std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty()) << name;
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    Program p = load(bytes, &status, &err);
    if (p.get()) {
      cl_int r = clBuildProgram(p, 1, &device_, "", nullptr, nullptr);
      EXPECT_TRUE(r == CL_SUCCESS || r == CL_BUILD_PROGRAM_FAILURE) << name << ": " << r;
    }
    EXPECT_EQ(nullptr, p.get()) << name;
    EXPECT_EQ(CL_INVALID_BINARY, err) << name;
  }
  // Intact binaries whose translation went wrong; they build or fail to build (ASan builds see
  // the bug). A bool vector live across a loop that resumes (lavapipe): resumable-loops read
  // its type through a pointer into the globals that adding the constant 1 had moved.
  for (const std::string name : {"crash-ca93d7de9c42e8cbe3ac338f74d7544f1d6890f7"}) {
    std::ifstream in(folder + name, std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty()) << name;
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    Program p = load(bytes, &status, &err);
    ASSERT_NE(nullptr, p.get()) << name << ": " << err;
    cl_int r = clBuildProgram(p, 1, &device_, "", nullptr, nullptr);
    EXPECT_TRUE(r == CL_SUCCESS || r == CL_BUILD_PROGRAM_FAILURE) << name << ": " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, Binaries, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
