// libFuzzer target for the translator: bytes -> words -> specialize + translate, as the
// frontend does for every program it builds, for a device like lavapipe. Bad input must come
// back as ok == false with a log, never a crash, abort, hang or leak.
#include <cstdint>
#include <cstring>
#include <vector>

#include "vkcl/kernel_to_shader/translate.h"

namespace {

// lavapipe (Mesa 22.3)'s features, as cl_frontend/core/device.cpp turns them into caps; the
// precision-probe results are an exact CPU's.
vkcl::k2s::TargetCaps lavapipe_caps() {
  vkcl::k2s::TargetCaps caps;
  caps.int8 = caps.int16 = caps.float16 = caps.float64 = caps.storage8 = caps.storage16 = true;
  caps.int64_atomics = true;
  caps.float32_atomic_add_global = caps.float32_atomic_add_local = true;
  caps.float32_atomic_min_max_global = caps.float32_atomic_min_max_local = true;
  caps.memory_barriers_stall = true;
  caps.loop_iteration_limit = true;
  caps.subgroup_operations = caps.subgroup_extended_types = true;
  caps.subgroup_features = vkcl::k2s::kSubgroupBasic | vkcl::k2s::kSubgroupVote |
                           vkcl::k2s::kSubgroupArithmetic | vkcl::k2s::kSubgroupBallot |
                           vkcl::k2s::kSubgroupShuffle | vkcl::k2s::kSubgroupShuffleRelative;
  caps.subgroup_size = 8;
  caps.device_clock = caps.subgroup_clock = true;
  caps.preserve_inf_nan32 = caps.preserve_inf_nan64 = true;
  caps.exact_fma = caps.close_sqrt = true;
  caps.exact_float64 = caps.exact_fma64 = caps.exact_sqrt64 = true;
  caps.vulkan_memory_model = true;
  caps.images = caps.storage_image_write_without_format = caps.read_write_images = true;
  return caps;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const vkcl::k2s::TargetCaps caps = lavapipe_caps();
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  vkcl::k2s::spec_constant_sizes(words);
  vkcl::k2s::TranslateResult r = vkcl::k2s::translate(vkcl::k2s::specialize(words, {}), caps);
  // A failure that does not say why is a bug too (the build log would be empty).
  if (!r.ok && r.log.empty()) __builtin_trap();
  return 0;
}
