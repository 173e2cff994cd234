// Rewrites LLVM IR that SPIRV-LLVM-Translator 15 would abort on (legalize.cpp).
#pragma once

#include <string>

namespace llvm {
class Module;
class Type;
}

namespace vkcl::compiler {

// Expands what it can; returns false with |log| naming the rest, so the build fails instead.
bool legalize_for_translator(llvm::Module& module, std::string* log);

// Whether |type| is clang's pointer to an opaque OpenCL image struct (opencl.image2d_ro_t...)
// or, with |or_sampler|, to opencl.sampler_t.
bool is_opencl_image(llvm::Type* type, bool or_sampler = false);

}  // namespace vkcl::compiler
