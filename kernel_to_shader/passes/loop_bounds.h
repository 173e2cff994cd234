// How many loop iterations a function can take at most, where its loops say so themselves.
//
// Drivers that cut loops short (TargetCaps::loop_iteration_limit: gallivm's 65535 passes per
// batch) make vkcl count and resume loops, and probe for cuts, at a cost in build time,
// shader size and launches. A kernel whose every loop counts an induction variable from a
// constant to a constant (filter taps, fixed-size tiles, unrolled-by-hand sums) can never
// reach the limit, and needs neither.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/module.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

// The kernels (entry point function ids) that make at most |cap| loop header passes per
// work-item, nested loops multiplied by the passes of the loops around them and called
// functions' passes added: every loop has an induction variable that starts at a constant,
// changes by one operation with a constant on every back edge and is compared with a constant
// in a block every iteration passes. Kernels with group operations or atomics the lowering
// may turn into loops of its own (any but integer atomics on global memory) are never among
// them.
std::set<uint32_t> bounded_kernels(ir::Module& m, uint64_t cap);

// The other kernels whose loops are bounded as above or, in the kernel's own function, by
// values a launch knows: starts, steps and bounds made of constants, the kernel's scalar
// integer arguments and the launch's built-in sizes and ids (`for (uint i = 0; i < n; i++)`,
// grid-stride loops `for (i = get_global_id(0); i < n; i += get_global_size(0))`), with how a
// launch counts their passes (count_loop_passes in translate.h). Loops of the functions
// they call must be bounded by constants, but for those the kernel passes its arguments to.
std::map<uint32_t, std::vector<CountedLoop>> argument_bounded_kernels(ir::Module& m, uint64_t cap);

// Header passes per entry into loop |c| (its start, step and bound terms aside) from |start|
// by |step| towards |bound|, as the device runs it (wrap-around included), or nothing past
// |cap|: the one count behind both the constant bounds above and launches
// (passes/launch_count.cpp).
std::optional<uint64_t> header_passes_from(const CountedLoop& c, uint64_t start, uint64_t step, uint64_t bound,
                                           uint64_t cap);

}  // namespace vkcl::k2s
