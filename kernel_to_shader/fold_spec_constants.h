// OpSpecConstantOp folding: once specialization constants have their final values, every
// OpSpecConstantOp over scalars and vectors of integers, floats (32/64-bit) and booleans is
// replaced by the plain constant it computes.
#pragma once

#include "ir/module.h"

namespace vkcl::k2s {

// Folds the OpSpecConstantOp instructions of |m| that it can evaluate (in module order, so an
// operation may use the result of an earlier one). Those it cannot (pointer operations,
// half-precision, struct or array operands) stay, and the translator rejects them by name.
void fold_spec_constant_ops(ir::Module& m);

}  // namespace vkcl::k2s
