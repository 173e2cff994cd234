// Rewrites LLVM IR that SPIRV-LLVM-Translator 15 would abort on (legalize.cpp).
#pragma once

#include <string>

namespace llvm {
class Module;
}

namespace vkcl::compiler {

// Expands what it can; returns false with |log| naming the rest, so the build fails instead.
bool legalize_for_translator(llvm::Module& module, std::string* log);

}  // namespace vkcl::compiler
