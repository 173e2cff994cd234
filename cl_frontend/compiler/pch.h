// A precompiled form of clang's default OpenCL header (opencl-c-base.h). Every build includes
// it, and reading it took an eighth of a small kernel's build: 450 preprocessor directives
// and 70 declarations before the program's first line. The precompiled form is kept in the
// build cache's folder, one per set of arguments that change what the header means (device
// extensions and features, OpenCL C version, optimisation and math options), and made when a
// process builds a second program with the same set.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}

namespace vkcl::compiler::pch {

// Whether a build with the application's macros |names| (-D, -U) may start from the
// precompiled header: not when one of them is a name the header defines or tests, since the
// application's definition would then come after the header instead of before it.
bool allowed(const std::vector<std::string>& names);

// The precompiled header for the clang -cc1 arguments |args| (a build's, without the
// application's macros and include paths, the features header and the input file), or null
// when there is none yet: it is made by the second call that asks in a process (and kept in
// the cache for others). Callers hold the compiler lock.
std::shared_ptr<const std::string> find(const std::vector<std::string>& args);

// Makes |ci| start from |header| (before it runs).
void use(clang::CompilerInstance& ci, const std::shared_ptr<const std::string>& header);

// The header for |args| failed to load (clang was updated since it was made): not used again
// by this process, and removed from the cache.
void discard(const std::vector<std::string>& args);

// clang's default header, which the precompiled one stands for.
std::string default_header_path();

// The names a build that starts from the header sees: the header's own (empty) main file and
// the header itself, neither of them on disk.
extern const char* const kMainFile;
extern const char* const kFile;

}  // namespace vkcl::compiler::pch
