// Fault injection for tests (README, "Tests"): failures vkcl must turn into OpenCL errors.
#pragma once

namespace vkcl::vk::detail {

// VKCL_FAIL_OBJECTS=N: every Nth Vulkan object vkcl creates (buffers, images, views, command
// pools and buffers, semaphores, query pools, descriptor pools and sets, shader modules,
// layouts, pipelines) for itself fails as if the driver had run out of host memory (not the
// application's buffers and images: ApplicationAllocation).
bool injected_object_failure();

}  // namespace vkcl::vk::detail
