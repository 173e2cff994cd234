// widen-small-integers: makes a lowered module run on a device without 8- or 16-bit integers
// (shaderInt8, shaderInt16) or without 8- or 16-bit global memory access
// (storageBuffer8BitAccess, storageBuffer16BitAccess). OpenCL C has char and short on every
// device, so a width the device lacks is carried in 32-bit integers: each such value is kept
// zero-extended, arithmetic that can carry out of the width is masked back, signed operations
// sign-extend their operands first, and global loads and stores of those widths (and of half)
// go through the 32-bit words that hold them, stores that touch part of a word as atomic
// and/or so neighbouring bytes written by other work-items survive. Runs after
// lower-to-shader, which leaves local and private memory in 32-bit words already.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_widen_small_integers_pass();

}  // namespace vkcl::k2s
