// Kernels: argument values, and the launch plan an NDRange needs (argument block, uniform
// regions of a non-uniform or oversized NDRange, pipelines specialised per local size).
#pragma once

#include <CL/cl.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "core/image.h"
#include "core/loop_limit.h"
#include "core/memory.h"
#include "core/object.h"
#include "core/printf.h"
#include "core/program.h"
#include "core/result.h"
#include "core/checked_launch.h"
#include "core/svm.h"

struct LaunchRegion {
  vkcl::vk::ComputePipeline* pipeline;
  // For a kernel that resumes: the pipeline of the launch's first dispatch, without the code
  // that restores (kSpecFirstRound), where the kernel is small enough to build twice; null
  // otherwise (|pipeline| runs every round).
  vkcl::vk::ComputePipeline* first_round = nullptr;
  vkcl::k2s::DispatchBlock dispatch;  // argument_block_address left 0
  uint32_t groups[3];
};

struct LaunchPlan {
  std::vector<LaunchRegion> regions;
  std::vector<uint8_t> arguments;
  // Bytes [pushed_offset, +pushed_size) of |arguments| follow each region's dispatch block
  // in push constants.
  uint32_t pushed_offset = 0;
  uint32_t pushed_size = 0;
  std::vector<vkcl::cl::Ref<_cl_mem>> buffers;  // and images
  // The buffer and image arguments (in |buffers| too) and whether the kernel may write each:
  // in a context of several devices their copies are made current before the launch.
  std::vector<std::pair<_cl_mem*, bool>> buffer_uses;
  std::vector<std::shared_ptr<vkcl::cl::SvmAllocation>> svm;  // SVM the kernel may reach
  // The kernel may write SVM memory through an argument: a first attempt cannot be undone.
  bool writes_svm = false;
  // The kernel's image arguments and the uniform buffers of its __constant arguments, bound
  // as descriptors before each dispatch (and the set holding them on devices without push
  // descriptors, made when the command is recorded).
  std::vector<vkcl::vk::Descriptor> descriptors;
  // Where a __constant argument's uniform buffer is bound to nothing of the application's
  // (its buffer does not fit, or it is NULL or SVM): the program's 16 bytes for that.
  std::shared_ptr<vkcl::vk::Buffer> unused_uniforms;
  // Its 2D images from buffers (in |buffers| too), and whether the kernel may write each:
  // their copies are made current before the launch and written back after it.
  std::vector<std::pair<_cl_mem*, bool>> images_from_buffers;
  // The images it may write (in |buffers| too), and, for a first attempt that may run again
  // (api/enqueue.cpp), their contents before it.
  std::vector<_cl_mem*> written_images;
  std::vector<_cl_mem*> written_buffers;  // where the kernel is rerunnable restoring buffers
  std::vector<std::unique_ptr<vkcl::vk::Buffer>> snapshots;
  std::unique_ptr<vkcl::vk::DescriptorSet> descriptor_set;
  std::shared_ptr<vkcl::vk::Buffer> program_data;
  std::shared_ptr<vkcl::cl::PrintfOutput> printf_output;  // printed when the command retires
  // Set by the kernel when the driver cut its loops short (KernelInterface::
  // loop_limit_status_offset); the command's status is read from it.
  std::shared_ptr<vkcl::cl::LoopLimitStatus> loop_limit_status;
  // Checked mode: the launch's check table, and the command's status read from it.
  std::shared_ptr<vkcl::cl::CheckReport> check;
  // A kernel that resumes: the indirect arguments of its rounds (cl::ResumeArea).
  std::shared_ptr<vkcl::vk::Buffer> resume_arguments;
  uint64_t resume_arguments_offset = 0;
  // Its loops cannot be cut short at this launch's argument values and NDRange
  // (_cl_kernel::loops_fit): the first dispatch finishes every work-item, so no rounds follow it.
  bool loops_fit = false;
  vkcl::k2s::LaunchGeometry geometry;
  // Where the plan was made without pipelines (a resuming form that runs only should the
  // plain first attempt be cut: each build is seconds to minutes on lavapipe for hashcat's
  // kernels): makes every region's.
  std::function<cl_int(LaunchPlan&)> make_pipelines;
};

struct _cl_kernel : vkcl::cl::Object<_cl_kernel, vkcl::cl::ObjectKind::Kernel> {
  struct ArgValue {
    bool set = false;
    std::vector<uint8_t> bytes;  // by-value arguments (and a sampler's CLK_* bits)
    vkcl::cl::WeakMem mem;      // buffers (null: a NULL pointer) and images
    size_t local_size = 0;       // __local arguments
    // clSetKernelArgSVMPointer: the pointer, and the allocation it points into (null: NULL).
    bool svm = false;
    uint64_t svm_address = 0;
    std::shared_ptr<vkcl::cl::SvmAllocation> svm_allocation;
    // clSetKernelArgDevicePointerEXT: the address (in |svm_address|), and the buffer holding
    // it (in |mem|; null: NULL).
    bool device_pointer = false;
  };

  vkcl::cl::Ref<_cl_program> program;
  std::string name;
  std::vector<ArgValue> args;

  static vkcl::cl::Result<_cl_kernel*> create(_cl_program* program, const std::string& name);
  vkcl::cl::Result<_cl_kernel*> clone();
  ~_cl_kernel();

  // The translated kernel for |device|, or nullptr when the program is not built for it.
  // With |plain|, its plain form (Build::plain_kernels), or nullptr when it has none.
  const vkcl::k2s::TranslatedKernel* translated(_cl_device_id* device, bool plain = false) const;
  const vkcl::k2s::KernelInterface& interface() const { return *interface_; }
  const vkcl::compiler::KernelInfo* source_info() const;
  vkcl::cl::Result<void> set_arg(cl_uint index, size_t size, const void* value);
  vkcl::cl::Result<void> set_arg_svm(cl_uint index, const void* pointer);
  // CL_KERNEL_EXEC_INFO_SVM_PTRS: allocations the kernel reaches through pointers in memory.
  vkcl::cl::Result<void> set_svm_pointers(const void* const* pointers, size_t count);
  // cl_ext_buffer_device_address: a pointer argument set to a device address inside a buffer
  // of the context made with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (0: NULL), and
  // CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, the buffers the kernel reaches through addresses in
  // memory.
  vkcl::cl::Result<void> set_arg_device_pointer(cl_uint index, uint64_t address);
  vkcl::cl::Result<void> set_device_pointers(const cl_mem_device_address_ext* addresses, size_t count);
  uint64_t local_memory_size() const;
  // Whether a launch of |geometry| with the arguments set now makes so few loop passes per
  // work-item (KernelInterface::counted_loops) that the device's loop limit cannot cut it short.
  bool loops_fit(_cl_device_id* device, const vkcl::k2s::LaunchGeometry& geometry);
  bool all_args_set();  // static plus the __local arguments set now
  // The local size a launch without one gets, for |work_dim| sizes of |global| (none zero),
  // where the kernel has no required work-group size.
  void chosen_local_size(_cl_device_id* device, cl_uint work_dim, const size_t* global, size_t* local) const;
  vkcl::cl::Result<LaunchPlan> plan_launch(_cl_device_id* device, cl_uint work_dim,
                                          const size_t* offset, const size_t* global,
                                          const size_t* local, bool plain = false,
                                          bool defer_pipelines = false);

 private:
  // What a pipeline may take as known of the regions it runs (the kSpecNoGlobalOffset,
  // kSpecRegionAtOrigin and kSpecWholeGroups specializations).
  struct RegionFacts {
    bool no_global_offset = false, at_origin = false, whole_groups = false;
    auto tuple() const { return std::make_tuple(no_global_offset, at_origin, whole_groups); }
  };
  vkcl::cl::Result<vkcl::vk::ComputePipeline*> pipeline(_cl_device_id* device,
                                                        const std::array<uint32_t, 3>& local, uint32_t packed,
                                                        uint32_t local_words, bool zero_local,
                                                        bool first_round, bool plain, const std::map<uint32_t, uint32_t>& typed_images,
                                                        RegionFacts facts, uint64_t constant_buffers);
  // How many of a launch's work-groups of |local| size each Vulkan workgroup runs
  // (k2s::kSpecPackedGroups): 1, or a power of two where the kernel is packable and the launch
  // has no __local memory (|local_bytes|).
  uint32_t packed_groups(_cl_device_id* device, const vkcl::k2s::KernelInterface& ki, const size_t* local,
                         size_t full_groups_x, uint64_t local_bytes) const;
  const vkcl::k2s::KernelInterface* interface_ = nullptr;
  std::mutex mutex_;
  std::vector<std::shared_ptr<vkcl::cl::SvmAllocation>> svm_pointers_;
  std::vector<vkcl::cl::WeakMem> device_pointer_buffers_;
  std::shared_ptr<vkcl::cl::StatusWordPool> status_words_;
  // loops_fit's last answer, and the device, NDRange and argument values it was for.
  bool fit_counted_ = false, fit_ = false;
  _cl_device_id* fit_device_ = nullptr;
  vkcl::k2s::LaunchGeometry fit_geometry_;
  std::vector<std::optional<uint64_t>> fit_values_;

};

namespace vkcl::cl {
using Kernel = _cl_kernel;
}
