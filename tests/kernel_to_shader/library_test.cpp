// Library function bodies are parsed when a program first imports them, each alone after a
// prefix of the module (ir/import.h), not all at load: every function of Debian's libclc and
// of vkcl's polyfills imports exactly as from one parse of the whole module.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "ir/import.h"
#include "kernel_to_shader/spirv_text.h"
#include "vkcl/polyfills.h"

namespace vkcl::test {
namespace {

void expect_same_imports(const std::vector<uint32_t>& words, bool no_contraction) {
  std::string error;
  auto lazy = ir::Library::load(words, &error, no_contraction);
  ASSERT_TRUE(lazy) << error;
  auto eager = ir::Library::load(words, &error, no_contraction, /*eager=*/true);
  ASSERT_TRUE(eager) << error;
  std::vector<std::string> names = eager->names();
  std::sort(names.begin(), names.end());
  std::vector<std::string> lazy_names = lazy->names();
  std::sort(lazy_names.begin(), lazy_names.end());
  ASSERT_EQ(names, lazy_names);
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    ir::Module a, b;
    ir::Importer from_lazy(a), from_eager(b);
    std::string lazy_error, eager_error;
    const uint32_t id_a = from_lazy.function(*lazy, name, &lazy_error);
    const uint32_t id_b = from_eager.function(*eager, name, &eager_error);
    ASSERT_EQ(lazy_error, eager_error) << name;
    ASSERT_EQ(id_a, id_b) << name;
    ASSERT_EQ(ir::serialize(a), ir::serialize(b)) << name;
  }
}

TEST(Library, LibclcBodiesParsedAloneImportAsFromTheWholeModule) {
  std::ifstream in(VKCL_LIBCLC_SPIRV, std::ios::binary | std::ios::ate);
  ASSERT_TRUE(in) << VKCL_LIBCLC_SPIRV;
  std::vector<uint32_t> words(size_t(in.tellg()) / 4);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(words.data()), std::streamsize(words.size() * 4));
  ASSERT_TRUE(in);
  expect_same_imports(words, false);
}

TEST(Library, PolyfillBodiesParsedAloneImportAsFromTheWholeModule) {
  std::vector<uint32_t> words(polyfills::kSpirvSize / 4);
  std::memcpy(words.data(), polyfills::kSpirv, words.size() * 4);
  expect_same_imports(words, true);
}

// A body that needs more of the module than the prefix (a switch on a module-scope constant,
// whose width the parser must know) is parsed with the whole module instead.
TEST(Library, BodiesThatCannotBeParsedAloneStillImport) {
  std::string error;
  std::vector<uint32_t> words = assemble(R"(
    OpCapability Addresses
    OpCapability Linkage
    OpCapability Kernel
    OpCapability Int64
    OpMemoryModel Physical64 OpenCL
    OpDecorate %pick LinkageAttributes "pick" Export
    %long = OpTypeInt 64 0
    %fn = OpTypeFunction %long %long
    %three = OpConstant %long 3
    %seven = OpConstant %long 7
    %pick = OpFunction %long None %fn
    %x = OpFunctionParameter %long
    %entry = OpLabel
    OpSelectionMerge %out None
    OpSwitch %three %out 3 %case 0x100000000 %out
    %case = OpLabel
    OpBranch %out
    %out = OpLabel
    %r = OpPhi %long %x %entry %seven %case
    OpReturnValue %r
    OpFunctionEnd
  )", &error);
  ASSERT_FALSE(words.empty()) << error;
  expect_same_imports(words, false);
}

// A module whose functions are cut off is refused at load, not read past its end.
TEST(Library, TruncatedFunctionsAreRefused) {
  std::vector<uint32_t> words(polyfills::kSpirvSize / 4);
  std::memcpy(words.data(), polyfills::kSpirv, words.size() * 4);
  words.resize(words.size() - 3);
  std::string error;
  EXPECT_FALSE(ir::Library::load(words, &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace vkcl::test
