// vk_backend's own bookkeeping for process exit (exit.cpp).
#pragma once

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk::detail {

// Adds (|alive|) or removes a device or stream: at exit, pending commands are submitted and
// devices waited for before Vulkan goes away.
void track_device(Device* device, bool alive);
void track_stream(CommandStream* stream, bool alive);

}  // namespace vkcl::vk::detail
