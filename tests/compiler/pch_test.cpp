// The precompiled default header (compiler/pch.h): programs come out the same with and without
// it, it is not used where the application's macros would change what the header means, and
// one that clang refuses is dropped without failing the build.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "compiler/cache.h"
#include "compiler/compiler.h"

namespace vkcl::compiler {
namespace {

class PrecompiledHeader : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/vkcl-pch-test.XXXXXX";
    ASSERT_NE(mkdtemp(path), nullptr);
    dir_ = path;
    setenv("VKCL_CACHE_DIR", dir_.c_str(), 1);
    unsetenv("VKCL_CACHE");
  }
  void TearDown() override {
    cache::flush();
    for (const std::string& name : large_entries()) std::remove((dir_ + "/" + name).c_str());
    for (const std::string& name : all_entries()) std::remove((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
    unsetenv("VKCL_CACHE_DIR");
  }
  std::set<std::string> all_entries() const {
    std::set<std::string> names;
    if (DIR* d = opendir(dir_.c_str())) {
      while (dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.insert(e->d_name);
      closedir(d);
    }
    return names;
  }
  // Precompiled headers are 100 KB and more; compiled programs like these a few KB.
  std::set<std::string> large_entries() const {
    std::set<std::string> names;
    for (const std::string& name : all_entries()) {
      struct stat st{};
      if (stat((dir_ + "/" + name).c_str(), &st) == 0 && st.st_size > 50000) names.insert(name);
    }
    return names;
  }
  std::string dir_;
};

// Runs |body| in a child process whose cache folder is a new one holding a copy of |entry|
// from |dir| (the parent's knowledge of its headers is per folder): true when it returns true.
template <typename Body>
bool in_another_process(const std::string& dir, const std::string& entry, Body body) {
  pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    char path[] = "/tmp/vkcl-pch-child.XXXXXX";
    if (!mkdtemp(path)) _exit(2);
    const std::string other = path;
    {
      std::ifstream in(dir + "/" + entry, std::ios::binary);
      std::ofstream(other + "/" + entry, std::ios::binary) << in.rdbuf();
    }
    setenv("VKCL_CACHE_DIR", other.c_str(), 1);
    const bool passed = body(other);
    cache::flush();
    std::system(("rm -rf '" + other + "'").c_str());
    _exit(passed ? 0 : 1);
  }
  int status = 0;
  return waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

DeviceFeatures features() {
  DeviceFeatures f;
  f.int64 = true;
  f.extensions = {"cl_khr_global_int32_base_atomics"};
  return f;
}

// Names from all over the header: types, constants, fences, memory orders.
std::string source(int variant) {
  return "// variant " + std::to_string(variant) + "\n"
         "__kernel void k(__global float4* o, __global uint* flags) {\n"
         "  const size_t i = get_global_id(0);\n"
         "  o[i] = (float4)(FLT_MAX, M_PI_F, MAXFLOAT, FLT_EPSILON) * (float)CHAR_BIT;\n"
         "  flags[i] = CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE | (uint)sizeof(float16);\n"
         "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
         "}\n";
}

TEST_F(PrecompiledHeader, ProgramsComeOutTheSame) {
  // A set of options no other test uses: the second compile makes its header, the third
  // starts from it (each source differs in a comment, so none comes from the cache).
  const char* options = "-cl-std=CL3.0 -cl-finite-math-only -DUNRELATED=3";
  CompileResult r[3];
  for (int i = 0; i < 3; ++i) {
    r[i] = compile(source(i), options, features());
    ASSERT_TRUE(r[i].ok) << r[i].log;
    EXPECT_FALSE(r[i].from_cache);
  }
  EXPECT_FALSE(r[0].from_precompiled_header);
  EXPECT_FALSE(r[1].from_precompiled_header);
  EXPECT_TRUE(r[2].from_precompiled_header);
  EXPECT_EQ(r[2].spirv, r[0].spirv);
  EXPECT_EQ(r[2].log, r[0].log);
  ASSERT_EQ(r[2].kernels.size(), 1u);
  ASSERT_EQ(r[2].kernels[0].args.size(), 2u);
  EXPECT_EQ(r[2].kernels[0].args[0].type_name, r[0].kernels[0].args[0].type_name);
  cache::flush();
  EXPECT_EQ(large_entries().size(), 1u);
  // Another process finds it in the cache: its first compile starts from it.
  EXPECT_TRUE(in_another_process(dir_, *large_entries().begin(), [&](const std::string&) {
    CompileResult c = compile(source(3), options, features());
    return c.ok && c.from_precompiled_header && c.spirv == r[0].spirv;
  }));
}

TEST_F(PrecompiledHeader, NotWhereTheApplicationDefinesANameOfTheHeader) {
  // Without it, the header's own definition comes after the application's (and wins).
  const char* options = "-cl-std=CL3.0 -cl-no-signed-zeros -DCLK_GLOBAL_MEM_FENCE=64";
  CompileResult r[3];
  for (int i = 0; i < 3; ++i) {
    r[i] = compile(source(i), options, features());
    ASSERT_TRUE(r[i].ok) << r[i].log;
    EXPECT_FALSE(r[i].from_precompiled_header) << i;
  }
  EXPECT_EQ(r[2].spirv, r[0].spirv);
}

TEST_F(PrecompiledHeader, OneClangRefusesIsDroppedAndTheBuildSucceeds) {
  // Two headers for two language versions; the second's entry then holds the first's entry
  // (refused before clang sees it: it names another key), or bytes that are no header at all,
  // with or without the second's key (without: refused at once; with: clang cannot load them,
  // and the build goes on without).
  auto make = [&](const char* options) {
    const std::set<std::string> before = large_entries();
    for (int i = 0; i < 2; ++i) EXPECT_TRUE(compile(source(10 + i), options, features()).ok);
    cache::flush();
    std::string made;
    for (const std::string& name : large_entries())
      if (!before.count(name)) made = name;
    return made;
  };
  const char* first_options = "-cl-std=CL1.2 -cl-single-precision-constant";
  const char* second_options = "-cl-std=CL3.0 -cl-single-precision-constant";
  const std::string first = make(first_options), second = make(second_options);
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  std::optional<std::string> first_bytes = cache::read_blob(first);
  ASSERT_TRUE(first_bytes.has_value());
  const std::string garbage = std::string("CPCH") + std::string(4000, '\x5a');
  for (const std::string& replacement : {*first_bytes, garbage, second + garbage,
                                         first_bytes->substr(0, first_bytes->size() / 2)}) {
    cache::write_blob(second, replacement);
    cache::flush();
    EXPECT_TRUE(in_another_process(dir_, second, [&](const std::string& dir) {
      CompileResult c = compile(source(20), second_options, features());
      // Dropped: not used again, and gone from the cache.
      CompileResult again = compile(source(21), second_options, features());
      cache::flush();
      struct stat st{};
      const bool removed = stat((dir + "/" + second).c_str(), &st) != 0;
      return c.ok && !c.from_precompiled_header && c.log.empty() && again.ok &&
             !again.from_precompiled_header && removed;
    }))        << "replacement of " << replacement.size() << " bytes";
  }
}

}  // namespace
}  // namespace vkcl::compiler
