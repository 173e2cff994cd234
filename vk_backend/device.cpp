#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include "blocks.h"
#include "exit.h"
#include "inject.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {

VkResult Device::create(const DeviceInfo& info, std::shared_ptr<Device>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  std::shared_ptr<Device> device(new Device(info));
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  f12.timelineSemaphore = VK_TRUE;
  f12.shaderInt8 = info.shader_int8;
  f12.shaderFloat16 = info.shader_float16;
  f12.storageBuffer8BitAccess = info.storage_buffer_8bit;
  f12.shaderBufferInt64Atomics = info.shader_buffer_int64_atomics;
  f12.shaderSharedInt64Atomics = info.shader_shared_int64_atomics;
  f12.shaderSubgroupExtendedTypes = info.subgroup_extended_types;
  f12.hostQueryReset = VK_TRUE;
  f12.vulkanMemoryModel = info.vulkan_memory_model;
  f12.vulkanMemoryModelDeviceScope = info.vulkan_memory_model;
  f12.uniformBufferStandardLayout = info.uniform_buffer_standard_layout;
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
  f11.storageBuffer16BitAccess = info.storage_buffer_16bit;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  features.features.shaderInt64 = info.features.shaderInt64;
  features.features.shaderInt16 = info.features.shaderInt16;
  features.features.shaderFloat64 = info.features.shaderFloat64;
  // Kernels bind any image to one shader, so its storage images have format Unknown; where
  // a device cannot read those, read_write images name their format (R8, Rg16, ... are
  // extended formats).
  features.features.shaderStorageImageReadWithoutFormat = info.features.shaderStorageImageReadWithoutFormat;
  features.features.shaderStorageImageWriteWithoutFormat = info.features.shaderStorageImageWriteWithoutFormat;
  features.features.shaderStorageImageExtendedFormats = info.features.shaderStorageImageExtendedFormats;
  std::vector<const char*> extensions;
  VkPhysicalDeviceZeroInitializeWorkgroupMemoryFeatures zero{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ZERO_INITIALIZE_WORKGROUP_MEMORY_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT float_add{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT float_min_max{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_2_FEATURES_EXT};
  auto chain = [&](auto* s) {
    s->pNext = features.pNext;
    features.pNext = s;
  };
  if (info.zero_initialize_workgroup_memory) {
    zero.shaderZeroInitializeWorkgroupMemory = VK_TRUE;
    chain(&zero);
    if (info.zero_initialize_needs_extension)
      extensions.push_back(VK_KHR_ZERO_INITIALIZE_WORKGROUP_MEMORY_EXTENSION_NAME);
  }
  if (info.float32_atomic_add_buffer || info.float32_atomic_add_shared) {
    float_add.shaderBufferFloat32Atomics = info.float32_atomic_add_buffer;
    float_add.shaderBufferFloat32AtomicAdd = info.float32_atomic_add_buffer;
    float_add.shaderSharedFloat32Atomics = info.float32_atomic_add_shared;
    float_add.shaderSharedFloat32AtomicAdd = info.float32_atomic_add_shared;
    chain(&float_add);
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  if (info.float32_atomic_min_max_buffer || info.float32_atomic_min_max_shared) {
    float_min_max.shaderBufferFloat32AtomicMinMax = info.float32_atomic_min_max_buffer;
    float_min_max.shaderSharedFloat32AtomicMinMax = info.float32_atomic_min_max_shared;
    chain(&float_min_max);
    // VK_EXT_shader_atomic_float2 requires VK_EXT_shader_atomic_float.
    if (!float_add.pNext) extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME);
  }

  VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceImageRobustnessFeatures image_robustness{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_ROBUSTNESS_FEATURES};
  if (info.robust_image_access) {
    image_robustness.robustImageAccess = VK_TRUE;
    chain(&image_robustness);
    if (info.image_robustness_needs_extension) extensions.push_back(VK_EXT_IMAGE_ROBUSTNESS_EXTENSION_NAME);
  }
  if (info.shader_device_clock || info.shader_subgroup_clock) {
    clock.shaderDeviceClock = info.shader_device_clock;
    clock.shaderSubgroupClock = info.shader_subgroup_clock;
    chain(&clock);
    extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  }

  // High, medium, low (QueuePriority), where the family has that many queues.
  const float priorities[3] = {1.0f, 0.5f, 0.0f};
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = info.compute_queue_family;
  queue.queueCount = info.compute_queue_count >= 3 ? 3 : 1;
  queue.pQueuePriorities = priorities;
  if (info.external_memory_host) extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  if (info.external_memory_fd) extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  if (info.external_memory_dma_buf) extensions.push_back(VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
  if (info.push_descriptor) extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (info.calibrated_timestamps) extensions.push_back(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (info.pipeline_statistics) {
    executables.pipelineExecutableInfo = VK_TRUE;
    chain(&executables);
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }
  VkDeviceCreateInfo create{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  create.enabledExtensionCount = uint32_t(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  VkResult r = vkCreateDevice(info.physical, &create, nullptr, &device->device_);
  if (r != VK_SUCCESS) return r;
  // Device functions stay the loader's trampolines (volkLoadInstance), which dispatch on the
  // handle: volkLoadDevice would point the process-wide function pointers at this device's
  // driver, and every call for a device of another driver (a GPU beside lavapipe) would then
  // enter the wrong driver.
  for (uint32_t i = 0; i < queue.queueCount; ++i)
    vkGetDeviceQueue(device->device_, info.compute_queue_family, i, &device->queues_[i]);
  VkPipelineCacheCreateInfo cache{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  vkCreatePipelineCache(device->device_, &cache, nullptr, &device->pipeline_cache_);
  device->blocks_.reset(new (std::nothrow) detail::Blocks(*device));
  if (!device->blocks_) return VK_ERROR_OUT_OF_HOST_MEMORY;
  detail::track_device(device.get(), true);
  *out = std::move(device);
  return VK_SUCCESS;
}

Device::Device(const DeviceInfo& info) : info_(info) {}

Device::~Device() {
  if (!device_) return;
  detail::track_device(this, false);
  if (!vulkan_usable()) {
    (void)blocks_.release();  // Vulkan is gone with the process: nothing to free
    return;
  }
  vkDeviceWaitIdle(device_);
  setup_stream_.reset();  // (its semaphore goes back to timelines_, destroyed below)
  for (const Spare& s : spares_) free_spare(s);
  blocks_.reset();
  for (VkSemaphore t : timelines_) vkDestroySemaphore(device_, t, nullptr);
  if (pipeline_cache_) vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
  vkDestroyDevice(device_, nullptr);
}

void Device::free_spare(const Spare& spare) {
  vkDestroyBuffer(device_, spare.buffer, nullptr);
  free_memory(spare.memory);
}

namespace {

// At most this many spares are kept (keep_spare), in room reserved once: keeping and
// dropping spares happens as buffers and contexts go, in destructors, where an allocation
// that failed would end the process (std::terminate). What they free is gathered here.
constexpr size_t kMaxSpares = 64;
struct Freed {
  Device::Spare spares[kMaxSpares + 1];
  size_t count = 0;
  void add(const Device::Spare& s) { spares[count++] = s; }
};

}  // namespace

void Device::drop_spares(uint64_t owner) {
  Freed freed;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    for (size_t i = spares_.size(); i-- > 0;) {
      if ((spares_[i].owner & ~kInternalOwner) != owner) continue;
      freed.add(spares_[i]);
      spare_bytes_ -= spares_[i].size;
      spares_.erase(spares_.begin() + i);
    }
  }
  for (size_t i = 0; i < freed.count; ++i) free_spare(freed.spares[i]);
  blocks_->drop(owner);
  blocks_->drop(owner | detail::kImageOwner);
  blocks_->drop(owner | kInternalOwner);
}

void Device::free_all_spares() {
  Freed freed;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    for (const Spare& s : spares_) freed.add(s);
    spares_.clear();  // keeps its room
    spare_bytes_ = 0;
  }
  for (size_t i = 0; i < freed.count; ++i) free_spare(freed.spares[i]);
  blocks_->drop_empty();
}

VkDeviceSize memory_budget(const DeviceInfo& device, uint32_t heap) {
  if (const char* text = std::getenv("VKCL_MEMORY_BUDGET")) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(text, &end, 10);
    switch (end && *end ? *end : ' ') {
      case 'G': case 'g': v <<= 30; break;
      case 'M': case 'm': v <<= 20; break;
      case 'K': case 'k': v <<= 10; break;
      default: break;
    }
    if (v) return v;
  }
  return heap < device.memory.memoryHeapCount ? device.memory.memoryHeaps[heap].size : 0;
}

bool Device::within_budget(uint32_t heap, VkDeviceSize size) {
  if (heap_used_.size() <= heap) heap_used_.resize(heap + 1, 0);
  if (heap_used_[heap] + size > memory_budget(info_, heap)) return false;
  if (!info_.memory_budget) return true;
  // The driver's view: what this process may still take from the heap.
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, &budget};
  vkGetPhysicalDeviceMemoryProperties2(info_.physical, &properties);
  return budget.heapUsage[heap] + size <= budget.heapBudget[heap];
}

namespace {

thread_local int t_application_allocations = 0;

// VKCL_FAIL_ALLOCATIONS=N: every Nth device memory allocation of the process fails, to test
// that exhaustion surfaces as OpenCL errors (README, Tests).
bool injected_failure() {
  if (t_application_allocations) return false;
  const char* v = std::getenv("VKCL_FAIL_ALLOCATIONS");  // read each time: tests set it
  const unsigned long every = v ? std::strtoul(v, nullptr, 10) : 0ul;
  static std::atomic<unsigned long> count{0};
  return every && ++count % every == 0;
}

}  // namespace

bool detail::injected_object_failure() {
  // The application's own buffers and images are left alone, as for VKCL_FAIL_ALLOCATIONS:
  // their failure is only returned to it (and tests that go on with the missing object would
  // hand kernels a NULL buffer).
  if (t_application_allocations) return false;
  const char* v = std::getenv("VKCL_FAIL_OBJECTS");  // read each time: tests set it
  const unsigned long every = v ? std::strtoul(v, nullptr, 10) : 0ul;
  static std::atomic<unsigned long> count{0};
  return every && ++count % every == 0;
}

ApplicationAllocation::ApplicationAllocation() { ++t_application_allocations; }
ApplicationAllocation::~ApplicationAllocation() { --t_application_allocations; }

VkDeviceSize internal_reserve(const DeviceInfo& device, uint32_t heap) {
  return std::min<VkDeviceSize>(memory_budget(device, heap) / 16, VkDeviceSize(64) << 20);
}

VkResult Device::allocate_memory(const VkMemoryAllocateInfo& info, VkDeviceMemory* out) {
  return allocate(info, out, nullptr, 0);
}

VkExternalMemoryHandleTypeFlags Device::buffer_handle_types() const {
  const bool own_pages = info_.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && info_.external_memory_host &&
                         info_.min_imported_host_pointer_alignment &&
                         info_.min_imported_host_pointer_alignment <= VkDeviceSize(sysconf(_SC_PAGESIZE));
  return own_pages ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT : 0;
}

VkResult Device::allocate_buffer_memory(const VkMemoryAllocateInfo& info, VkDeviceMemory* out, bool* zeroed) {
  *zeroed = false;
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // Small allocations come from the process heap, often pages it had before and faulted in
  // already, which are cheap to zero (own pages for them made PyOpenCL's small-array loops
  // slower: measured); large ones are mostly new mappings from glibc, whose every page faults
  // at its first touch either way.
  constexpr VkDeviceSize kOwnPagesFrom = VkDeviceSize(8) << 20;
  if (!buffer_handle_types() || (info_.memory.memoryTypes[info.memoryTypeIndex].propertyFlags & visible) != visible ||
      info.allocationSize < kOwnPagesFrom)
    return allocate_memory(info, out);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t bytes = (size_t(info.allocationSize) + page - 1) / page * page;
  void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) return allocate_memory(info, out);
  VkMemoryHostPointerPropertiesEXT pointer{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  VkResult r = vkGetMemoryHostPointerPropertiesEXT(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                                   pages, &pointer);
  if (r != VK_SUCCESS || !(pointer.memoryTypeBits & (1u << info.memoryTypeIndex))) {
    munmap(pages, bytes);
    return allocate_memory(info, out);
  }
  VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT, info.pNext};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = pages;
  VkMemoryAllocateInfo with = info;
  with.pNext = &import;
  with.allocationSize = bytes;
  r = allocate(with, out, pages, bytes);
  if (r != VK_SUCCESS) {
    munmap(pages, bytes);
    return r;
  }
  *zeroed = true;
  return VK_SUCCESS;
}

VkResult Device::allocate(const VkMemoryAllocateInfo& info, VkDeviceMemory* out, void* pages, size_t page_bytes) {
  if (injected_failure()) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  const uint32_t heap = info_.memory.memoryTypes[info.memoryTypeIndex].heapIndex;
  // The application's objects leave vkcl's reserve alone, so that commands can still get
  // their argument blocks and status words once the application has taken all it may.
  const VkDeviceSize reserve = t_application_allocations ? internal_reserve(info_, heap) : 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool fits;
    {
      std::lock_guard<std::mutex> lock(memory_mutex_);
      // The driver's limit on allocations held at once (maxMemoryAllocationCount) is kept
      // here: past it, drivers may fail in ways of their own.
      fits = within_budget(heap, info.allocationSize + reserve) &&
             allocations_.size() < info_.properties.limits.maxMemoryAllocationCount;
      if (fits) heap_used_[heap] += info.allocationSize;  // reserved while allocating
    }
    if (!fits) {
      if (attempt == 0) free_all_spares();
      continue;
    }
    VkResult r = vkAllocateMemory(device_, &info, nullptr, out);
    std::lock_guard<std::mutex> lock(memory_mutex_);
    if (r != VK_SUCCESS) {
      heap_used_[heap] -= info.allocationSize;
      if (attempt == 0 && (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)) continue;
      return r;
    }
    try {
      allocations_[*out] = {heap, info.allocationSize, pages, page_bytes};
    } catch (const std::bad_alloc&) {
      // Not noted (no host memory for it): given back, as if the driver had had none.
      heap_used_[heap] -= info.allocationSize;
      vkFreeMemory(device_, *out, nullptr);
      *out = VK_NULL_HANDLE;
      return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    return VK_SUCCESS;
  }
  return VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

void Device::free_memory(VkDeviceMemory memory) {
  if (!memory) return;
  Allocation a;
  {
    std::lock_guard<std::mutex> lock(memory_mutex_);
    auto it = allocations_.find(memory);
    if (it != allocations_.end()) {
      a = it->second;
      heap_used_[a.heap] -= a.size;
      allocations_.erase(it);
    }
  }
  vkFreeMemory(device_, memory, nullptr);
  if (a.pages) munmap(a.pages, a.page_bytes);
}

VkSemaphore Device::take_timeline() {
  std::lock_guard<std::mutex> lock(timelines_mutex_);
  if (timelines_.empty()) return VK_NULL_HANDLE;
  VkSemaphore t = timelines_.back();
  timelines_.pop_back();
  return t;
}

void Device::keep_timeline(VkSemaphore semaphore) {
  std::lock_guard<std::mutex> lock(timelines_mutex_);
  try {
    timelines_.push_back(semaphore);
  } catch (const std::bad_alloc&) {
    // No room to keep it: destroyed once nothing can use it.
    std::lock_guard<std::mutex> queues(queue_mutex_);
    vkDeviceWaitIdle(device_);
    vkDestroySemaphore(device_, semaphore, nullptr);
  }
}

size_t Device::allocation_count() const {
  std::lock_guard<std::mutex> lock(memory_mutex_);
  return allocations_.size();
}

VkDeviceSize Device::memory_in_use(uint32_t heap) const {
  std::lock_guard<std::mutex> lock(memory_mutex_);
  return heap < heap_used_.size() ? heap_used_[heap] : 0;
}

bool Device::take_spare(VkDeviceSize size, MemoryPlacement placement, uint64_t owner, Spare* out) {
  std::lock_guard<std::mutex> lock(spares_mutex_);
  for (size_t i = spares_.size(); i-- > 0;) {
    if (spares_[i].size != size || spares_[i].placement != placement || spares_[i].owner != owner) continue;
    *out = spares_[i];
    spare_bytes_ -= size;
    spares_.erase(spares_.begin() + i);
    return true;
  }
  return false;
}

VkDeviceSize Device::spare_limit() const {
  // An eighth of the largest heap, and 512 MiB.
  VkDeviceSize largest = 0;
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i)
    largest = std::max(largest, info_.memory.memoryHeaps[i].size);
  return std::min<VkDeviceSize>(largest / 8, VkDeviceSize(512) << 20);
}

void Device::keep_spare(const Spare& spare) {
  const VkDeviceSize limit = spare_limit();
  Freed freed;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    bool room = spares_.size() < spares_.capacity();
    if (!room) {
      try {
        spares_.reserve(kMaxSpares + 1);
        room = true;
      } catch (const std::bad_alloc&) {
        // Not kept: freed now.
      }
    }
    if (spare.size > limit || !room) {
      freed.add(spare);
    } else {
      spares_.push_back(spare);
      spare_bytes_ += spare.size;
      while (spare_bytes_ > limit || spares_.size() > kMaxSpares) {
        freed.add(spares_.front());
        spare_bytes_ -= spares_.front().size;
        spares_.erase(spares_.begin());
      }
    }
  }
  for (size_t i = 0; i < freed.count; ++i) free_spare(freed.spares[i]);
}

uint32_t Device::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < info_.memory.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = info_.memory.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    if ((f & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}


VkResult Device::setup(const std::function<void(VkCommandBuffer)>& record, uint64_t* point) {
  std::lock_guard<std::mutex> lock(setup_mutex_);
  if (!setup_stream_) {
    // Not owning: the device owns the stream, and destroys it first.
    VkResult r = CommandStream::create(std::shared_ptr<Device>(std::shared_ptr<Device>(), this), &setup_stream_);
    if (r != VK_SUCCESS) {
      setup_stream_.reset();
      return r;
    }
    setup_timeline_ = setup_stream_->timeline();
  }
  VkCommandBuffer cb;
  VkResult r = setup_stream_->command_buffer(&cb);
  if (r != VK_SUCCESS) return r;
  record(cb);
  r = setup_stream_->submit({}, point);
  if (r != VK_SUCCESS) return r;
  setup_submitted_ = std::max(setup_submitted_.load(), *point);
  return VK_SUCCESS;
}

std::pair<VkSemaphore, uint64_t> Device::pending_setup(VkSemaphore asking) {
  const uint64_t submitted = setup_submitted_.load();
  const VkSemaphore timeline = setup_timeline_.load();
  if (submitted <= setup_done_.load() || asking == timeline) return {VK_NULL_HANDLE, 0};
  uint64_t value = 0;
  if (vkGetSemaphoreCounterValue(device_, timeline, &value) == VK_SUCCESS) {
    uint64_t done = setup_done_.load();
    while (value > done && !setup_done_.compare_exchange_weak(done, value)) {}
    if (value >= submitted) return {VK_NULL_HANDLE, 0};
  }
  return {timeline, submitted};
}

void Device::wait_setup(uint64_t point) {
  if (point <= setup_done_.load() || lost()) return;
  VkSemaphore timeline = setup_timeline_.load();
  VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wait.semaphoreCount = 1;
  wait.pSemaphores = &timeline;
  wait.pValues = &point;
  vkWaitSemaphores(device_, &wait, UINT64_MAX);
}

}  // namespace vkcl::vk
