// vk_backend: Vulkan device, memory, pipelines, batched command buffers, timeline semaphores.
// Knows nothing of OpenCL. Every Vulkan handle lives in a move-only owner; fallible calls
// return VkResult (VK_SUCCESS or the failing call's result) and never abort.
#pragma once

#include <volk.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vkcl::vk {

// Human-readable name of |result| ("VK_ERROR_OUT_OF_DEVICE_MEMORY").
const char* result_name(VkResult result);

// Whether Vulkan may still be called: false once the process is exiting and vkcl has finished
// every device's work (exit.cpp), before the loader, layers and driver tear themselves down.
// Objects destroyed after that let their Vulkan handles go with the process; commands
// recorded after it fail with VK_ERROR_DEVICE_LOST.
bool vulkan_usable();

// Everything the frontend needs to describe a physical device, read once at instance creation.
struct DeviceInfo {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceDriverProperties driver{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  VkPhysicalDeviceFloatControlsProperties float_controls{};  // Vulkan 1.2 core
  VkPhysicalDeviceMemoryProperties memory{};
  VkPhysicalDeviceIDProperties id{};  // device and driver UUIDs, LUID (cl_khr_device_uuid)
  // VK_EXT_pci_bus_info: domain, bus, device, function (cl_khr_pci_bus_info).
  std::optional<std::array<uint32_t, 4>> pci_bus;
  VkPhysicalDeviceFeatures features{};  // shaderInt64, shaderInt16, shaderFloat64, ...
  uint32_t compute_queue_family = 0;
  uint32_t compute_queue_count = 1;  // queues in that family
  uint32_t timestamp_valid_bits = 0;
  uint32_t core_count = 0;
  bool calibrated_timestamps = false;  // VK_EXT_calibrated_timestamps: device and CLOCK_MONOTONIC
  // VK_KHR_pipeline_executable_properties, used only with VKCL_PIPELINE_STATS set.
  bool pipeline_statistics = false;  // SMs / compute units where the driver says (core_count()), else 0
  // Vulkan 1.1/1.2 features vkcl enables when present.
  bool shader_int8 = false;
  bool shader_float16 = false;
  bool storage_buffer_8bit = false;
  bool storage_buffer_16bit = false;
  bool buffer_device_address = false;  // required
  bool timeline_semaphore = false;     // required
  bool vulkan_memory_model = false;   // vulkanMemoryModel with vulkanMemoryModelDeviceScope
  bool uniform_buffer_standard_layout = false;  // uniformBufferStandardLayout
  bool shader_buffer_int64_atomics = false;
  bool shader_shared_int64_atomics = false;
  bool subgroup_extended_types = false;  // 8/16-bit integers and halves in subgroup operations
  bool zero_initialize_workgroup_memory = false;  // Vulkan 1.3 / VK_KHR_zero_initialize_...
  bool zero_initialize_needs_extension = false;   // (the KHR extension below Vulkan 1.3)
  // VK_EXT_shader_atomic_float(2): 32-bit float atomic add and min/max, buffer and shared.
  bool float32_atomic_add_buffer = false;
  bool float32_atomic_add_shared = false;
  bool float32_atomic_min_max_buffer = false;
  bool float32_atomic_min_max_shared = false;
  bool subgroup_size_control = false;
  bool external_memory_host = false;   // VK_EXT_external_memory_host
  bool external_memory_fd = false;     // VK_KHR_external_memory_fd
  bool external_memory_dma_buf = false;  // VK_EXT_external_memory_dma_buf
  // The fd handle types (opaque, dma-buf) a buffer's memory can be imported from.
  VkExternalMemoryHandleTypeFlags importable_buffer_handles = 0;
  bool shader_device_clock = false;    // VK_KHR_shader_clock
  bool shader_subgroup_clock = false;
  bool push_descriptor = false;        // VK_KHR_push_descriptor (kernels' image descriptors)
  // robustImageAccess (Vulkan 1.3 / VK_EXT_image_robustness): image accesses outside the
  // image, which OpenCL leaves undefined for writes, are discarded rather than stray.
  bool robust_image_access = false;
  bool image_robustness_needs_extension = false;
  VkDeviceSize min_imported_host_pointer_alignment = 0;
  bool unified_memory = false;  // a DEVICE_LOCAL memory type is also HOST_VISIBLE|HOST_COHERENT
  VkDeviceSize device_local_heap_size = 0;
  bool memory_budget = false;  // VK_EXT_memory_budget
  VkDeviceSize max_allocation_size = 0;  // maxMemoryAllocationSize
  // True when the device has everything vkcl requires (compute queue, BDA, timelines, int64).
  bool usable = false;
};

// The process-wide Vulkan instance, created on first use with volk. Validation layers are
// enabled when VKCL_VALIDATION=1 is set; any validation message is then printed to stderr and
// counted (tests assert the count stays 0).
class Instance {
 public:
  // Returns nullptr if no Vulkan loader/driver is available.
  static Instance* get();
  VkInstance handle() const { return instance_; }
  const std::vector<DeviceInfo>& devices() const { return devices_; }
  bool validation_enabled() const { return validation_; }
  // Validation messages of severity warning or error seen so far.
  static uint64_t validation_message_count();
  ~Instance();

 private:
  Instance() = default;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::vector<DeviceInfo> devices_;
  bool validation_ = false;
};

// The most device memory vkcl allocates from a heap: VKCL_MEMORY_BUDGET (bytes, or with a K,
// M or G suffix) where set, else the heap's size (and, with VK_EXT_memory_budget, what the
// driver's budget leaves).
VkDeviceSize memory_budget(const DeviceInfo& device, uint32_t heap);
// What of that budget the application's buffers and images leave to vkcl's own allocations
// (argument blocks, status words, staging): a sixteenth, at most 64 MiB.
VkDeviceSize internal_reserve(const DeviceInfo& device, uint32_t heap);

// VKCL_FAIL_ALLOCATIONS=N makes every Nth device memory allocation fail, except those made
// while one of these lives on the thread: the memory of the application's own objects
// (clCreateBuffer, clCreateImage, clSVMAlloc), whose failure is simply returned, so that the
// failures tested are those of vkcl's own allocations inside commands and builds.
class ApplicationAllocation {
 public:
  ApplicationAllocation();
  ~ApplicationAllocation();
  ApplicationAllocation(const ApplicationAllocation&) = delete;
  ApplicationAllocation& operator=(const ApplicationAllocation&) = delete;
};

enum class MemoryPlacement {
  DeviceLocal,   // fastest for the device; host-visible too on unified-memory devices
  HostVisible,   // host-visible, coherent; for staging and ALLOC_HOST_PTR
};

// How urgent a stream's work is (cl_khr_priority_hints): where the compute family has three
// queues or more, each level submits to a queue of its own Vulkan priority (1.0, 0.5, 0.0).
enum class QueuePriority { High, Medium, Low };

class CommandStream;

namespace detail {
class Blocks;
struct Block;
}  // namespace detail

// A logical device with one compute queue per priority level (one for all where the family
// has fewer than three); shared by every CL object of the device.
class Device {
 public:
  static VkResult create(const DeviceInfo& info, std::shared_ptr<Device>* out);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  VkDevice handle() const { return device_; }
  VkQueue queue(QueuePriority priority = QueuePriority::Medium) const {
    return queues_[distinct_priorities() ? int(priority) : 0];
  }
  // Whether the priority levels have queues of their own.
  bool distinct_priorities() const { return queues_[2] != VK_NULL_HANDLE; }
  std::mutex& queue_mutex() { return queue_mutex_; }  // held around vkQueueSubmit, any queue
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  // Memory type index for |type_bits| with all of |required| flags, preferring |preferred|;
  // UINT32_MAX when none.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred) const;

  // A buffer and its memory kept after its Buffer went, for the next Buffer of the same size
  // and placement: clients that make and drop the same temporary on every call (CLBlast's
  // GEMM, 64 MiB at N = 4096) otherwise pay an allocation, a mapping and a free each time.
  struct Spare {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    MemoryPlacement placement = MemoryPlacement::DeviceLocal;
    uint64_t address = 0;
    void* mapped = nullptr;
    bool host_cached = false;
    // Whose it was (a CL context): a spare goes only to its owner's next buffer, so that no
    // buffer shows another context's data.
    uint64_t owner = 0;
  };
  bool take_spare(VkDeviceSize size, MemoryPlacement placement, uint64_t owner, Spare* out);
  void keep_spare(const Spare& spare);  // frees the oldest spares beyond the limit
  // The most memory kept unused for later buffers: in spares, and apart in empty blocks.
  VkDeviceSize spare_limit() const;
  // Frees the owner's, and those of owner | kInternalOwner.
  void drop_spares(uint64_t owner);

  // Device memory within the budget of its heap (memory_budget()), so that asking for more
  // than the device has fails with VK_ERROR_OUT_OF_DEVICE_MEMORY instead of growing the
  // process until the system ends it (lavapipe's memory is the process's). Spares are freed
  // before an allocation is refused. free_memory takes what allocate_memory gave.
  VkResult allocate_memory(const VkMemoryAllocateInfo& info, VkDeviceMemory* out);
  // The same for a buffer's memory (its buffers made with buffer_handle_types()), which
  // comes back zeroed where |*zeroed| says so: on a CPU device that imports host memory,
  // large allocations are pages of vkcl's own, anonymous and so zero, which spares the host
  // a pass of zeroing (the kernel zeroes each page at its first touch). Not huge pages:
  // faulting them in (compaction, 2 MiB cleared at once) made kernels that write new
  // buffers slower on lavapipe, not faster.
  VkResult allocate_buffer_memory(const VkMemoryAllocateInfo& info, VkDeviceMemory* out, bool* zeroed);
  VkExternalMemoryHandleTypeFlags buffer_handle_types() const;
  void free_memory(VkDeviceMemory memory);  // any memory of the device, counted or not
  VkDeviceSize memory_in_use(uint32_t heap) const;
  size_t allocation_count() const;  // of allocate_memory's, not freed yet
  // Timeline semaphores of streams that went, for the next streams: never destroyed before
  // the device is. Lavapipe's queue thread goes on using a semaphore for a moment after its
  // signal wakes a waiter, so a stream that destroyed its semaphore once its work was done
  // corrupted the driver's lists now and then (CTS test_events). take_timeline: null when
  // none is kept.
  VkSemaphore take_timeline();
  void keep_timeline(VkSemaphore semaphore);  // never allocates where it can help it
  // Where buffers of up to Blocks::kLargestPiece bytes get their memory (blocks.h).
  detail::Blocks& blocks() { return *blocks_; }

  // Work a new object needs once before any use (an image's first layout and its zeroed
  // texels), recorded by |record| on the device's own stream and submitted without waiting:
  // every batch that any other stream of the device submits afterwards waits for it on the
  // device (CommandStream::submit asks pending_setup). *point: the setup stream's value once
  // it is done, for wait_setup.
  VkResult setup(const std::function<void(VkCommandBuffer)>& record, uint64_t* point);
  // The setup stream's timeline and the last value submitted on it, while that is not known
  // to be reached; a null semaphore otherwise (and always for the setup stream itself).
  std::pair<VkSemaphore, uint64_t> pending_setup(VkSemaphore asking);
  void wait_setup(uint64_t point);

  // A lost device (VK_ERROR_DEVICE_LOST from the driver, or injected: CommandStream): nothing
  // more is submitted and waits return at once.
  bool lost() const { return lost_.load(); }
  void mark_lost() { lost_.store(true); }
  bool first_to_report_loss() { return !loss_reported_.exchange(true); }

 private:
  explicit Device(const DeviceInfo& info);
  std::atomic<bool> lost_{false};
  std::atomic<bool> loss_reported_{false};
  DeviceInfo info_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queues_[3] = {};
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  std::mutex queue_mutex_;
  std::mutex spares_mutex_;
  std::vector<Spare> spares_;  // oldest first
  mutable std::mutex memory_mutex_;
  std::vector<VkDeviceSize> heap_used_;
  struct Allocation {
    uint32_t heap = 0;
    VkDeviceSize size = 0;
    void* pages = nullptr;  // allocate_buffer_memory's own, unmapped when freed
    size_t page_bytes = 0;
  };
  std::unordered_map<VkDeviceMemory, Allocation> allocations_;
  // allocate_memory with |pages| (page_bytes) imported into it, or not.
  VkResult allocate(const VkMemoryAllocateInfo& info, VkDeviceMemory* out, void* pages, size_t page_bytes);
  bool within_budget(uint32_t heap, VkDeviceSize size);  // memory_mutex_ held
  void free_all_spares();  // and the empty blocks
  VkDeviceSize spare_bytes_ = 0;
  std::unique_ptr<detail::Blocks> blocks_;
  std::mutex timelines_mutex_;
  std::vector<VkSemaphore> timelines_;  // kept by keep_timeline
  void free_spare(const Spare& spare);
  // setup()'s stream, made by the first; it holds the device by a pointer that does not own
  // it, and goes first (declared last) when the device does.
  std::mutex setup_mutex_;
  std::atomic<VkSemaphore> setup_timeline_{VK_NULL_HANDLE};
  std::atomic<uint64_t> setup_submitted_{0}, setup_done_{0};
  std::unique_ptr<CommandStream> setup_stream_;
};

// A VkBuffer with its own memory, usable as storage, transfer source/destination and through
// its device address.
class CommandStream;

// The usage flags of every buffer vkcl makes.
VkBufferUsageFlags buffer_usage();

// Set in an owner (Device::Spare::owner, Buffer::create) for memory the frontend keeps for
// its own use on behalf of that owner (the state of its launches), apart from the owner's
// buffers, whose contents it must never show.
constexpr uint64_t kInternalOwner = uint64_t(1) << 62;

// The largest reusable buffer made a piece of a shared block (Blocks::kLargestPiece); larger
// ones get an allocation of their own, which goes back to the spares by its exact size.
constexpr VkDeviceSize kLargestBufferPiece = VkDeviceSize(4) << 20;

class Buffer {
 public:
  // VK_ERROR_OUT_OF_DEVICE_MEMORY / VK_ERROR_OUT_OF_HOST_MEMORY when |size| cannot be had.
  // With |reusable|, its memory goes back to the device when it goes (Device::Spare; a piece
  // of a shared block for up to Blocks::kLargestPiece bytes) and may come from there: its
  // contents start as a released buffer's of the same |owner|, which OpenCL allows.
  static VkResult create(std::shared_ptr<Device> device, VkDeviceSize size,
                         MemoryPlacement placement, std::unique_ptr<Buffer>* out,
                         bool reusable = false, uint64_t owner = 0);
  // Whether its memory may hold what another part of the process freed (allocated for it,
  // or a piece of a block that is not mapped, neither from a spare nor reused), which a new
  // CL buffer must not show: zero all of it (VK_WHOLE_SIZE).
  bool fresh() const { return fresh_; }
  // Wraps |host_pointer| (|size| bytes, both aligned to min_imported_host_pointer_alignment)
  // with VK_EXT_external_memory_host. VK_ERROR_FEATURE_NOT_PRESENT when that cannot be done.
  static VkResult import_host(std::shared_ptr<Device> device, void* host_pointer,
                              VkDeviceSize size, std::unique_ptr<Buffer>* out);
  // A buffer of |size| bytes over memory another API allocated and exported as |fd| (of
  // |type|, one of DeviceInfo::importable_buffer_handles). The caller keeps |fd| (a
  // duplicate is imported). VK_ERROR_INVALID_EXTERNAL_HANDLE when it cannot be imported.
  static VkResult import_fd(std::shared_ptr<Device> device, VkExternalMemoryHandleTypeFlagBits type,
                            int fd, VkDeviceSize size, std::unique_ptr<Buffer>* out);
  // Records the transfer of |buffer|'s memory from another API (|acquire|) or back to it: a
  // queue family ownership transfer with VK_QUEUE_FAMILY_EXTERNAL.
  VkResult external_ownership(CommandStream& stream, bool acquire) const;
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  uint64_t address() const { return address_; }  // VkDeviceAddress of byte 0
  void* mapped() const { return mapped_; }        // persistent mapping, or nullptr
  // Whether the host reads the mapping through its caches. A discrete GPU's device-local
  // memory seen through the PCI BAR is not: the CPU reads it at a small fraction of a DMA
  // copy's speed (one uncached bus read per load).
  bool host_cached() const { return host_cached_; }
  Device& device() const { return *device_; }

 private:
  Buffer() = default;
  // A buffer of |size| bytes for memory from outside (|handle_types|), not bound yet.
  static VkResult create_unbound(std::shared_ptr<Device> device, VkExternalMemoryHandleTypeFlags handle_types,
                                 VkDeviceSize size, std::unique_ptr<Buffer>* out);
  std::shared_ptr<Device> device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  uint64_t address_ = 0;
  void* mapped_ = nullptr;
  bool host_cached_ = false;
  bool reusable_ = false;
  bool fresh_ = false;  // its memory was allocated for it (not a spare's)
  // Where its memory is a piece of a block (small reusable buffers), not its own.
  detail::Block* block_ = nullptr;
  VkDeviceSize piece_offset_ = 0, piece_size_ = 0;
  uint64_t owner_ = 0;  // Device::Spare::owner
  MemoryPlacement placement_ = MemoryPlacement::DeviceLocal;
};

struct SpecConstant {
  uint32_t id;
  uint32_t value;
};

// A binding of descriptor set 0 (a kernel's images, and the uniform buffers of its __constant
// arguments).
struct DescriptorBinding {
  uint32_t binding;
  VkDescriptorType type;
};

// A compute pipeline for one translated kernel with fixed specialization constants. The layout
// has |push_constant_size| bytes of push constants and, when |descriptors| is not empty, a
// descriptor set 0 written per enqueue (bind_descriptors, image.h): push descriptors
// where the device has VK_KHR_push_descriptor, else a set allocated per enqueue.
class ComputePipeline {
 public:
  static VkResult create(std::shared_ptr<Device> device, const std::vector<uint32_t>& spirv,
                         const std::vector<SpecConstant>& spec_constants,
                         uint32_t push_constant_size, std::unique_ptr<ComputePipeline>* out) {
    return create(std::move(device), spirv, spec_constants, push_constant_size, {}, out);
  }
  static VkResult create(std::shared_ptr<Device> device, const std::vector<uint32_t>& spirv,
                         const std::vector<SpecConstant>& spec_constants,
                         uint32_t push_constant_size, const std::vector<DescriptorBinding>& descriptors,
                         std::unique_ptr<ComputePipeline>* out);
  ~ComputePipeline();
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;
  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  bool push_descriptors() const { return push_descriptors_; }
  uint32_t push_constant_size() const { return push_constant_size_; }
  // With VKCL_PIPELINE_STATS set, prints the driver's statistics of the compiled shader
  // (registers, instructions, ... as the driver names them) to stderr under |label|.
  void print_statistics(const std::string& label) const;

 private:
  ComputePipeline() = default;
  std::shared_ptr<Device> device_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  bool push_descriptors_ = false;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  uint32_t push_constant_size_ = 0;
};

// Commands captured once (CommandStream::begin_capture/end_capture) that a stream replays
// in its batch as often as wanted: a secondary command buffer of its own pool, recorded for
// simultaneous use.
class Captured {
 public:
  ~Captured();
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;

 private:
  friend class CommandStream;
  Captured() = default;
  std::shared_ptr<Device> device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
};

struct TimelineSemaphore;  // command_stream.cpp

// An ordered stream of GPU commands for one CL queue. Commands are recorded into a batch (one
// VkCommandBuffer) and submitted by submit(); each submission signals the stream's timeline
// semaphore with the next value. Not thread-safe: the owner serialises calls.
class CommandStream {
 public:
  static VkResult create(std::shared_ptr<Device> device, std::unique_ptr<CommandStream>* out,
                         QueuePriority priority = QueuePriority::Medium);
  ~CommandStream();  // waits for all submitted work
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  // Recording. Each returns an error only when a command buffer could not be had.
  VkResult dispatch(const ComputePipeline& pipeline, const void* push_constants,
                    uint32_t push_size, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z);
  // A dispatch whose group counts the device reads from |arguments| at |offset| when it runs
  // (VkDispatchIndirectCommand; zero counts dispatch nothing).
  VkResult dispatch_indirect(const ComputePipeline& pipeline, const void* push_constants,
                             uint32_t push_size, const Buffer& arguments, VkDeviceSize offset);
  VkResult copy_buffer(const Buffer& src, VkDeviceSize src_offset, const Buffer& dst,
                       VkDeviceSize dst_offset, VkDeviceSize size);
  // Fills |size| bytes at |offset| with a repeating 4-byte |pattern| (offset, size multiples
  // of 4).
  VkResult fill_buffer(const Buffer& dst, VkDeviceSize offset, VkDeviceSize size,
                       uint32_t pattern);
  // Makes everything recorded before visible to everything recorded after (compute, transfer
  // and host access). Callers insert it only between dependent commands.
  VkResult barrier();
  // The batch's command buffer (begun if need be) for one more command, for vk_backend's
  // other command families (image.h) to record into.
  VkResult command_buffer(VkCommandBuffer* out);
  // Everything recorded from begin_capture until end_capture goes into a Captured, not the
  // batch (which is left as it was). No submission may come between them.
  VkResult begin_capture();
  VkResult end_capture(std::unique_ptr<Captured>* out);  // ends the capture, also on error
  // Records |captured| into the batch.
  VkResult execute(const Captured& captured);
  // Records a timestamp; returns its slot in |*slot| for read_timestamp after completion.
  VkResult write_timestamp(uint32_t* slot);
  // Nanoseconds on the host's CLOCK_MONOTONIC scale for a completed |slot|.
  uint64_t read_timestamp(uint32_t slot) const;
  void release_timestamp(uint32_t slot);
  // Whether device timestamps have a known offset to the host's clock yet (read_timestamp
  // sets it from the first one it reads where the device cannot calibrate).
  bool timestamps_calibrated() const;

  // The batch being recorded (begun if need be) waits on the device for |other|'s timeline to
  // reach |value| before it runs: a point submitted before this batch is. The batch keeps
  // the semaphore until it has run, whenever |other| goes.
  VkResult wait_before_batch(const CommandStream& other, uint64_t value);
  bool has_pending() const;  // commands recorded but not submitted
  // Submits the batch (if any commands are pending) after waiting for |wait_points|
  // (semaphore, value) and returns in |*point| the timeline value that signals when all work
  // submitted so far is complete.
  VkResult submit(const std::vector<std::pair<VkSemaphore, uint64_t>>& wait_points,
                  uint64_t* point);
  // Timeline value of the last recorded command (submitted or not).
  uint64_t last_point() const;
  VkSemaphore timeline() const { return timeline_; }
  // Value the semaphore has reached; on a lost device UINT64_MAX (nothing is left to wait
  // for), failed() then telling which points did not complete.
  uint64_t completed_point() const;
  // Whether the work up to |point| was lost with the device.
  bool failed(uint64_t point) const;
  // Blocks until the timeline reaches |point| (submitting first if it is not submitted yet).
  VkResult wait(uint64_t point);

  struct Impl;  // recording state (command_stream.cpp)

 private:
  // Starts recording if needed, binds |pipeline| and pushes the constants.
  VkResult bind(const ComputePipeline& pipeline, const void* push_constants, uint32_t push_size);
  void calibrate();  // sets the device-to-host time offset where the driver can tell it
  CommandStream() = default;
  std::shared_ptr<Device> device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::shared_ptr<TimelineSemaphore> timeline_owner_;  // owns timeline_
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkcl::vk
