// Small OpenCL C kernels that vkcl runs on a device for itself (the precision and clock probes),
// straight on the Vulkan device: no context, queue or program objects.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// Compiles |source| (kernel "probe"), translates it with |caps| and runs it over |items|
// work-items (a multiple of 64) with each buffer of |data| as one pointer argument, reading
// them back. The dispatch runs |repeats| times, one after the other, on the same buffers; where
// |device_ns| is given, it gets each run's time on the device (between timestamps written
// around it). False on any failure.
bool run_probe(const std::shared_ptr<vk::Device>& device, const k2s::TargetCaps& caps,
               const compiler::DeviceFeatures& features, const char* source, uint32_t items,
               std::vector<std::vector<uint8_t>>* data, uint32_t repeats = 1,
               std::vector<uint64_t>* device_ns = nullptr);

// Vulkan failures (allocation, submission) of the probes run on this thread since the last
// reset: a probe that could not run says nothing about the device.
void reset_failed_probe_runs();
int failed_probe_runs();

}  // namespace vkcl::cl
