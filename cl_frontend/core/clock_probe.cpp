#include "core/clock_probe.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/probe_kernel.h"

namespace vkcl::cl {

namespace {

// Each work-item runs a chain of 16 x n[0] dependent multiply-adds between two reads of the
// sub-group clock and writes both readings into the next free slot (n[1] counts the slots
// taken): a run's 64 work-items take slots 64 k to 64 k + 63.
const char* kSource = R"(
__kernel void probe(__global ulong* readings, __global uint* n) {
  uint x = (uint)get_global_id(0);
  const uint steps = n[0];
  ulong start = clock_read_sub_group();
  for (uint outer = 0; outer < 16; ++outer)
    for (uint i = 0; i < steps; ++i) x = x * 1664525u + 1013904223u;
  ulong end = clock_read_sub_group();
  uint slot = atomic_inc(&n[1]);
  readings[3 * slot] = start;
  readings[3 * slot + 1] = end;
  readings[3 * slot + 2] = x;
})";

}  // namespace

uint32_t measure_clock_mhz(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                           const compiler::DeviceFeatures& features) {
  const vk::DeviceInfo& info = device->info();
  if (!info.shader_subgroup_clock || !info.timestamp_valid_bits) return 0;
  // The inner chains stay below the 65,535 iterations after which lavapipe stops a loop, so
  // the probe runs as it is, without the resuming form.
  caps.resumable_loops = caps.resumable_barrier_loops = false;
  // 640,000 steps a work-item: ~1.5 ms at 2 GHz, so that what a run pays besides (its start,
  // the timestamps) is under 1% of it; 16 runs back to back, since a GPU raises its clock
  // under load and the highest rate is the one asked for.
  constexpr uint32_t kItems = 64, kRuns = 16, kSteps = 40000;
  std::vector<std::vector<uint8_t>> data = {std::vector<uint8_t>(kItems * kRuns * 24), std::vector<uint8_t>(8, 0)};
  std::memcpy(data[1].data(), &kSteps, 4);
  std::vector<uint64_t> ns;
  if (!run_probe(device, caps, features, kSource, kItems, &data, kRuns, &ns) || ns.size() != kRuns) return 0;
  std::vector<uint64_t> readings(kItems * kRuns * 3);
  std::memcpy(readings.data(), data[0].data(), data[0].size());
  double best = 0;
  for (uint32_t run = 0; run < kRuns; ++run) {
    // From the first work-item's start to the last one's end: the run, whichever of its
    // sub-groups the device ran when (a CPU runs them one after another).
    uint64_t first = UINT64_MAX, last = 0;
    for (uint32_t i = 0; i < kItems; ++i) {
      const uint64_t* r = &readings[3 * (size_t(run) * kItems + i)];
      first = std::min(first, r[0]);
      last = std::max(last, r[1]);
    }
    if (last > first && ns[run] > 0) best = std::max(best, double(last - first) * 1e3 / double(ns[run]));
  }
  // A clock below 100 MHz is a timer that is not the cores' (no GPU core runs so slowly):
  // "unknown" rather than a wrong rate.
  return best < 100 ? 0 : uint32_t(best + 0.5);
}

}  // namespace vkcl::cl
