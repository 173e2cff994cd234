// How many loop iterations a function can take at most, where its loops say so themselves.
//
// Drivers that cut loops short (TargetCaps::loop_iteration_limit: gallivm's 65535 passes per
// batch) make vkcl count and resume loops, and probe for cuts, at a cost in build time,
// shader size and launches. A kernel whose every loop counts an induction variable from a
// constant to a constant (filter taps, fixed-size tiles, unrolled-by-hand sums) can never
// reach the limit, and needs neither.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/module.h"

namespace vkcl::k2s {

// The most loop header passes one call of |f| makes, nested loops multiplied by the passes of
// the loops around them, when every loop of |f| has an induction variable that starts at a
// constant, moves by a constant on every back edge and is compared with a constant in a
// block every iteration passes; the passes of the functions it calls count too. nullopt
// otherwise, when the count passes |cap|, or where the lowering adds loops of its own
// (atomics, group operations).
std::optional<uint64_t> bounded_loop_passes(ir::Module& m, ir::Function& f, uint64_t cap);

}  // namespace vkcl::k2s
