// copy-byval-arguments: a struct passed by value reaches a function as a pointer parameter
// decorated FuncParamAttr ByVal, which promises the callee a copy of its own (LLVM's byval:
// "a hidden copy of the pointee is made between the caller and the callee"); producers pass
// the caller's own variable there (clang at -O2 does). Each call site copies such an argument
// into a fresh Function variable and passes that instead, unless the argument is already the
// caller's own copy (its ByVal parameter) and this call is its last and only use.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_copy_byval_arguments_pass();

}  // namespace vkcl::k2s
