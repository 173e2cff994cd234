#include "core/device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <thread>

#include "compiler/cache.h"
#include "core/checked_launch.h"
#include "core/clock_probe.h"
#include "core/image_format.h"
#include "core/info.h"
#include "core/precision_probe.h"
#include "core/platform.h"
#include "core/printf.h"
#include "core/spirv_queries.h"
#include "core/svm.h"

namespace vkcl::cl {

cl_int cl_error_from(VkResult result, cl_int allocation_error) {
  switch (result) {
    case VK_SUCCESS: return CL_SUCCESS;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return CL_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return allocation_error;
    default: return CL_OUT_OF_RESOURCES;
  }
}

cl_int lost_device_status(vk::Device& device) {
  if (device.first_to_report_loss()) {
    std::fprintf(stderr,
                 "vkcl: the Vulkan device %s was lost (VK_ERROR_DEVICE_LOST): the commands that "
                 "had not completed fail with CL_OUT_OF_RESOURCES, and so does what is enqueued "
                 "in its contexts from now on; contexts made from now on get a new device\n",
                 device.info().properties.deviceName);
    std::fflush(stderr);
  }
  return CL_OUT_OF_RESOURCES;
}

}  // namespace vkcl::cl

using namespace vkcl;

_cl_device_id::_cl_device_id(_cl_platform_id* platform, const vk::DeviceInfo& info)
    : platform_(platform), info_(info) {}

cl::Result<std::shared_ptr<vk::Device>> _cl_device_id::vk_device() const {
  std::lock_guard<std::mutex> lock(mutex_);
  // After a device loss, a new Vulkan device for the contexts made from now on (those made
  // before keep theirs: _cl_context::vk_device).
  if (device_ && device_->lost()) device_.reset();
  if (!device_) {
    VkResult r = vk::Device::create(info_, &device_);
    if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  }
  return device_;
}

// VKCL_DEVICE_TYPE=gpu|cpu|accelerator reports every device as that type: programs that only
// look for GPUs (x264's lookahead, for one) can then be run on lavapipe to test them. Only the
// reported type changes; what vkcl decides from the hardware uses runs_on_cpu().
cl_device_type _cl_device_id::type() const {
  if (const char* v = std::getenv("VKCL_DEVICE_TYPE")) {
    if (std::strcmp(v, "gpu") == 0) return CL_DEVICE_TYPE_GPU;
    if (std::strcmp(v, "cpu") == 0) return CL_DEVICE_TYPE_CPU;
    if (std::strcmp(v, "accelerator") == 0) return CL_DEVICE_TYPE_ACCELERATOR;
  }
  switch (info_.properties.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return CL_DEVICE_TYPE_CPU;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return CL_DEVICE_TYPE_GPU;
    default: return CL_DEVICE_TYPE_ACCELERATOR;
  }
}

k2s::TargetCaps _cl_device_id::unprobed_caps() const {
  k2s::TargetCaps caps;
  caps.int8 = info_.shader_int8;
  caps.int16 = info_.features.shaderInt16;
  caps.int64 = info_.features.shaderInt64;
  caps.float16 = info_.shader_float16;
  caps.float64 = info_.features.shaderFloat64;
  caps.storage8 = info_.storage_buffer_8bit;
  caps.storage16 = info_.storage_buffer_16bit;
  caps.int64_atomics = info_.shader_buffer_int64_atomics && info_.shader_shared_int64_atomics;
  caps.memory_barriers_stall = info_.driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  caps.float32_atomic_add_global = info_.float32_atomic_add_buffer;
  caps.float32_atomic_add_local = info_.float32_atomic_add_shared;
  caps.float32_atomic_min_max_global = info_.float32_atomic_min_max_buffer;
  caps.float32_atomic_min_max_local = info_.float32_atomic_min_max_shared;
  caps.subgroups = info_.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  caps.subgroup_operations = has_subgroups();
  if (caps.subgroups) caps.subgroup_features = info_.subgroup.supportedOperations;
  caps.subgroup_extended_types = caps.subgroups && info_.subgroup_extended_types;
  caps.device_clock = info_.shader_device_clock;
  caps.subgroup_clock = info_.shader_subgroup_clock;
  caps.preserve_inf_nan32 = info_.float_controls.shaderSignedZeroInfNanPreserveFloat32;
  caps.preserve_inf_nan64 = info_.float_controls.shaderSignedZeroInfNanPreserveFloat64;
  caps.max_push_constant_size = info_.properties.limits.maxPushConstantsSize;
  caps.constant_buffer_words = constant_buffer_bytes() / 4;
  caps.max_constant_buffers = std::min<uint32_t>(info_.properties.limits.maxPerStageDescriptorUniformBuffers, 8);
  caps.vulkan_memory_model = info_.vulkan_memory_model;
  caps.max_work_group_size = uint32_t(max_work_group_size());
  if (has_subgroups()) caps.subgroup_size = subgroup_size();
  caps.images = images();
  caps.storage_image_write_without_format = info_.features.shaderStorageImageWriteWithoutFormat;
  caps.read_write_images = read_write_images();
  return caps;
}

// The build cache key of what |probe| found on this device: keyed by the driver's build (its
// pipeline cache UUID and version), the device, and |extra|.
std::string _cl_device_id::probe_key(const char* probe, const std::string& extra) const {
  const VkPhysicalDeviceProperties& p = info_.properties;
  return compiler::cache::key(
      {probe, p.deviceName, std::string(reinterpret_cast<const char*>(p.pipelineCacheUUID), VK_UUID_SIZE),
       std::to_string(p.driverVersion), std::to_string(p.vendorID), std::to_string(p.deviceID), extra});
}

const cl::PrecisionProbe& _cl_device_id::precision() const {
  std::call_once(precision_probed_, [&] {
    // What the probe found is kept in the build cache, keyed by the driver's build (its
    // pipeline cache UUID and version) and what vkcl asks of it: it takes ~70 ms on lavapipe,
    // most of a program's first build.
    const char* hidden = std::getenv("VKCL_WITHOUT_FEATURES");
    std::string key = probe_key("precision probe", hidden ? hidden : "");
    // VKCL_PROBE_LOG=1 wants to see the probe run.
    std::optional<std::string> kept = std::getenv("VKCL_PROBE_LOG") ? std::nullopt : compiler::cache::read_blob(key);
    if (kept && cl::parse_probe(*kept, &precision_)) return;
    if (auto device = vk_device()) {
      precision_ = cl::probe_precision(*device, unprobed_caps(), compiler_features(false));
      // A probe that could not run says nothing about the device: not kept.
      if (precision_.complete) compiler::cache::write_blob(key, cl::describe_probe(precision_));
    }
  });
  return precision_;
}

std::shared_ptr<const k2s::TranslateResult> _cl_device_id::translate(const std::vector<uint32_t>& spirv,
                                                                     k2s::InputOrigin origin, bool plain) {
  constexpr size_t kKept = 16;
  k2s::TargetCaps caps = target_caps();
  if (plain) caps.resumable_loops = caps.resumable_barrier_loops = false;
  {
    std::lock_guard<std::mutex> lock(translations_mutex_);
    for (auto it = translations_.begin(); it != translations_.end(); ++it)
      if (it->spirv == spirv && it->caps == caps) {
        Translation found = std::move(*it);
        translations_.erase(it);
        translations_.push_back(std::move(found));
        return translations_.back().result;
      }
  }
  // Then the build cache on disk (a translation takes 1 ms for a 4-line kernel, 15 ms for a
  // tiled matrix product with barriers on lavapipe).
  const std::string key = compiler::cache::key(
      {"translation", std::string(reinterpret_cast<const char*>(spirv.data()), spirv.size() * 4),
       k2s::describe_caps(caps)});
  auto kept = std::make_shared<k2s::TranslateResult>();
  std::optional<std::string> blob = compiler::cache::read_blob(key);
  std::shared_ptr<const k2s::TranslateResult> result;
  if (blob && k2s::deserialize(*blob, kept.get()) && kept->ok) {
    result = std::move(kept);
  } else {
    result = std::make_shared<const k2s::TranslateResult>(k2s::translate(spirv, caps, origin));
    if (!result->ok) return result;  // failures are cheap to repeat and keep their log fresh
    compiler::cache::write_blob(key, k2s::serialize(*result));
  }
  std::lock_guard<std::mutex> lock(translations_mutex_);
  translations_.push_back({spirv, caps, result});
  if (translations_.size() > kKept) translations_.erase(translations_.begin());
  return result;
}

k2s::TargetCaps _cl_device_id::target_caps() {
  k2s::TargetCaps caps = unprobed_caps();
  caps.exact_fma = precision().exact_fma;
  caps.close_sqrt = precision().close_sqrt;
  caps.full_range_divide = precision().full_range_divide;
  caps.exact_float64 = precision().exact_float64;
  caps.exact_fma64 = precision().exact_fma64;
  caps.exact_sqrt64 = precision().exact_sqrt64;
  caps.int8 = caps.int8 && precision().exact_int8;
  caps.int16 = caps.int16 && precision().exact_int16;
  // VKCL_ASSUME_DRIVER_BUGS=half_round_trip takes the work-around on any driver, so that it
  // is tested where the bug is not.
  const char* bugs = std::getenv("VKCL_ASSUME_DRIVER_BUGS");
  caps.widen_half_from_bits = precision().half_round_trip_folded ||
                              (bugs && std::string(bugs).find("half_round_trip") != std::string::npos);
  // Found with the conformance-style image tests on an H100 (580): no probe yet.
  // VKCL_ASSUME_DRIVER_BUGS=packed_unorm takes the work-around on any driver.
  caps.snap_packed_unorm = info_.driver.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY ||
                           (bugs && std::string(bugs).find("packed_unorm") != std::string::npos);
  // Only programs' kernels carry the loop limit probe: the precision probe's kernels have
  // no long loops and no status word to write.
  caps.loop_iteration_limit = info_.driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  // VKCL_RESUMABLE_LOOPS=0: such kernels do not resume (their loops are only checked).
  const char* resumable = std::getenv("VKCL_RESUMABLE_LOOPS");
  caps.resumable_loops = !resumable || std::string(resumable) != "0";
  caps.resumable_barrier_loops = caps.resumable_loops;
  caps.checked_memory = cl::checked_mode();
  return caps;
}

// cl_ext_float_atomics (the system headers may predate it).
#ifndef CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT
typedef cl_bitfield cl_device_fp_atomic_capabilities_ext;
#define CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT (1 << 0)
#define CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT (1 << 1)
#define CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT (1 << 2)
#define CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT (1 << 16)
#define CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT (1 << 17)
#define CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT (1 << 18)
#define CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT 0x4231
#define CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT 0x4232
#define CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT 0x4233
#endif

// cl_khr_spirv_queries (newer than Debian's headers).
#ifndef CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR
#define CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR 0x12B9
#define CL_DEVICE_SPIRV_EXTENSIONS_KHR 0x12BA
#define CL_DEVICE_SPIRV_CAPABILITIES_KHR 0x12BB
#endif

// cl_khr_kernel_clock (newer than Debian's headers).
#ifndef CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR
typedef cl_bitfield cl_device_kernel_clock_capabilities_khr;
#define CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR 0x1076
#define CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR (1 << 0)
#define CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR (1 << 1)
#define CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR (1 << 2)
#endif

// 32-bit float atomic add and min/max are Vulkan's own where it has them and a
// compare-exchange loop on the bits elsewhere (lower_atomics.cpp), so every device has them.
static const char* kExtensions[] = {"cl_ext_float_atomics",
    "cl_khr_byte_addressable_store",      "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics", "cl_khr_il_program",
    // SPIR-V extensions of the environment spec's chapter 5 that change nothing Vulkan sees:
    // wrap flags and expect/assume hints are dropped, linkonce_odr is a linker matter.
    "cl_khr_spirv_no_integer_wrap_decoration", "cl_khr_spirv_linkonce_odr",
    "cl_khr_expect_assume",
    // OpenCL.DebugInfo.100 and NonSemantic.* instructions are dropped when a module is read.
    "cl_khr_spirv_extended_debug_info",
    // What modules may use, by instruction set, extension and capability (spirv_queries.cpp).
    "cl_khr_spirv_queries",
    // Bit-field instructions and 8-bit dot products are lowered to 32-bit instructions and
    // plain arithmetic (lower_integer_ext.cpp), which every Vulkan device has.
    "cl_khr_extended_bit_ops", "cl_khr_integer_dot_product",
    // The multiplying, bitwise and logical work-group collectives, built like the others
    // from barriers and local memory (lower_group.cpp).
    "cl_khr_work_group_uniform_arithmetic",
    // The local size a launch without one would get (api/kernel.cpp).
    "cl_khr_suggested_local_work_size",
    // Recorded commands run as one queue command (core/command_buffer.h).
    "cl_khr_command_buffer",
    // Queue hints (api/queue.cpp): priorities choose a Vulkan queue of that priority where
    // the device has one per level; throttling is accepted and has no effect.
    "cl_khr_priority_hints", "cl_khr_throttle_hints"};

// OpenCL C 3.0 features every device has: work-group functions are built from barriers and
// local memory; program-scope variables live in a per-program buffer of device memory;
// generic pointers are tagged 64-bit addresses (DESIGN.md, pointer model).
static const char* kFeatures[] = {"__opencl_c_work_group_collective_functions",
                                  "__opencl_c_program_scope_global_variables",
                                  "__opencl_c_generic_address_space",
                                  // atomics at device scope are Vulkan's Device-scope
                                  // atomics on device addresses
                                  "__opencl_c_atomic_scope_device",
                                  "__opencl_c_atomic_order_acq_rel",
                                  "__opencl_c_atomic_order_seq_cst",
                                  "__opencl_c_ext_fp32_global_atomic_add",
                                  "__opencl_c_ext_fp32_local_atomic_add",
                                  "__opencl_c_ext_fp32_global_atomic_min_max",
                                  "__opencl_c_ext_fp32_local_atomic_min_max",
                                  "__opencl_c_integer_dot_product_input_4x8bit",
                                  "__opencl_c_integer_dot_product_input_4x8bit_packed"};

std::vector<cl_external_memory_handle_type_khr> _cl_device_id::external_memory_handles() const {
  std::vector<cl_external_memory_handle_type_khr> v;
  if (info_.importable_buffer_handles & VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)
    v.push_back(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR);
  if (info_.importable_buffer_handles & VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
    v.push_back(CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR);
  return v;
}

std::vector<std::string> _cl_device_id::extension_list(bool probed) const {
  // Not cl_khr_subgroups: the extension requires independent forward progress of
  // sub-groups, which Vulkan does not promise (lavapipe runs a work-group's subgroups in
  // turn); OpenCL 3.0's __opencl_c_subgroups feature does not.
  std::vector<std::string> v(std::begin(kExtensions), std::end(kExtensions));
  if (probed && fp64()) v.push_back("cl_khr_fp64");
  // Half arithmetic is Vulkan's Float16 (probed exact); the math built-ins go through float
  // (polyfills/half.cl).
  if (probed && fp16()) v.push_back("cl_khr_fp16");
  // Vulkan's device clock serves the device and work-group scopes (OpReadClockKHR has no
  // work-group scope; a device-wide clock is also one for the work-group).
  if (info_.shader_device_clock) v.push_back("cl_khr_kernel_clock");
  // 64-bit atomics: native on device addresses, and on local memory through the wide local
  // arena (kernel_to_shader/passes/wide_arena.cpp), so both kinds of Vulkan 64-bit atomics.
  if (info_.shader_buffer_int64_atomics && info_.shader_shared_int64_atomics) {
    v.push_back("cl_khr_int64_base_atomics");
    v.push_back("cl_khr_int64_extended_atomics");
  }
  // Written 3D images are storage images like the others.
  if (images() && info_.features.shaderStorageImageWriteWithoutFormat) v.push_back("cl_khr_3d_image_writes");
  if (images()) v.push_back("cl_khr_image2d_from_buffer");
  v.push_back("cl_khr_device_uuid");
  // Buffers over memory a Vulkan program (or another API) exported (api/external_memory.cpp).
  for (cl_external_memory_handle_type_khr type : external_memory_handles()) {
    if (type == CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR) v.push_back("cl_khr_external_memory_opaque_fd");
    if (type == CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR) v.push_back("cl_khr_external_memory_dma_buf");
  }
  if (!external_memory_handles().empty()) v.push_back("cl_khr_external_memory");
  v.push_back("cl_khr_semaphore");
  // Every buffer has a device address already (api/svm.cpp, core/kernel.cpp).
  v.push_back("cl_ext_buffer_device_address");
  v.push_back("cl_khr_command_buffer_mutable_dispatch");
  if (info_.pci_bus) v.push_back("cl_khr_pci_bus_info");
  // Depth images are single-channel colour images underneath (core/image_format.cpp).
  std::call_once(depth_formats_checked_, [&] { backs_depth_images_ = cl::backs_depth_images(info_); });
  if (images() && backs_depth_images_) v.push_back("cl_khr_depth_images");
  if (!has_subgroups()) return v;
  // The cl_khr_subgroup_* extensions (OpenCL 3.0 with __opencl_c_subgroups is enough), each
  // where Vulkan has the subgroup operations it becomes.
  const std::pair<VkSubgroupFeatureFlags, const char*> extensions[] = {
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "cl_khr_subgroup_ballot"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "cl_khr_subgroup_non_uniform_vote"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "cl_khr_subgroup_shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "cl_khr_subgroup_shuffle_relative"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "cl_khr_subgroup_non_uniform_arithmetic"},
      // Vulkan's clustered operations, or shuffles and a ballot (lower_subgroup.cpp)
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "cl_khr_subgroup_clustered_reduce"}};
  const VkSubgroupFeatureFlags ops = info_.subgroup.supportedOperations;
  for (const auto& [bit, name] : extensions)
    if ((ops & bit) || (bit == VK_SUBGROUP_FEATURE_CLUSTERED_BIT &&
                        (ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) && (ops & VK_SUBGROUP_FEATURE_BALLOT_BIT)))
      v.push_back(name);
  // Broadcasts, reductions and scans of 8/16-bit integers and of vectors: Vulkan's subgroup
  // operations take vectors always and narrow integers with shaderSubgroupExtendedTypes.
  if (info_.subgroup_extended_types && (ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
    v.push_back("cl_khr_subgroup_extended_types");
  // Rotations are shuffles by a computed index (lower_subgroup.cpp); the extension's gentype
  // includes char and short, which Vulkan shuffles only with shaderSubgroupExtendedTypes.
  if (info_.subgroup_extended_types && (ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT))
    v.push_back("cl_khr_subgroup_rotate");
  return v;
}

std::vector<std::string> _cl_device_id::feature_list(bool probed) const {
  std::vector<std::string> v(std::begin(kFeatures), std::end(kFeatures));
  if (probed && fp64()) v.push_back("__opencl_c_fp64");
  if (info_.shader_device_clock) {
    v.push_back("__opencl_c_kernel_clock_scope_device");
    v.push_back("__opencl_c_kernel_clock_scope_work_group");
    if (info_.shader_subgroup_clock && has_subgroups()) v.push_back("__opencl_c_kernel_clock_scope_sub_group");
  }
  if (info_.features.shaderInt64) v.push_back("__opencl_c_int64");
  if (has_subgroups()) v.push_back("__opencl_c_subgroups");
  // Images: written images need shaderStorageImageWriteWithoutFormat; read_write ones are
  // storage images of the bound image's format where the device cannot read format Unknown.
  if (images()) {
    v.push_back("__opencl_c_images");
    if (info_.features.shaderStorageImageWriteWithoutFormat) v.push_back("__opencl_c_3d_image_writes");
    if (read_write_images()) v.push_back("__opencl_c_read_write_images");
  }
  return v;
}

cl_device_svm_capabilities _cl_device_id::svm_capabilities() const {
  std::call_once(svm_checked_, [&] {
    auto device = vk_device();
    if (device && cl::host_and_device_addresses_agree(*device))
      svm_ = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
  });
  return svm_;
}

bool _cl_device_id::images() const {
  std::call_once(image_formats_checked_, [&] {
    backs_image_formats_ = cl::backs_minimum_image_formats(info_);
    backs_read_write_images_ = backs_image_formats_ && cl::backs_read_write_images(info_);
  });
  return backs_image_formats_ && !cl::images_hidden();
}

// Every GPU: Vulkan promises nothing about what shared memory holds when a work-group starts,
// and the GPUs LeftoverLocals found leaking another process's data did not say so either. Not
// a CPU device (lavapipe): its local memory is the application's own process memory, which no
// other process wrote, and there the extra barrier costs ~20% of a reduction (bench "reduce
// uint sum", 1.02 against 1.27 GB/s). VKCL_ZERO_LOCAL_MEMORY=1 or 0 decides for any device.
bool _cl_device_id::zeroes_local_memory() const {
  if (const char* v = std::getenv("VKCL_ZERO_LOCAL_MEMORY")) return std::string(v) != "0";
  return info_.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

// Measured where it pays: lavapipe (Mesa 22) reads a device address lane by lane inside any
// branch or loop, where a uniform buffer read at an offset all lanes share is one scalar load
// (400 reads of a parameter block in a branch: 2.3x faster to build, 2.7x faster to run;
// passes/constant_buffers.h). Not measured on GPUs yet, whose constant caches serialize reads
// that lanes make at different offsets. VKCL_CONSTANT_BUFFERS=1 or 0 decides for any device.
uint32_t _cl_device_id::constant_buffer_bytes() const {
  bool wanted = info_.driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  if (const char* v = std::getenv("VKCL_CONSTANT_BUFFERS")) wanted = std::string(v) != "0";
  if (!wanted || !info_.uniform_buffer_standard_layout) return 0;
  // No more than CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: the shader's word array is this long.
  return std::min<uint32_t>(info_.properties.limits.maxUniformBufferRange, 64 * 1024) / 4 * 4;
}

std::string _cl_device_id::extensions() const {
  std::string s;
  for (const std::string& e : extension_list()) s += e + " ";
  if (!s.empty()) s.pop_back();
  return s;
}

compiler::DeviceFeatures _cl_device_id::compiler_features(bool probed) const {
  compiler::DeviceFeatures f;
  f.int64 = info_.features.shaderInt64;
  f.fp64 = probed && fp64();
  f.fp16 = probed && fp16();
  f.images = images();
  for (const std::string& e : extension_list(probed))
    if (e != "cl_khr_il_program" && e != "cl_khr_fp64" && e != "cl_khr_fp16") f.extensions.push_back(e);
  // clang 15 declares the sub-group built-ins under the extension's name.
  if (has_subgroups()) f.extensions.push_back("cl_khr_subgroups");
  for (const std::string& feature : feature_list(probed))
    if (feature != "__opencl_c_int64" && feature != "__opencl_c_fp64") f.features.push_back(feature);
  return f;
}

size_t _cl_device_id::max_work_group_size() const {
  return info_.properties.limits.maxComputeWorkGroupInvocations;
}

std::array<size_t, 3> _cl_device_id::max_work_item_sizes() const {
  const auto& l = info_.properties.limits;
  return {l.maxComputeWorkGroupSize[0], l.maxComputeWorkGroupSize[1], l.maxComputeWorkGroupSize[2]};
}

std::array<uint32_t, 3> _cl_device_id::max_group_count() const {
  const auto& l = info_.properties.limits;
  return {l.maxComputeWorkGroupCount[0], l.maxComputeWorkGroupCount[1], l.maxComputeWorkGroupCount[2]};
}

// Kernels reserve 64 bytes of local memory as scratch for generic-pointer accesses.
uint64_t _cl_device_id::local_mem_size() const {
  // All of it: kernels count what vkcl itself places there (the generic-access scratch, the
  // work-group collectives' slots) in CL_KERNEL_LOCAL_MEM_SIZE.
  return info_.properties.limits.maxComputeSharedMemorySize;
}

// The device-local heap, or less where VKCL_MEMORY_BUDGET says (vk::memory_budget): what
// vkcl will allocate.
uint64_t _cl_device_id::global_mem_size() const {
  uint64_t size = info_.device_local_heap_size;
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i)
    if (info_.memory.memoryHeaps[i].size == size) return std::min<uint64_t>(size, vk::memory_budget(info_, i));
  return size;
}

// What one buffer may take: not vkcl's reserve (vk::internal_reserve), and as much again
// left for the application's other objects (programs make a buffer of the largest size and
// then small ones beside it, as the CTS's allocations test does).
uint64_t _cl_device_id::max_mem_alloc_size() const {
  uint64_t size = info_.device_local_heap_size;
  uint64_t reserve = 0;
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i)
    if (info_.memory.memoryHeaps[i].size == size) reserve = vk::internal_reserve(info_, i);
  return std::min<uint64_t>(info_.max_allocation_size, global_mem_size() - 2 * reserve);
}

uint32_t _cl_device_id::subgroup_size() const { return std::max(info_.subgroup.subgroupSize, 1u); }

bool _cl_device_id::has_subgroups() const {
  const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
                                        VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                        VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  return (info_.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
         (info_.subgroup.supportedOperations & needed) == needed;
}

// CL_DEVICE_MAX_CLOCK_FREQUENCY in MHz. A CPU device (lavapipe) runs on the host's cores: their
// highest frequency (cpufreq, else /proc/cpuinfo). Vulkan tells no GPU clock: the rate of the
// sub-group clock measured against timestamps (VKCL_MEASURE_CLOCK=1 measures a CPU device's
// too), kept in the build cache like the precision probe; 0, "unknown", where it cannot be had.
cl_uint _cl_device_id::max_clock_mhz() const {
  const char* measure = std::getenv("VKCL_MEASURE_CLOCK");
  if (!runs_on_cpu() || (measure && std::strcmp(measure, "1") == 0)) {
    std::call_once(clock_measured_, [&] {
      std::string key = probe_key("clock probe", "");
      std::optional<std::string> kept = compiler::cache::read_blob(key);
      if (kept && !kept->empty()) {
        measured_clock_mhz_ = cl_uint(std::strtoul(kept->c_str(), nullptr, 10));
        return;
      }
      if (auto device = vk_device()) {
        measured_clock_mhz_ = cl::measure_clock_mhz(*device, unprobed_caps(), compiler_features(false));
        if (measured_clock_mhz_) compiler::cache::write_blob(key, std::to_string(measured_clock_mhz_));
      }
    });
    return measured_clock_mhz_;
  }
  if (std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r")) {
    unsigned long khz = 0;
    bool read = std::fscanf(f, "%lu", &khz) == 1;
    std::fclose(f);
    if (read && khz >= 1000) return cl_uint(khz / 1000);
  }
  double best = 0;
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      double mhz = 0;
      if (std::strncmp(line, "cpu MHz", 7) == 0 && std::sscanf(std::strchr(line, ':') ? std::strchr(line, ':') + 1 : line, "%lf", &mhz) == 1)
        best = std::max(best, mhz);
    }
    std::fclose(f);
  }
  return cl_uint(best + 0.5);
}

static cl_version version(int major, int minor, int patch = 0) { return CL_MAKE_VERSION(major, minor, patch); }

cl_int _cl_device_id::get_info(cl_device_info param, size_t size, void* value,
                               size_t* size_ret) const {
  cl::InfoOut out{size, value, size_ret};
  const VkPhysicalDeviceLimits& l = info_.properties.limits;
  switch (param) {
    case CL_DEVICE_TYPE: return out(type());
    case CL_DEVICE_VENDOR_ID: return out(cl_uint(info_.properties.vendorID));
    case CL_DEVICE_MAX_COMPUTE_UNITS: {
      // Core Vulkan has no core count: vendor extensions give it (NVIDIA's SMs, AMD's compute
      // units, Arm's shader cores); lavapipe runs one thread per host CPU. Clients size their
      // work from this, so a GPU reported as one unit gets too little work to fill it.
      cl_uint units = info_.core_count ? info_.core_count
                      : runs_on_cpu() ? std::max(1u, std::thread::hardware_concurrency())
                                                     : 1u;
      return out(units);
    }
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return out(cl_uint(3));
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: return out(max_work_group_size());
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      auto s = max_work_item_sizes();
      return out(std::vector<size_t>(s.begin(), s.end()));
    }
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: return out(cl_uint(1));
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG: return out(cl_uint(info_.features.shaderInt64 ? 1 : 0));
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: return out(cl_uint(fp64() ? 1 : 0));
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return out(cl_uint(fp16() ? 1 : 0));
    case CL_DEVICE_HALF_FP_CONFIG:
      // cl_khr_fp16's minimum: round to nearest (the probe checked it) and infinities and
      // NaNs; denormals may flush.
      return out(cl_device_fp_config(fp16() ? CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN : 0));
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: return out(max_clock_mhz());
    case CL_DEVICE_ADDRESS_BITS: return out(cl_uint(64));
    // Every image limit is the Vulkan device's, and 0 without images.
    case CL_DEVICE_MAX_READ_IMAGE_ARGS:
      return out(cl_uint(images() ? std::min(l.maxPerStageDescriptorSampledImages, l.maxDescriptorSetSampledImages) : 0));
    // Written images are storage images of format Unknown: writes need
    // shaderStorageImageWriteWithoutFormat. read_write images: read_write_images().
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS: {
      bool storage = param == CL_DEVICE_MAX_WRITE_IMAGE_ARGS
                         ? images() && info_.features.shaderStorageImageWriteWithoutFormat
                         : read_write_images();
      return out(cl_uint(storage ? std::min(l.maxPerStageDescriptorStorageImages, l.maxDescriptorSetStorageImages) : 0));
    }
    case CL_DEVICE_MAX_SAMPLERS:
      return out(cl_uint(images() ? std::min(l.maxPerStageDescriptorSamplers, l.maxDescriptorSetSamplers) : 0));
    // 2D images from buffers (cl_khr_image2d_from_buffer) copy between the buffer and an
    // image of their own (core/image.h): Vulkan's copies take rows any number of texels apart
    // from any texel boundary, so one pixel for both ("0 if the device does not support"
    // them).
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT: return out(cl_uint(images() ? 1 : 0));
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return out(cl_ulong(max_mem_alloc_size()));
    case CL_DEVICE_IMAGE2D_MAX_WIDTH: return out(size_t(images() ? cl::image_limits(info_).width_2d : 0));
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: return out(size_t(images() ? cl::image_limits(info_).height_2d : 0));
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: return out(size_t(images() ? cl::image_limits(info_).size_3d : 0));
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: return out(size_t(images() ? cl::image_limits(info_).buffer_size : 0));
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: return out(size_t(images() ? cl::image_limits(info_).array_size : 0));
    case CL_DEVICE_IMAGE_SUPPORT: return out(cl_bool(images() ? CL_TRUE : CL_FALSE));
    case CL_DEVICE_MAX_PARAMETER_SIZE: return out(size_t(1024));
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return out(cl_uint(1024));
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return out(cl_uint(128));
    case CL_DEVICE_SINGLE_FP_CONFIG: return out(cl_device_fp_config(CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN));
    case CL_DEVICE_DOUBLE_FP_CONFIG:
      // What the cl_khr_fp64 extension requires (OpenCL 3.0's core minimum omits the
      // directed modes; the CTS asks for them). The probe checked rounding to nearest,
      // denormals and fma; the directed modes are those of convert_*_rtz/_rtp/_rtn, which
      // lower_conversions.cpp makes exact.
      return out(cl_device_fp_config(fp64() ? CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                                  CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM
                                            : 0));
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: return out(cl_device_mem_cache_type(CL_NONE));
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return out(cl_uint(0));
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return out(cl_ulong(0));
    case CL_DEVICE_GLOBAL_MEM_SIZE: return out(cl_ulong(global_mem_size()));
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: return out(cl_ulong(64 * 1024));
    case CL_DEVICE_MAX_CONSTANT_ARGS: return out(cl_uint(8));
    case CL_DEVICE_LOCAL_MEM_TYPE: return out(cl_device_local_mem_type(CL_LOCAL));
    case CL_DEVICE_LOCAL_MEM_SIZE: return out(cl_ulong(local_mem_size()));
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: return out(cl_bool(CL_FALSE));
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
      return out(size_t(std::max(1.0f, l.timestampPeriod)));
    case CL_DEVICE_ENDIAN_LITTLE: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_AVAILABLE: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_COMPILER_AVAILABLE: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_LINKER_AVAILABLE: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_EXECUTION_CAPABILITIES: return out(cl_device_exec_capabilities(CL_EXEC_KERNEL));
    case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
      return out(cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES: return out(cl_command_queue_properties(0));
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE: return out(cl_uint(0));  // no device enqueue, no pipes
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
      if (has_subgroups())
        return out(cl_uint((max_work_group_size() + subgroup_size() - 1) / subgroup_size()));
      return out(cl_uint(0));
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT: return out(cl_uint(0));
    case CL_DEVICE_NAME: return out(std::string(info_.properties.deviceName));
    case CL_DEVICE_VENDOR: {
      std::string vendor = info_.driver.driverName[0] ? info_.driver.driverName : "vkcl";
      return out(vendor);
    }
    case CL_DRIVER_VERSION: return out(std::string("0.1"));
    case CL_DEVICE_PROFILE: return out("FULL_PROFILE");
    case CL_DEVICE_VERSION: return out("OpenCL 3.0 vkcl");
    case CL_DEVICE_NUMERIC_VERSION: return out(version(3, 0));
    case CL_DEVICE_OPENCL_C_VERSION: return out("OpenCL C 1.2 vkcl");
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
      std::vector<cl_name_version> v;
      for (auto [maj, min] : {std::pair{1, 0}, {1, 1}, {1, 2}, {3, 0}}) {
        cl_name_version n{version(maj, min), "OpenCL C"};
        v.push_back(n);
      }
      return out(v);
    }
    case CL_DEVICE_OPENCL_C_FEATURES: {
      std::vector<cl_name_version> v;
      for (const std::string& feature : feature_list()) {
        cl_name_version n{version(3, 0), ""};
        std::snprintf(n.name, sizeof(n.name), "%s", feature.c_str());
        v.push_back(n);
      }
      return out(v);
    }
    case CL_DEVICE_EXTENSIONS: return out(extensions());
    case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
      std::vector<cl_name_version> v;
      for (const std::string& e : extension_list()) {
        // cl_khr_integer_dot_product 2.0 adds the 4x8-bit vector inputs and the
        // acceleration queries, both answered below.
        // cl_khr_command_buffer: 0.9.0, the provisional version whose entry points Debian 12's
        // headers declare (later versions changed their parameters).
        cl_name_version n{e == "cl_khr_integer_dot_product" ? version(2, 0)
                          : e == "cl_khr_command_buffer"    ? version(0, 9, 0)
                          // The versions of Debian 12's headers (2023.02.06).
                          : e.rfind("cl_khr_external_memory", 0) == 0 || e == "cl_khr_semaphore" ||
                                    e == "cl_khr_command_buffer_mutable_dispatch" ? version(0, 9, 0)
                                                            : version(1, 0),
                          ""};
        std::snprintf(n.name, sizeof(n.name), "%s", e.c_str());
        v.push_back(n);
      }
      return out(v);
    }
    case CL_DEVICE_IL_VERSION: return out("SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4 SPIR-V_1.5 SPIR-V_1.6");
    case CL_DEVICE_ILS_WITH_VERSION: {
      std::vector<cl_name_version> v;
      for (int minor = 0; minor <= 6; ++minor) {
        cl_name_version n{version(1, minor), "SPIR-V"};
        v.push_back(n);
      }
      return out(v);
    }
    case CL_DEVICE_BUILT_IN_KERNELS: return out("");
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: return out(std::vector<cl_name_version>());
    case CL_DEVICE_PLATFORM: return out(platform_);
    case CL_DEVICE_HOST_UNIFIED_MEMORY: return out(cl_bool(info_.unified_memory));
    case CL_DEVICE_PARENT_DEVICE: return out(static_cast<cl_device_id>(nullptr));
    case CL_DEVICE_PARTITION_PROPERTIES:
    case CL_DEVICE_PARTITION_TYPE: return out(std::vector<cl_device_partition_property>{0});
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: return out(cl_device_affinity_domain(0));
    case CL_DEVICE_REFERENCE_COUNT: return out(cl_uint(1));
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return out(cl::kPrintfBufferSize);
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: return out(cl::kMaxGlobalVariableSize);
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: return out(cl::kMaxGlobalVariableSize);
    case CL_DEVICE_SVM_CAPABILITIES: return out(svm_capabilities());
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: return out(cl_bool(CL_FALSE));
    // Orders map onto Vulkan's Acquire/Release/AcquireRelease semantics; seq_cst atomics are
    // read-modify-writes (lower_atomics.cpp). Not all_svm_devices: there is no SVM.
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
      return out(cl_device_atomic_capabilities(
          CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
          CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
          CL_DEVICE_ATOMIC_SCOPE_DEVICE));
    // Not seq_cst fences: Vulkan treats a SequentiallyConsistent barrier as AcquireRelease,
    // which does not forbid store buffering between two fenced work-items.
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      return out(cl_device_atomic_capabilities(
          CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
          CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
          CL_DEVICE_ATOMIC_SCOPE_DEVICE));
    case CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT:
      return out(cl_device_fp_atomic_capabilities_ext(
          CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT | CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT |
          CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT | CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT |
          CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT | CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT));
    case CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR:
      return out(cl::spirv_queries(extension_list(), feature_list(), has_subgroups()).instruction_sets);
    case CL_DEVICE_SPIRV_EXTENSIONS_KHR:
      return out(cl::spirv_queries(extension_list(), feature_list(), has_subgroups()).extensions);
    case CL_DEVICE_SPIRV_CAPABILITIES_KHR:
      return out(cl::spirv_queries(extension_list(), feature_list(), has_subgroups()).capabilities);
    case CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR:
      return out(cl_device_integer_dot_product_capabilities_khr(
          CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR |
          CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR));
    // Multiplies and adds, not a dot-product instruction: nothing is accelerated.
    case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR:
    case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR:
      return out(cl_device_integer_dot_product_acceleration_properties_khr{});
    case CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT:
    case CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT:
      return out(cl_device_fp_atomic_capabilities_ext(0));
    case CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR: {
      cl_device_kernel_clock_capabilities_khr clocks = 0;
      for (const std::string& f : feature_list()) {
        if (f == "__opencl_c_kernel_clock_scope_device") clocks |= CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR;
        if (f == "__opencl_c_kernel_clock_scope_work_group") clocks |= CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR;
        if (f == "__opencl_c_kernel_clock_scope_sub_group") clocks |= CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR;
      }
      return out(clocks);
    }
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: return out(size_t(subgroup_size()));
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: return out(cl_bool(CL_TRUE));
    case CL_DEVICE_PIPE_SUPPORT: return out(cl_bool(CL_FALSE));
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      return out(cl_device_device_enqueue_capabilities(0));
    // cl_khr_command_buffer: printf works in recorded kernels (each execution has its own
    // buffer), an execution may be pending more than once, and out-of-order queues record
    // too (a buffer's commands keep their order; the queue orders executions as commands).
    case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
      return out(cl_device_command_buffer_capabilities_khr(CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
                                                           CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR |
                                                           CL_COMMAND_BUFFER_CAPABILITY_OUT_OF_ORDER_KHR));
    case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR: return out(cl_command_queue_properties(0));
    case CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR: return out(external_memory_handles());
    // Every field of a kernel command (api/command_buffer.cpp).
    case CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR:
      return out(cl_mutable_dispatch_fields_khr(
          CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR |
          CL_MUTABLE_DISPATCH_ARGUMENTS_KHR | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR));
    case CL_DEVICE_SEMAPHORE_TYPES_KHR: return out(std::vector<cl_semaphore_type_khr>{CL_SEMAPHORE_TYPE_BINARY_KHR});
    // cl_khr_device_uuid: Vulkan's (VkPhysicalDeviceIDProperties), as external memory
    // matches devices by them.
    case CL_DEVICE_UUID_KHR: return out(std::vector<cl_uchar>(info_.id.deviceUUID, info_.id.deviceUUID + CL_UUID_SIZE_KHR));
    case CL_DRIVER_UUID_KHR: return out(std::vector<cl_uchar>(info_.id.driverUUID, info_.id.driverUUID + CL_UUID_SIZE_KHR));
    case CL_DEVICE_LUID_VALID_KHR: return out(cl_bool(info_.id.deviceLUIDValid ? CL_TRUE : CL_FALSE));
    case CL_DEVICE_LUID_KHR: return out(std::vector<cl_uchar>(info_.id.deviceLUID, info_.id.deviceLUID + CL_LUID_SIZE_KHR));
    case CL_DEVICE_NODE_MASK_KHR: return out(cl_uint(info_.id.deviceLUIDValid ? info_.id.deviceNodeMask : 0));
    case CL_DEVICE_PCI_BUS_INFO_KHR: {
      // CL_INVALID_VALUE for a query of an extension the device does not report.
      if (!info_.pci_bus) return CL_INVALID_VALUE;
      const auto& p = *info_.pci_bus;
      return out(cl_device_pci_bus_info_khr{p[0], p[1], p[2], p[3]});
    }
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: return out("v0000-01-01-00");
    default:
      // CL_INVALID_VALUE if param_name is not one of the supported values.
      return CL_INVALID_VALUE;
  }
}
