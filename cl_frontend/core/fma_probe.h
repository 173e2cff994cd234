// Whether a device's GLSL.std.450 Fma is fused and correctly rounded. Vulkan allows Fma to be
// a multiply and an add; OpenCL's fma must be exact. Devices where it is exact (all GPUs we
// know, llvmpipe on CPUs with FMA) use it directly; the others get libclc's software fma.
#pragma once

#include <memory>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

// Runs one tiny kernel on |device|, translated with exact_fma on, over inputs where a fused
// and an unfused multiply-add differ. False on any failure.
bool probe_exact_fma(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                     const compiler::DeviceFeatures& features);

}  // namespace vkcl::cl
