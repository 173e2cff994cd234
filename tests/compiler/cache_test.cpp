// The on-disk compile cache (compiler/cache.h): a program compiled again comes from the cache
// with the same SPIR-V, log and argument information; a changed #included file, a corrupt
// entry, different options or VKCL_CACHE=0 make it compile.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>

#include "compiler/cache.h"
#include "compiler/compiler.h"

namespace vkcl::compiler {
namespace {

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

class CompileCache : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/vkcl-cache-test.XXXXXX";
    ASSERT_NE(mkdtemp(path), nullptr);
    dir_ = path;
    setenv("VKCL_CACHE_DIR", dir_.c_str(), 1);
    unsetenv("VKCL_CACHE");
  }
  void TearDown() override {
    cache::flush();
    for (const std::string& name : entries(dir_)) std::remove((dir_ + "/" + name).c_str());
    std::remove((dir_ + "/helper.h").c_str());
    std::remove((dir_ + "/.size").c_str());
    rmdir(dir_.c_str());
    unsetenv("VKCL_CACHE_DIR");
  }
  std::string dir_;
};

DeviceFeatures features() {
  DeviceFeatures f;
  f.extensions = {"cl_khr_global_int32_base_atomics"};
  return f;
}

const char* kSource =
    "__kernel void k(__global int* o, __local float* l, const int n) {\n"
    "  n + 1;\n"  // a warning (expression result unused), kept in the log
    "  o[get_global_id(0)] = n;\n"
    "}\n";

TEST_F(CompileCache, SecondCompileComesFromTheCacheUnchanged) {
  CompileResult first = compile(kSource, "-DY=2", features());
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.from_cache);
  cache::flush();
  ASSERT_EQ(entries(dir_).size(), 1u);
  CompileResult again = compile(kSource, "-DY=2", features());
  ASSERT_TRUE(again.ok);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.spirv, first.spirv);
  EXPECT_EQ(again.log, first.log);
  EXPECT_NE(again.log.find("unused"), std::string::npos) << again.log;
  EXPECT_EQ(again.language_version, first.language_version);
  ASSERT_EQ(again.kernels.size(), 1u);
  ASSERT_EQ(again.kernels[0].args.size(), 3u);
  EXPECT_EQ(again.kernels[0].args[1].name, "l");
  EXPECT_EQ(again.kernels[0].args[1].address_qualifier, first.kernels[0].args[1].address_qualifier);
  EXPECT_EQ(again.kernels[0].args[2].type_qualifier, first.kernels[0].args[2].type_qualifier);
  // Other options are another program.
  CompileResult other = compile(kSource, "-DY=2 -DX=1", features());
  EXPECT_FALSE(other.from_cache);
  cache::flush();
  EXPECT_EQ(entries(dir_).size(), 2u);
}

TEST_F(CompileCache, AChangedIncludedFileIsCompiledAgain) {
  const std::string header = dir_ + "/helper.h";
  std::ofstream(header) << "#define VALUE 1\n";
  const std::string source = "#include \"helper.h\"\n__kernel void k(__global int* o) { o[0] = VALUE; }\n";
  const std::string options = "-I " + dir_;
  ASSERT_TRUE(compile(source, options, features()).ok);
  EXPECT_TRUE(compile(source, options, features()).from_cache);
  std::ofstream(header) << "#define VALUE 2 + 5\n";
  CompileResult changed = compile(source, options, features());
  ASSERT_TRUE(changed.ok) << changed.log;
  EXPECT_FALSE(changed.from_cache);
  EXPECT_TRUE(compile(source, options, features()).from_cache);
  // The same size, at once: the file is read again, not taken for the one hashed before.
  std::ofstream(header) << "#define VALUE 3 + 5\n";
  CompileResult same_size = compile(source, options, features());
  ASSERT_TRUE(same_size.ok) << same_size.log;
  EXPECT_FALSE(same_size.from_cache);
  EXPECT_NE(same_size.spirv, changed.spirv);
}

TEST_F(CompileCache, ACorruptEntryIsReplaced) {
  ASSERT_TRUE(compile(kSource, "", features()).ok);
  cache::flush();
  ASSERT_EQ(entries(dir_).size(), 1u);
  const std::string entry = dir_ + "/" + entries(dir_)[0];
  std::string bytes;
  {
    std::ifstream in(entry, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (size_t cut : {bytes.size() / 2, size_t(10), size_t(0)}) {
    std::string broken = bytes.substr(0, cut);
    if (cut == bytes.size() / 2) broken[cut - 1] ^= 0x55;  // a flipped byte, then truncations
    cache::flush();  // the entry written again by the last round is on disk
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << broken;
    CompileResult r = compile(kSource, "", features());
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.from_cache) << "cut at " << cut;
    EXPECT_TRUE(compile(kSource, "", features()).from_cache);
  }
}

TEST_F(CompileCache, BlobsComeBackWholeOrNotAtAll) {
  const std::string key = cache::key({"blob test"});
  EXPECT_FALSE(cache::read_blob(key));
  cache::write_blob(key, std::string("exact_fma=1\n\0binary", 20));
  std::optional<std::string> back = cache::read_blob(key);  // on its way to the disk
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, std::string("exact_fma=1\n\0binary", 20));
  cache::flush();
  back = cache::read_blob(key);  // from the disk
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, std::string("exact_fma=1\n\0binary", 20));
  std::string bytes;
  {
    std::ifstream in(dir_ + "/" + key, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes.back() ^= 1;
  std::ofstream(dir_ + "/" + key, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_FALSE(cache::read_blob(key));
  EXPECT_NE(cache::key({"blob test"}), cache::key({"blob", " test"}));
  // An intact entry whose counts claim more than it holds is a miss, not an allocation.
  const std::string crafted = cache::key({"crafted"});
  std::string payload(16, '\0');             // no files, version, flags, empty log
  payload += std::string("\xf0\xff\xff\xff", 4);  // 4 billion SPIR-V words
  cache::write_blob(crafted, payload);
  EXPECT_FALSE(cache::lookup(crafted));
}

// Entries are written by a thread of their own: a process that exits at once still leaves
// them on disk, and a child forked while some are on their way neither hangs nor loses its own.
TEST_F(CompileCache, EntriesOnTheirWayReachTheDiskAtExitAndAcrossForks) {
  const std::string parents = cache::key({"parent's"}), childs = cache::key({"child's"});
  cache::write_blob(parents, std::string(200000, 'p'));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a hang ends the child, and the check below fails
    cache::write_blob(childs, std::string(64 << 20, 'c'));
    std::exit(0);  // at once: the entry is still on its way
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child hung or crashed";
  std::ifstream written(dir_ + "/" + childs, std::ios::binary | std::ios::ate);
  ASSERT_TRUE(written) << "the child's entry did not reach the disk";
  EXPECT_EQ(size_t(written.tellg()), (size_t(64) << 20) + 16);
  cache::flush();
  EXPECT_EQ(cache::read_blob(parents), std::string(200000, 'p'));
}

// Over VKCL_CACHE_MAX_MB, the least recently used entries go (a read counts as a use), when a
// write takes the folder's tally past the limit.
TEST_F(CompileCache, TheFolderStaysUnderItsLimit) {
  setenv("VKCL_CACHE_MAX_MB", "1", 1);
  const std::string big(300 * 1024, 'x');  // four of these pass 1 MiB
  const std::string first = cache::key({"big", "0"});
  cache::write_blob(first, big);
  cache::flush();
  for (int i = 1; i < 3; ++i) {
    usleep(20000);  // distinct modification times
    cache::write_blob(cache::key({"big", std::to_string(i)}), big);
    cache::flush();
  }
  usleep(20000);
  ASSERT_TRUE(cache::read_blob(first));  // now the most recently used
  usleep(20000);
  cache::write_blob(cache::key({"big", "3"}), big);  // 1.2 MiB: down to 3/4 MiB
  unsetenv("VKCL_CACHE_MAX_MB");  // (the limit is the writer's when it handed the entry over)
  cache::flush();
  size_t total = 0;
  for (const std::string& name : entries(dir_)) {
    std::ifstream in(dir_ + "/" + name, std::ios::binary | std::ios::ate);
    total += size_t(in.tellg());
  }
  EXPECT_LE(total, size_t(768) << 10);
  EXPECT_TRUE(cache::read_blob(first)) << "the entry read last was removed";
  EXPECT_FALSE(cache::read_blob(cache::key({"big", "1"}))) << "the least recently used entry was kept";
  EXPECT_TRUE(cache::read_blob(cache::key({"big", "3"}))) << "the entry just written was removed";
}

TEST_F(CompileCache, FailuresAreNotKeptAndTheCacheCanBeTurnedOff) {
  EXPECT_FALSE(compile("__kernel void k( { }", "", features()).ok);
  EXPECT_TRUE(entries(dir_).empty());
  setenv("VKCL_CACHE", "0", 1);
  EXPECT_TRUE(cache::folder().empty());
  ASSERT_TRUE(compile(kSource, "", features()).ok);
  EXPECT_FALSE(compile(kSource, "", features()).from_cache);
  EXPECT_TRUE(entries(dir_).empty());
  unsetenv("VKCL_CACHE");
}

}  // namespace
}  // namespace vkcl::compiler
