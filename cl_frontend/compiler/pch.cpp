#include "compiler/pch.h"

#include "compiler/cache.h"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Serialization/ASTReader.h>
#include <clang/Serialization/ASTWriter.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>

namespace vkcl::compiler::pch {

const char* const kMainFile = "vkcl-default-header.cl";
// Absolute: the file exists only in the in-memory file system of use(), which lies over the
// real one.
const char* const kFile = "/vkcl-default-header.pch";

std::string default_header_path() {
  return std::string(VKCL_CLANG_RESOURCE_DIR) + "/include/opencl-c-base.h";
}

namespace {

// Every identifier in clang's default header: the names it defines, tests and declares.
const std::set<std::string>* header_names() {
  static const std::set<std::string>* names = [] () -> const std::set<std::string>* {
    std::ifstream in(default_header_path());
    if (!in) return nullptr;
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    auto* set = new std::set<std::string>;
    for (size_t i = 0; i < text.size();) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (!std::isalpha(c) && c != '_') {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
      set->insert(text.substr(i, end - i));
      i = end;
    }
    return set;
  }();
  return names;
}

// What this process knows of each header (by cache folder and key): made or read, and the
// bytes.
enum class State { Asked, Known, Refused };
struct Entry {
  State state = State::Asked;
  int asks = 0;
  std::shared_ptr<const std::string> bytes;
};
std::mutex g_mutex;
std::map<std::string, Entry> g_headers;

// Writes the AST into memory rather than into a file.
class MakeInMemory : public clang::GeneratePCHAction {
 public:
  explicit MakeInMemory(std::shared_ptr<clang::PCHBuffer> buffer) : buffer_(std::move(buffer)) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    std::string sysroot;
    if (!ComputeASTConsumerArguments(ci, sysroot)) return nullptr;
    return std::make_unique<clang::PCHGenerator>(ci.getPreprocessor(), ci.getModuleCache(), kFile,
                                                 sysroot, buffer_,
                                                 ci.getFrontendOpts().ModuleFileExtensions);
  }

 private:
  std::shared_ptr<clang::PCHBuffer> buffer_;
};

// Sets |ci| up for clang -cc1 |args| on the header's main file, its diagnostics going to
// |sink| (which outlives it); false when clang refuses the arguments.
bool set_up(clang::CompilerInstance& ci, std::vector<std::string> args, llvm::raw_ostream& sink) {
  args.push_back(kMainFile);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  ci.createDiagnostics(new clang::TextDiagnosticPrinter(sink, new clang::DiagnosticOptions()),
                       /*ShouldOwnClient=*/true);
  return clang::CompilerInvocation::CreateFromArgs(ci.getInvocation(), argv, ci.getDiagnostics());
}

std::shared_ptr<const std::string> make(std::vector<std::string> args) {
  for (std::string& a : args)
    if (a == "-emit-llvm-bc") a = "-emit-pch";
  std::string ignored;
  llvm::raw_string_ostream log(ignored);
  clang::CompilerInstance ci;
  if (!set_up(ci, args, log)) return nullptr;
  ci.getPreprocessorOpts().addRemappedFile(kMainFile,
                                           llvm::MemoryBuffer::getMemBufferCopy("", kMainFile).release());
  ci.getPreprocessorOpts().RetainRemappedFileBuffers = false;
  auto buffer = std::make_shared<clang::PCHBuffer>();
  buffer->IsComplete = false;
  MakeInMemory action(buffer);
  if (!ci.ExecuteAction(action) || !buffer->IsComplete || buffer->Data.empty()) return nullptr;
  return std::make_shared<const std::string>(buffer->Data.begin(), buffer->Data.end());
}

// Lays |bytes| over the real file system as kFile, for |ci|'s file manager.
void mount(clang::CompilerInstance& ci, const std::shared_ptr<const std::string>& bytes) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  memory->addFile(kFile, 0, llvm::MemoryBuffer::getMemBuffer(*bytes, kFile, false));
  auto files = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  files->pushOverlay(memory);
  ci.createFileManager(files);
}

// Whether clang takes |bytes| as the header for |args|, asked without diagnostics: clang 15
// crashes formatting the one it gives for a header made with other language options.
bool acceptable(const std::vector<std::string>& args, const std::shared_ptr<const std::string>& bytes) {
  std::string ignored;
  llvm::raw_string_ostream log(ignored);
  clang::CompilerInstance ci;
  if (!set_up(ci, args, log)) return false;
  mount(ci, bytes);
  return clang::ASTReader::isAcceptableASTFile(kFile, ci.getFileManager(), ci.getPCHContainerReader(),
                                               ci.getLangOpts(), ci.getTargetOpts(),
                                               ci.getPreprocessorOpts(), "",
                                               /*RequireStrictOptionMatches=*/true);
}

// The arguments, the clang library (its version and its file: Debian rebuilds it under the
// same version) and the header it reads: a header clang was changed since is another key, never
// one clang refuses (its diagnostics for that are unsafe too). So a header read back whole from
// the cache under its own key is taken without asking clang again (acceptable() was a tenth of
// a cold process's first build); it was asked when the header was made.
std::string key_of(const std::vector<std::string>& args) {
  static const std::string clang_library =
      cache::library_identity(reinterpret_cast<const void*>(&clang::getClangFullVersion));
  std::vector<std::string> parts = args;
  parts.push_back("precompiled default header");
  parts.push_back(clang::getClangFullVersion());
  parts.push_back(clang_library);
  struct stat st{};
  if (stat(default_header_path().c_str(), &st) == 0)
    parts.push_back(std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                    std::to_string(st.st_mtim.tv_nsec));
  return cache::key(parts);
}

}  // namespace

bool allowed(const std::vector<std::string>& names) {
  if (names.empty()) return true;
  const std::set<std::string>* known = header_names();
  if (!known) return false;
  for (const std::string& name : names)
    if (known->count(name)) return false;
  return true;
}

std::shared_ptr<const std::string> find(const std::vector<std::string>& args) {
  const std::string k = key_of(args);
  std::lock_guard<std::mutex> lock(g_mutex);
  Entry& e = g_headers[cache::folder() + "\n" + k];
  if (e.state == State::Known) return e.bytes;
  if (e.state == State::Refused) return nullptr;
  if (std::optional<std::string> kept = cache::read_blob(k)) {
    // Kept under its key, after the key: an entry holding another key's header is refused.
    if (kept->compare(0, k.size(), k) != 0) {
      e.state = State::Refused;
      cache::remove_blob(k);
      return nullptr;
    }
    e.state = State::Known;
    e.bytes = std::make_shared<const std::string>(kept->substr(k.size()));
    return e.bytes;
  }
  if (++e.asks < 2) return nullptr;
  e.bytes = make(args);
  e.state = e.bytes && acceptable(args, e.bytes) ? State::Known : State::Refused;
  if (e.state == State::Known) cache::write_blob(k, k + *e.bytes);
  return nullptr;  // this build has read the header once already
}

void discard(const std::vector<std::string>& args) {
  const std::string k = key_of(args);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_headers[cache::folder() + "\n" + k] = Entry{State::Refused, 0, nullptr};
  cache::remove_blob(k);
}

void use(clang::CompilerInstance& ci, const std::shared_ptr<const std::string>& bytes) {
  mount(ci, bytes);
  ci.getPreprocessorOpts().ImplicitPCHInclude = kFile;
}

}  // namespace vkcl::compiler::pch
