// Loops LLVM is to unroll: vkcl's compiler keeps loops top-tested (LLVM's loop rotation off,
// compiler.cpp: lavapipe runs rotated loops more slowly), and LLVM fully unrolls only rotated
// loops, so `#pragma unroll` failed ("loop not unrolled") and small counted loops over private
// arrays (a GEMM's register tile) stayed loops over memory. These loops are rotated before
// the optimiser runs, and it unrolls them.
#pragma once

#include <llvm/IR/Module.h>

namespace vkcl::compiler {

// Rotates the loops of |module| that ask to be unrolled (llvm.loop.unroll.enable, .full or
// .count) and those whose trip count is a constant of at most 16.
void rotate_loops_to_unroll(llvm::Module& module);

}  // namespace vkcl::compiler
