// CL_DEVICE_MAX_CLOCK_FREQUENCY of a device Vulkan gives no clock for (every GPU): the rate of
// its sub-group clock (VK_KHR_shader_clock), which counts the shader core's cycles, measured
// against the device's timestamps.
#pragma once

#include <cstdint>
#include <memory>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// MHz: the highest rate seen over 16 runs of ~1.5 ms (a GPU raises its clock under load); 0
// where the device has no sub-group clock or timestamps, a run failed, or the clock is too slow
// to be the cores' (under 100 MHz).
uint32_t measure_clock_mhz(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                           const compiler::DeviceFeatures& features);

}  // namespace vkcl::cl
