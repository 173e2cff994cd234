// A CL device backed by one Vulkan physical device. Everything it reports is derived from
// that device; the logical Vulkan device is created on first use.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "core/object.h"
#include "core/precision_probe.h"
#include "core/result.h"
#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/vk_backend.h"

struct _cl_platform_id;

struct _cl_device_id : vkcl::cl::Object<_cl_device_id, vkcl::cl::ObjectKind::Device> {
  _cl_device_id(_cl_platform_id* platform, const vkcl::vk::DeviceInfo& info);

  _cl_platform_id* platform() const { return platform_; }
  const vkcl::vk::DeviceInfo& vk_info() const { return info_; }
  // The logical Vulkan device (created once, thread-safe).
  vkcl::cl::Result<std::shared_ptr<vkcl::vk::Device>> vk_device() const;

  cl_device_type type() const;
  bool runs_on_cpu() const { return info_.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  // Includes the result of probing the device's Fma (done once, on first use).
  vkcl::k2s::TargetCaps target_caps();
  vkcl::compiler::DeviceFeatures compiler_features() const { return compiler_features(true); }
  // cl_khr_fp64: Vulkan's shaderFloat64 and doubles that pass the precision probe.
  bool fp64() const { return precision().exact_float64; }
  // cl_khr_fp16: Vulkan's shaderFloat16 and halves that pass the precision probe.
  bool fp16() const { return precision().exact_float16; }
  size_t max_work_group_size() const;
  std::array<size_t, 3> max_work_item_sizes() const;
  std::array<uint32_t, 3> max_group_count() const;
  uint64_t local_mem_size() const;
  uint64_t max_mem_alloc_size() const;
  uint64_t global_mem_size() const;
  uint32_t subgroup_size() const;
  // cl_khr_subgroups: Vulkan subgroups in compute with vote, ballot and arithmetic.
  bool has_subgroups() const;
  // CL_DEVICE_IMAGE_SUPPORT: where the Vulkan device backs the minimum image formats, unless
  // VKCL_WITHOUT_FEATURES hides images.
  bool images() const;
  // cl_khr_external_memory: the handle types a buffer can be imported from.
  std::vector<cl_external_memory_handle_type_khr> external_memory_handles() const;
  // Whether launches with local memory zero it first in each work-group (LeftoverLocals):
  // on GPUs, unless VKCL_ZERO_LOCAL_MEMORY says otherwise.
  bool zeroes_local_memory() const;
  // The largest __constant argument buffer kernels read as a uniform buffer
  // (k2s::TargetCaps::constant_buffer_words), 0 where they never do.
  uint32_t constant_buffer_bytes() const;
  // CL_DEVICE_SVM_CAPABILITIES: coarse- and fine-grained buffers where host and kernels see
  // host-visible memory at one address (core/svm.h), else none.
  cl_device_svm_capabilities svm_capabilities() const;
  // read_write images (__opencl_c_read_write_images): OpenCL 3.0's minimum formats for them.
  bool read_write_images() const { return images() && backs_read_write_images_; }
  std::string extensions() const;
  std::vector<std::string> extension_list() const { return extension_list(true); }  // CL_DEVICE_EXTENSIONS
  std::vector<std::string> feature_list() const { return feature_list(true); }  // CL_DEVICE_OPENCL_C_FEATURES

  cl_int get_info(cl_device_info param, size_t size, void* value, size_t* size_ret) const;
  cl_uint max_clock_mhz() const;
  std::string probe_key(const char* probe, const std::string& extra) const;

  // |spirv| (Kernel SPIR-V, specialized) translated for this device: the same module again
  // (a program built twice, the same source in several programs) reuses the translation.
  // With |plain|, as if kernels could not resume (loops only checked): the first attempt of a
  // rerunnable kernel (KernelInterface::rerunnable) on a driver that cuts loops short.
  std::shared_ptr<const vkcl::k2s::TranslateResult> translate(
      const std::vector<uint32_t>& spirv, vkcl::k2s::InputOrigin origin, bool plain = false);

 private:
  // What the device reports before (|probed| false) and after the precision probe decides
  // on doubles and halves.
  std::vector<std::string> extension_list(bool probed) const;
  std::vector<std::string> feature_list(bool probed) const;
  vkcl::compiler::DeviceFeatures compiler_features(bool probed) const;
  vkcl::k2s::TargetCaps unprobed_caps() const;
  // The probe's results (run once, on first use: it creates the Vulkan device).
  const vkcl::cl::PrecisionProbe& precision() const;

  _cl_platform_id* platform_;
  vkcl::vk::DeviceInfo info_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<vkcl::vk::Device> device_;
  mutable std::once_flag precision_probed_;
  mutable std::once_flag image_formats_checked_;
  mutable bool backs_image_formats_ = false;
  mutable bool backs_read_write_images_ = false;
  mutable std::once_flag depth_formats_checked_;  // cl_khr_depth_images, asked at every build
  mutable bool backs_depth_images_ = false;
  mutable std::once_flag svm_checked_;
  mutable cl_device_svm_capabilities svm_ = 0;
  mutable vkcl::cl::PrecisionProbe precision_;
  mutable std::once_flag clock_measured_;
  mutable cl_uint measured_clock_mhz_ = 0;
  // The last translations, newest at the back (a few: modules of one program's rebuilds).
  std::mutex translations_mutex_;
  struct Translation {
    std::vector<uint32_t> spirv;
    vkcl::k2s::TargetCaps caps;  // read again at each build: environment variables change it
    std::shared_ptr<const vkcl::k2s::TranslateResult> result;
  };
  std::vector<Translation> translations_;
};

namespace vkcl::cl {
using Device = _cl_device_id;
// CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: the full profile's minimum (one variable, and vkcl also
// holds a program's variables together to this size).
constexpr size_t kMaxGlobalVariableSize = 64 * 1024;
// The one place VkResult becomes a CL error.
cl_int cl_error_from(VkResult result, cl_int allocation_error = CL_OUT_OF_RESOURCES);
// The status of a command lost with |device| (CL_OUT_OF_RESOURCES, as native drivers give
// for a GPU fault); the first call per device says so on stderr.
cl_int lost_device_status(vk::Device& device);
}  // namespace vkcl::cl
