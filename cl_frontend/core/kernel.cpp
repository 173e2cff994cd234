#include "core/kernel.h"

#include <cstring>

#include "core/image_format.h"
#include "core/sampler.h"

using namespace vkcl;

cl::Result<_cl_kernel*> _cl_kernel::create(_cl_program* program, const std::string& name) {
  const k2s::KernelInterface* found = nullptr;
  for (_cl_device_id* d : program->devices) {
    const _cl_program::Build* b = program->build_for(d);
    if (!b || b->status != CL_BUILD_SUCCESS) continue;
    for (const auto& k : b->kernels)
      if (k.interface.name == name) found = &k.interface;
    if (found) break;
  }
  // CL_INVALID_KERNEL_NAME if kernel_name is not found in program.
  if (!found) return cl::Error{CL_INVALID_KERNEL_NAME};
  auto k = cl::Ref<_cl_kernel>::adopt(new _cl_kernel());
  k->program = cl::Ref<_cl_program>(program);
  k->name = name;
  k->status_words_ = std::make_shared<cl::StatusWordPool>(name, program->context->spare_owner);
  k->interface_ = found;
  k->args.resize(found->args.size());
  program->kernels_attached++;
  return k.release_to_api();
}

cl::Result<_cl_kernel*> _cl_kernel::clone() {
  auto copy = create(program.get(), name);
  if (!copy) return copy;
  // "a shallow copy of the kernel object, its arguments and any information passed to the
  // kernel object using clSetKernelExecInfo".
  std::lock_guard<std::mutex> lock(mutex_);
  (*copy)->args = args;
  (*copy)->svm_pointers_ = svm_pointers_;
  (*copy)->device_pointer_buffers_ = device_pointer_buffers_;
  return copy;
}

_cl_kernel::~_cl_kernel() {
  if (program) program->kernels_attached--;
}

const k2s::TranslatedKernel* _cl_kernel::translated(_cl_device_id* device, bool plain) const {
  const _cl_program::Build* b = program->build_for(device);
  if (!b || b->status != CL_BUILD_SUCCESS) return nullptr;
  for (const auto& k : plain ? b->plain_kernels : b->kernels)
    if (k.interface.name == name) return &k;
  return nullptr;
}

const compiler::KernelInfo* _cl_kernel::source_info() const {
  // Builds from OpenCL C have it, and so do programs clLinkProgram made from them.
  for (_cl_device_id* d : program->devices) {
    const _cl_program::Build* b = program->build_for(d);
    if (!b) continue;
    for (const auto& k : b->kernel_info)
      if (k.name == name) return &k;
  }
  return nullptr;
}

namespace {

cl_mem_object_type cl_image_type(k2s::ImageDim d) {
  switch (d) {
    case k2s::ImageDim::k1D: return CL_MEM_OBJECT_IMAGE1D;
    case k2s::ImageDim::k1DArray: return CL_MEM_OBJECT_IMAGE1D_ARRAY;
    case k2s::ImageDim::k2D: return CL_MEM_OBJECT_IMAGE2D;
    case k2s::ImageDim::k2DArray: return CL_MEM_OBJECT_IMAGE2D_ARRAY;
    case k2s::ImageDim::k3D: return CL_MEM_OBJECT_IMAGE3D;
    case k2s::ImageDim::k1DBuffer: return CL_MEM_OBJECT_IMAGE1D_BUFFER;
  }
  return 0;
}

k2s::ImageTexel texel_of(cl_channel_type t) {
  switch (t) {
    case CL_SIGNED_INT8: case CL_SIGNED_INT16: case CL_SIGNED_INT32: return k2s::ImageTexel::Int;
    case CL_UNSIGNED_INT8: case CL_UNSIGNED_INT16: case CL_UNSIGNED_INT32: return k2s::ImageTexel::UInt;
    default: return k2s::ImageTexel::Float;
  }
}

// Components of Vulkan's size query of an image of |d|: (width, height or layers, depth or
// layers), which are the API's width(), height(), depth() (rows are a 1D array's layers,
// slices a 2D array's).
uint32_t image_size_count(k2s::ImageDim d) {
  switch (d) {
    case k2s::ImageDim::k1D: case k2s::ImageDim::k1DBuffer: return 1;
    case k2s::ImageDim::k1DArray: case k2s::ImageDim::k2D: return 2;
    default: return 3;
  }
}

VkDescriptorType descriptor_type(const k2s::KernelArg& a) {
  const bool read_only = a.image_access == k2s::ImageAccess::ReadOnly;
  if (a.image_dim == k2s::ImageDim::k1DBuffer)
    return read_only ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
  return read_only ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
}

}  // namespace

bool _cl_kernel::loops_fit(_cl_device_id* device, const k2s::LaunchGeometry& geometry) {
  const k2s::TranslatedKernel* t = translated(device);
  if (!t || t->interface.counted_loops.empty()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  auto value = [&](uint32_t index) -> std::optional<uint64_t> {
    if (index >= args.size() || !args[index].set || args[index].bytes.empty() || args[index].bytes.size() > 8)
      return std::nullopt;
    uint64_t v = 0;
    std::memcpy(&v, args[index].bytes.data(), args[index].bytes.size());
    return v;
  };
  // Counting runs the loops' tests (up to 16384 steps, tens of microseconds; 2^18 where a
  // loop is counted work-group by work-group): the answer for the values last counted is
  // kept, for the launches that repeat them.
  // (Compared in place: a repeated launch allocates nothing.)
  bool same = fit_counted_ && fit_device_ == device && fit_geometry_ == geometry;
  size_t at = 0;
  auto each_argument = [&](auto&& f) {
    for (const k2s::CountedLoop& c : t->interface.counted_loops)
      for (const auto* terms : {&c.start, &c.step, &c.bound})
        for (const k2s::LaunchTerm& term : *terms)
          if (term.op == k2s::LaunchTerm::kArgument) f(uint32_t(term.value));
  };
  each_argument([&](uint32_t a) { same = same && at < fit_values_.size() && fit_values_[at++] == value(a); });
  if (same && at == fit_values_.size()) return fit_;
  fit_values_.clear();
  each_argument([&](uint32_t a) { fit_values_.push_back(value(a)); });
  fit_ = k2s::count_loop_passes(t->interface.counted_loops, value, &geometry).has_value();
  fit_counted_ = true;
  fit_device_ = device;
  fit_geometry_ = geometry;
  return fit_;
}

cl::Result<void> _cl_kernel::set_arg(cl_uint index, size_t size, const void* value) {
  // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
  if (index >= args.size()) return cl::Error{CL_INVALID_ARG_INDEX};
  const k2s::KernelArg& arg = interface_->args[index];
  ArgValue v;
  switch (arg.kind) {
    case k2s::ArgKind::GlobalPointer: {
      // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
      // argument that is a memory object.
      if (size != sizeof(cl_mem)) return cl::Error{CL_INVALID_ARG_SIZE};
      cl_mem m = value ? *static_cast<const cl_mem*>(value) : nullptr;
      if (m) {
        // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
        // specified arg_value is not a valid memory object.
        // (An image is not a buffer: kernels cannot take images yet.)
        if (!cl::validate(m) || m->image || m->context.get() != program->context.get())
          return cl::Error{CL_INVALID_MEM_OBJECT};
        v.mem = cl::WeakMem(m);
      }
      break;
    }
    case k2s::ArgKind::LocalPointer:
      // CL_INVALID_ARG_VALUE if the argument is declared with the local qualifier and
      // arg_value is not NULL.
      if (value) return cl::Error{CL_INVALID_ARG_VALUE};
      // CL_INVALID_ARG_SIZE if arg_size is zero and the argument is declared with the local
      // qualifier.
      if (size == 0) return cl::Error{CL_INVALID_ARG_SIZE};
      v.local_size = size;
      break;
    case k2s::ArgKind::ByValue:
      // CL_INVALID_ARG_VALUE if arg_value specified is NULL for an argument that is not
      // declared with the local qualifier.
      if (!value) return cl::Error{CL_INVALID_ARG_VALUE};
      if (size != arg.size) return cl::Error{CL_INVALID_ARG_SIZE};
      v.bytes.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
      break;
    case k2s::ArgKind::Image: {
      // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
      // argument that is a memory object.
      if (size != sizeof(cl_mem)) return cl::Error{CL_INVALID_ARG_SIZE};
      // CL_INVALID_ARG_VALUE if arg_value specified is NULL for an argument that is not
      // declared with the local qualifier.
      if (!value) return cl::Error{CL_INVALID_ARG_VALUE};
      cl_mem m = *static_cast<const cl_mem*>(value);
      // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
      // specified arg_value is not a valid memory object or the memory object type does
      // not match the kernel argument's type.
      if (!cl::validate(m) || !m->image || m->context.get() != program->context.get() ||
          !(m->image->storage || m->image->texel_view) || m->image->desc.image_type != cl_image_type(arg.image_dim))
        return cl::Error{CL_INVALID_MEM_OBJECT};
      // CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only
      // qualifier and arg_value refers to an image object created with cl_mem_flags of
      // CL_MEM_WRITE_ONLY or if the image argument is declared with the write_only qualifier
      // and arg_value refers to an image object created with cl_mem_flags of
      // CL_MEM_READ_ONLY.
      if ((arg.image_access == k2s::ImageAccess::ReadOnly && (m->flags & CL_MEM_WRITE_ONLY)) ||
          (arg.image_access == k2s::ImageAccess::WriteOnly && (m->flags & CL_MEM_READ_ONLY)) ||
          (arg.image_access == k2s::ImageAccess::ReadWrite && (m->flags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY))))
        return cl::Error{CL_INVALID_ARG_VALUE};
      // Reading an image of an integer format with read_imagef, or the other way round, is
      // undefined; Vulkan forbids binding such a view, so vkcl refuses it here.
      if (arg.image_texel_used && texel_of(m->image->format.image_channel_data_type) != arg.image_texel)
        return cl::Error{CL_INVALID_ARG_VALUE};
      // A read_write image is a storage image of its format where the devices cannot read
      // format Unknown: one SPIR-V has no name for (CL_BGRA, ...) cannot be one. Nor can one
      // read through a swizzle (CL_INTENSITY, ...): storage views have none, and such formats
      // are not listed for CL_MEM_KERNEL_READ_AND_WRITE.
      if (arg.image_access == k2s::ImageAccess::ReadWrite && arg.image_texel_used) {
        const cl::VulkanFormat vf = cl::vulkan_format(m->image->format);
        if (vf.swizzled) return cl::Error{CL_INVALID_ARG_VALUE};
        for (const auto& d : program->context->devices)
          if (!cl::read_write_runs(d->vk_info(), m->image->desc.image_type, vf.format))
            return cl::Error{CL_INVALID_ARG_VALUE};
      }
      // The view must be what the descriptor needs (a 1D buffer image's format was checked
      // for both kinds of texel buffer its flags allow).
      VkImageUsageFlags usage = m->image->storage ? m->image->storage->usage() : 0;
      if (arg.binding != UINT32_MAX && m->image->storage &&
          (!m->image->storage->view() ||
           !(usage & (arg.image_access == k2s::ImageAccess::ReadOnly ? VK_IMAGE_USAGE_SAMPLED_BIT
                                                                     : VK_IMAGE_USAGE_STORAGE_BIT))))
        return cl::Error{CL_INVALID_ARG_VALUE};
      v.mem = cl::WeakMem(m);
      break;
    }
    case k2s::ArgKind::Sampler: {
      // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
      // argument that is ... a sampler.
      if (size != sizeof(cl_sampler)) return cl::Error{CL_INVALID_ARG_SIZE};
      // CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the
      // specified arg_value is not a valid sampler object.
      if (!value) return cl::Error{CL_INVALID_SAMPLER};
      cl_sampler s = *static_cast<const cl_sampler*>(value);
      if (!cl::validate(s) || s->context.get() != program->context.get())
        return cl::Error{CL_INVALID_SAMPLER};
      uint32_t bits = s->bits();
      v.bytes.assign(reinterpret_cast<const uint8_t*>(&bits), reinterpret_cast<const uint8_t*>(&bits) + 4);
      break;
    }
    default:
      return cl::Error{CL_INVALID_ARG_VALUE};
  }
  v.set = true;
  std::lock_guard<std::mutex> lock(mutex_);
  args[index] = std::move(v);
  return {};
}

cl::Result<void> _cl_kernel::set_arg_svm(cl_uint index, const void* pointer) {
  // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
  if (index >= args.size()) return cl::Error{CL_INVALID_ARG_INDEX};
  // CL_INVALID_ARG_VALUE if arg_value specified is not a valid value: only pointers to global
  // or constant memory take SVM pointers, and only pointers into this context's SVM (a kernel
  // reaches no other memory).
  if (interface_->args[index].kind != k2s::ArgKind::GlobalPointer) return cl::Error{CL_INVALID_ARG_VALUE};
  ArgValue v;
  v.set = v.svm = true;
  if (pointer) {
    v.svm_allocation = program->context->svm.find(pointer);
    if (!v.svm_allocation) return cl::Error{CL_INVALID_ARG_VALUE};
    v.svm_address = reinterpret_cast<uintptr_t>(pointer);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  args[index] = std::move(v);
  return {};
}

cl::Result<void> _cl_kernel::set_arg_device_pointer(cl_uint index, uint64_t address) {
  // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
  if (index >= args.size()) return cl::Error{CL_INVALID_ARG_INDEX};
  // CL_INVALID_ARG_VALUE if the argument is not a pointer to global or constant memory, or
  // the address is in no buffer of the context with a device address (a kernel reaches no
  // other memory).
  if (interface_->args[index].kind != k2s::ArgKind::GlobalPointer) return cl::Error{CL_INVALID_ARG_VALUE};
  ArgValue v;
  v.set = v.device_pointer = true;
  if (address) {
    cl::Ref<_cl_mem> buffer = cl::find_addressed(program->context.get(), address);
    if (!buffer) return cl::Error{CL_INVALID_ARG_VALUE};
    v.mem = cl::WeakMem(buffer.get());
    v.svm_address = address;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  args[index] = std::move(v);
  return {};
}

cl::Result<void> _cl_kernel::set_device_pointers(const cl_mem_device_address_ext* addresses, size_t count) {
  std::vector<cl::WeakMem> found;
  for (size_t i = 0; i < count; ++i) {
    cl::Ref<_cl_mem> buffer = cl::find_addressed(program->context.get(), addresses[i]);
    // CL_INVALID_VALUE if ... param_value is not valid.
    if (!buffer) return cl::Error{CL_INVALID_VALUE};
    found.emplace_back(buffer.get());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  device_pointer_buffers_ = std::move(found);
  return {};
}

cl::Result<void> _cl_kernel::set_svm_pointers(const void* const* pointers, size_t count) {
  std::vector<std::shared_ptr<cl::SvmAllocation>> found;
  for (size_t i = 0; i < count; ++i) {
    auto a = program->context->svm.find(pointers[i]);
    // CL_INVALID_VALUE if ... param_value is not valid.
    if (!a) return cl::Error{CL_INVALID_VALUE};
    found.push_back(std::move(a));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  svm_pointers_ = std::move(found);
  return {};
}

bool _cl_kernel::all_args_set() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& a : args)
    if (!a.set) return false;
  return true;
}

uint64_t _cl_kernel::local_memory_size() const {
  uint64_t total = interface_->static_local_memory_size;
  for (const auto& a : args)
    if (a.local_size) total = (total + 127) / 128 * 128 + a.local_size;
  return total;
}

cl::Result<vk::ComputePipeline*> _cl_kernel::pipeline(_cl_device_id* device,
                                                      const std::array<uint32_t, 3>& local, uint32_t packed,
                                                      uint32_t words, bool zero_local, bool first_round,
                                                      bool plain,
                                                      const std::map<uint32_t, uint32_t>& typed_images,
                                                      RegionFacts facts, uint64_t constant_buffers) {
  const _cl_program::Build* b = program->build_for(device);
  const k2s::TranslatedKernel* t = translated(device, plain);
  if (!b || !t) return cl::Error{CL_INVALID_PROGRAM_EXECUTABLE};
  _cl_program::Build::Pipelines& cache = *b->pipelines;
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto key = std::make_tuple(name, local[0], local[1], local[2], packed, words, zero_local, first_round, plain,
                             typed_images, facts.tuple(), constant_buffers);
  auto it = cache.by_kernel.find(key);
  if (it != cache.by_kernel.end()) return it->second.get();
  auto vkdev = program->context->vk_device(device);
  if (!vkdev) return cl::Error{vkdev.error()};
  std::vector<vk::DescriptorBinding> descriptors;
  std::vector<vk::SpecConstant> specialization = {
      {k2s::kSpecLocalSizeX, local[0]}, {k2s::kSpecLocalSizeY, local[1]},
      {k2s::kSpecLocalSizeZ, local[2]}, {k2s::kSpecLocalMemoryWords, words},
      {k2s::kSpecFirstRound, first_round ? 1u : 0u}, {k2s::kSpecZeroLocalMemory, zero_local ? 1u : 0u},
      {k2s::kSpecPackedGroups, packed}, {k2s::kSpecNoGlobalOffset, facts.no_global_offset ? 1u : 0u},
      {k2s::kSpecRegionAtOrigin, facts.at_origin ? 1u : 0u}, {k2s::kSpecWholeGroups, facts.whole_groups ? 1u : 0u}};
  for (const k2s::KernelArg& a : t->interface.args)
    if (a.kind == k2s::ArgKind::Image && a.binding != UINT32_MAX) {
      descriptors.push_back({a.binding, descriptor_type(a)});
    } else if (a.kind == k2s::ArgKind::GlobalPointer && a.binding != UINT32_MAX) {
      descriptors.push_back({a.binding, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER});
      specialization.push_back({k2s::kSpecConstantBuffer + a.binding, uint32_t(constant_buffers >> a.binding & 1)});
    }
  if (uint32_t b = t->interface.program_constants_binding; b != UINT32_MAX) {
    descriptors.push_back({b, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER});
    specialization.push_back({k2s::kSpecConstantBuffer + b, uint32_t(constant_buffers >> b & 1)});
  }
  std::unique_ptr<vk::ComputePipeline> p;
  VkResult r = vk::ComputePipeline::create(
      *vkdev, typed_images.empty() ? t->shader : k2s::type_storage_images(t->shader, typed_images),
      specialization, t->interface.push_constant_size, descriptors, &p);
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  p->print_statistics(name + " local " + std::to_string(local[0]) + "x" + std::to_string(local[1]) + "x" +
                      std::to_string(local[2]) + (packed > 1 ? " (" + std::to_string(packed) + " groups)" : ""));
  vk::ComputePipeline* raw = p.get();
  cache.by_kernel[key] = std::move(p);
  return raw;
}

// Work-groups smaller than this run side by side in Vulkan workgroups of about this many
// work-items, where the kernel cannot tell (KernelInterface::packable). On llvmpipe a Vulkan
// workgroup is one task of batches of 8 lanes: hashcat's groups of one work-item (what it asks
// of every CPU device) ran at 5.2 MH/s (MD5) and at 39 and 82 MH/s in groups of 8 and 64.
constexpr size_t kPackedWorkItems = 64;

uint32_t _cl_kernel::packed_groups(_cl_device_id* device, const k2s::KernelInterface& ki, const size_t* local,
                                   size_t full_groups_x, uint64_t local_bytes) const {
  // (A kernel that resumes keeps each work-item's record at its OpenCL ids, and each round
  // dispatches the same Vulkan workgroups again: packed or not, the same.)
  if (!ki.packable || local_bytes > 0) return 1;
  const size_t items = local[0] * local[1] * local[2];
  const auto& limits = device->vk_info().properties.limits;
  // One packing per local size, whatever the number of groups: each packing is a pipeline of
  // its own, and a driver's build of a large kernel takes seconds (hashcat, timing its first
  // launches of a new size, gave up on one that built then). A launch of fewer groups leaves
  // the rest of its one Vulkan workgroup idle, which costs llvmpipe a test per batch.
  uint32_t packed = 1;
  while (full_groups_x > 0 && items * packed * 2 <= kPackedWorkItems &&
         local[0] * packed * 2 <= limits.maxComputeWorkGroupSize[0] &&
         items * packed * 2 <= limits.maxComputeWorkGroupInvocations)
    packed *= 2;
  return packed;
}

void _cl_kernel::chosen_local_size(_cl_device_id* device, cl_uint work_dim, const size_t* global,
                                   size_t* local) const {
  auto max_items = device->max_work_item_sizes();
  // The largest divisor of each global size that fits what is left of a 256 budget.
  size_t budget = std::min<size_t>({256, device->max_work_group_size(), 1024});
  for (cl_uint d = 0; d < work_dim; ++d) {
    size_t best = 1;
    size_t limit = std::min(budget, max_items[d]);
    for (size_t c = std::min(limit, global[d]); c >= 1; --c)
      if (global[d] % c == 0) { best = c; break; }
    local[d] = best;
    budget /= best;
  }
}

cl::Result<LaunchPlan> _cl_kernel::plan_launch(_cl_device_id* device, cl_uint work_dim,
                                              const size_t* offset, const size_t* global,
                                              const size_t* local, bool plain, bool defer_pipelines) {
  const k2s::TranslatedKernel* t = translated(device, plain);
  // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built program executable
  // available for device associated with command_queue.
  if (!t) return cl::Error{CL_INVALID_PROGRAM_EXECUTABLE};
  const k2s::KernelInterface& ki = t->interface;
  const _cl_program::Build* build = program->build_for(device);
  LaunchPlan plan;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& a : args)
      // CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified.
      if (!a.set) return cl::Error{CL_INVALID_KERNEL_ARGS};
  }
  size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1}, o[3] = {0, 0, 0};
  for (cl_uint d = 0; d < work_dim; ++d) {
    g[d] = global[d];
    if (offset) o[d] = offset[d];
    // The dispatch block carries 32-bit sizes and ids.
    if (g[d] > UINT32_MAX || o[d] > UINT32_MAX || g[d] + o[d] > UINT32_MAX)
      return cl::Error{CL_INVALID_GLOBAL_WORK_SIZE};
  }
  auto max_items = device->max_work_item_sizes();
  size_t max_group = std::min<size_t>(device->max_work_group_size(), 1024);
  if (local) {
    size_t product = 1;
    for (cl_uint d = 0; d < work_dim; ++d) {
      // CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and any of its values
      // is zero (the 3.0 rule for a non-zero global size).
      if (local[d] == 0) return cl::Error{CL_INVALID_WORK_GROUP_SIZE};
      // CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any of
      // local_work_size[0], ... local_work_size[work_dim - 1] is greater than the
      // corresponding values specified by CL_DEVICE_MAX_WORK_ITEM_SIZES.
      if (local[d] > max_items[d]) return cl::Error{CL_INVALID_WORK_ITEM_SIZE};
      l[d] = local[d];
      product *= local[d];
    }
    // CL_INVALID_WORK_GROUP_SIZE if the total number of work-items in the work-group
    // exceeds the kernel's work-group size.
    if (product > max_group) return cl::Error{CL_INVALID_WORK_GROUP_SIZE};
    if (ki.required_work_group_size) {
      // CL_INVALID_WORK_GROUP_SIZE if local_work_size does not match the work-group size
      // specified with the reqd_work_group_size attribute.
      for (int d = 0; d < 3; ++d)
        if (l[d] != (*ki.required_work_group_size)[d]) return cl::Error{CL_INVALID_WORK_GROUP_SIZE};
    }
    bool non_uniform_allowed = build->language_version >= 200 && !build->uniform_work_group_size;
    for (cl_uint d = 0; d < work_dim; ++d)
      // CL_INVALID_WORK_GROUP_SIZE if the program was compiled for OpenCL C 1.x (or with
      // -cl-uniform-work-group-size) and the global size is not a multiple of the local size.
      if (g[d] % l[d] && !non_uniform_allowed) return cl::Error{CL_INVALID_WORK_GROUP_SIZE};
  } else if (ki.required_work_group_size) {
    for (int d = 0; d < 3; ++d) l[d] = (*ki.required_work_group_size)[d];
    for (cl_uint d = 0; d < work_dim; ++d)
      if (g[d] % l[d]) return cl::Error{CL_INVALID_WORK_GROUP_SIZE};
  } else {
    chosen_local_size(device, work_dim, g, l);
  }
  for (cl_uint d = 0; d < work_dim; ++d)
    if (g[d] == 0) return plan;  // an empty NDRange runs nothing
  plan.geometry.work_dim = work_dim;
  for (int d = 0; d < 3; ++d) {
    plan.geometry.offset[d] = o[d];
    plan.geometry.global[d] = g[d];
    plan.geometry.local[d] = l[d];
  }

  // Argument block and local memory layout.
  plan.arguments.assign(ki.argument_block_size, 0);
  uint64_t local_bytes = ki.static_local_memory_size;
  std::map<uint32_t, uint32_t> typed_images;  // binding -> spv::ImageFormat
  // Bit k: __constant argument k's uniform buffer is its buffer (k2s::kSpecConstantBuffer).
  uint64_t constant_buffers = 0;
  // Binds uniform buffer |binding| (where the kernel reads one: a __constant argument's, or
  // the program's data) to |size| bytes of |buffer| from |offset| where they fit one, else
  // to bytes of the launch's own: its loads then read the device address.
  auto bind_uniforms = [&](uint32_t binding, const vk::Buffer* buffer, size_t offset, size_t size) -> cl_int {
    if (binding == UINT32_MAX) return CL_SUCCESS;
    const VkPhysicalDeviceLimits& limits = device->vk_info().properties.limits;
    if (buffer && size <= device->constant_buffer_bytes() && offset % limits.minUniformBufferOffsetAlignment == 0) {
      plan.descriptors.push_back({binding, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, VK_NULL_HANDLE,
                                  buffer->handle(), offset, size});
      constant_buffers |= uint64_t(1) << binding;
      return CL_SUCCESS;
    }
    if (!plan.unused_uniforms) {
      auto unused = program->unused_uniforms(device);
      if (!unused) return unused.error();
      plan.unused_uniforms = *unused;
    }
    plan.descriptors.push_back({binding, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, VK_NULL_HANDLE,
                                plan.unused_uniforms->handle(), 0, 16});
    return CL_SUCCESS;
  };
  auto bind_constant_buffer = [&](const k2s::KernelArg& a, _cl_mem* mem) {
    return mem ? bind_uniforms(a.binding, &mem->buffer_on(device), mem->offset, mem->size)
               : bind_uniforms(a.binding, nullptr, 0, 0);
  };
  const bool checked = ki.check_table_offset != UINT32_MAX;
  cl::CheckReport::Launch check{name, ki.check_sites, ki.check_site_arguments, {}, {}, 0,
                                ki.private_memory_size};
  if (checked && ki.static_local_memory_size)
    check.local.push_back({"the kernel's __local variables", 0, ki.static_local_memory_size, k2s::kCheckLocalVariables});
  // "argument 1 'a'" (the name where the program kept it).
  const compiler::KernelInfo* info = source_info();
  auto arg_name = [&](size_t i) {
    std::string n = "argument " + std::to_string(i);
    if (info && i < info->args.size() && !info->args[i].name.empty()) n += " '" + info->args[i].name + "'";
    return n;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    plan.svm = svm_pointers_;
    // Buffers reached through device addresses in memory: kept, made current, checked.
    for (const cl::WeakMem& w : device_pointer_buffers_) {
      cl::Ref<_cl_mem> mem = w.lock();
      if (!mem) continue;
      if (checked) {
        const uint64_t start = mem->device_address(device);
        check.global.push_back({"a buffer in CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT", start, start + mem->size, UINT32_MAX});
      }
      plan.buffer_uses.push_back({mem.get(), true});
      plan.buffers.push_back(std::move(mem));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const k2s::KernelArg& a = ki.args[i];
      const ArgValue& v = args[i];
      if (a.kind == k2s::ArgKind::GlobalPointer && v.device_pointer) {
        std::memcpy(&plan.arguments[a.offset], &v.svm_address, 8);
        cl::Ref<_cl_mem> mem = v.mem.lock();
        // The buffer was released since: the argument no longer has a value.
        if (v.mem && !mem) return cl::Error{CL_INVALID_KERNEL_ARGS};
        if (cl_int e = bind_constant_buffer(a, nullptr)) return cl::Error{e};  // may point inside it
        if (!mem) continue;
        if (ki.rerunnable_restoring_buffers && !a.read_only) plan.written_buffers.push_back(mem.get());
        if (checked) {
          const uint64_t start = mem->device_address(device);
          check.global.push_back({arg_name(i) + " (a buffer's device address)", start, start + mem->size, uint32_t(i)});
        }
        plan.buffer_uses.push_back({mem.get(), !a.read_only});
        plan.buffers.push_back(std::move(mem));
      } else if (a.kind == k2s::ArgKind::GlobalPointer && v.svm) {
        std::memcpy(&plan.arguments[a.offset], &v.svm_address, 8);
        if (cl_int e = bind_constant_buffer(a, nullptr)) return cl::Error{e};
        if (v.svm_allocation) plan.svm.push_back(v.svm_allocation);
        if (checked && v.svm_allocation)
          check.global.push_back({arg_name(i) + " (an SVM allocation)",
                                  v.svm_allocation->buffer->address() + v.svm_allocation->offset_in_buffer(),
                                  v.svm_allocation->buffer->address() + v.svm_allocation->offset_in_buffer() +
                                      v.svm_allocation->size, uint32_t(i)});
        plan.writes_svm = plan.writes_svm || (v.svm_allocation && !a.read_only && !ki.rerunnable);
      } else if (a.kind == k2s::ArgKind::GlobalPointer) {
        cl::Ref<_cl_mem> mem = v.mem.lock();
        // The buffer was released since it was set: the argument no longer has a value.
        if (v.mem && !mem) return cl::Error{CL_INVALID_KERNEL_ARGS};
        if (mem)
          if (cl_int e = mem->ensure_on(device)) return cl::Error{e};
        uint64_t address = mem ? mem->device_address(device) : 0;
        std::memcpy(&plan.arguments[a.offset], &address, 8);
        if (cl_int e = bind_constant_buffer(a, mem.get())) return cl::Error{e};
        if (mem && ki.rerunnable_restoring_buffers && !a.read_only) plan.written_buffers.push_back(mem.get());
        if (checked && mem) check.global.push_back({arg_name(i) + " (a buffer)", address, address + mem->size, uint32_t(i)});
        if (mem) plan.buffer_uses.push_back({mem.get(), !a.read_only});
        if (mem) plan.buffers.push_back(std::move(mem));
      } else if (a.kind == k2s::ArgKind::Image) {
        cl::Ref<_cl_mem> mem = v.mem.lock();
        // The image was released since it was set: the argument no longer has a value.
        if (!mem) return cl::Error{CL_INVALID_KERNEL_ARGS};
        // The image's channel data type and order as SPIR-V numbers them, and its size as
        // Vulkan queries it (KernelArg::Image).
        const cl::Image& image = *mem->image;
        uint32_t words[6] = {uint32_t(image.format.image_channel_data_type - CL_SNORM_INT8),
                             uint32_t(image.format.image_channel_order - CL_R), 0, 0, 0, 0};
        size_t sizes[3] = {image.width(), image.height(), image.depth()};
        for (uint32_t d = 0, n = image_size_count(a.image_dim); d < n; ++d) words[2 + d] = uint32_t(sizes[d]);
        std::memcpy(&plan.arguments[a.offset], words, sizeof words);
        if (mem->image->storage)
          if (cl_int e = mem->image->ensure_on(*program->context, device)) return cl::Error{e};
        if (a.binding != UINT32_MAX)
          plan.descriptors.push_back({a.binding, descriptor_type(a),
                                      mem->image->storage ? &mem->image->on(*program->context, device) : nullptr,
                                      mem->image->texel_view_on(*program->context, device)});
        plan.buffer_uses.push_back({mem.get(), a.image_access != k2s::ImageAccess::ReadOnly});
        if (a.binding != UINT32_MAX && a.image_access != k2s::ImageAccess::ReadOnly)
          plan.written_images.push_back(mem.get());
        // A read_write image the device cannot read as format Unknown: the pipeline names
        // its format (set_arg checked there is one).
        VkFormat vf = cl::vulkan_format(image.format).format;
        if (a.binding != UINT32_MAX && a.image_access == k2s::ImageAccess::ReadWrite &&
            cl::read_write_typed(device->vk_info(), image.desc.image_type, vf))
          typed_images[a.binding] = cl::spirv_image_format(vf);
        if (a.binding != UINT32_MAX && mem->image->from_buffer())
          plan.images_from_buffers.push_back({mem.get(), a.image_access != k2s::ImageAccess::ReadOnly});
        plan.buffers.push_back(std::move(mem));
      } else if (a.kind == k2s::ArgKind::LocalPointer) {
        // CL_OUT_OF_RESOURCES (below) for more local memory than the device has, before the
        // sum could wrap around.
        if (v.local_size > device->vk_info().properties.limits.maxComputeSharedMemorySize)
          return cl::Error{CL_OUT_OF_RESOURCES};
        // Any OpenCL type fits: the largest alignment is 128 bytes (long16, double16).
        local_bytes = (local_bytes + 127) / 128 * 128;
        uint32_t at = uint32_t(local_bytes);
        std::memcpy(&plan.arguments[a.offset], &at, 4);
        local_bytes += v.local_size;
        if (checked) check.local.push_back({arg_name(i) + " (__local)", at, local_bytes, uint32_t(i)});
      } else {
        std::memcpy(&plan.arguments[a.offset], v.bytes.data(), v.bytes.size());
      }
    }
  }
  if (ki.program_data_address_offset != UINT32_MAX) {
    auto data = program->data_buffer(device);
    if (!data) return cl::Error{data.error()};
    plan.program_data = *data;
    uint64_t address = plan.program_data->address();
    std::memcpy(&plan.arguments[ki.program_data_address_offset], &address, 8);
    if (cl_int e = bind_uniforms(ki.program_constants_binding, plan.program_data.get(), 0, plan.program_data->size()))
      return cl::Error{e};
    if (checked)
      check.global.push_back({"the program's __global and __constant variables", address,
                              address + plan.program_data->size(), k2s::kCheckProgramVariables});
  }
  if (checked) {
    for (const auto& s : plan.svm)
      check.global.push_back({"an SVM allocation the kernel may use",
                              s->buffer->address() + s->offset_in_buffer(),
                              s->buffer->address() + s->offset_in_buffer() + s->size});
    check.local_bytes = local_bytes;
    local_bytes += k2s::kCheckSinkBytes;
    auto vk_device = program->context->vk_device(device);
    if (!vk_device) return cl::Error{vk_device.error()};
    auto report = cl::CheckReport::create(*vk_device, std::move(check));
    if (!report) return cl::Error{report.error()};
    plan.check = std::move(*report);
    uint64_t address = plan.check->table_address();
    std::memcpy(&plan.arguments[ki.check_table_offset], &address, 8);
  }
  if (ki.printf_buffer_address_offset != UINT32_MAX) {
    auto vk_device = program->context->vk_device(device);
    if (!vk_device) return cl::Error{vk_device.error()};
    VkResult r = VK_SUCCESS;
    auto buffer = cl::take_printf_buffer(*vk_device, program->context->spare_owner,
                                         8 + cl::kPrintfBufferSize + ki.printf_max_record, &r);
    if (!buffer) return cl::Error{cl::cl_error_from(r)};
    uint64_t address = buffer->address();
    std::memcpy(&plan.arguments[ki.printf_buffer_address_offset], &address, 8);
    plan.printf_output =
        std::make_shared<cl::PrintfOutput>(std::move(buffer), ki.printf_calls);
  }
  if (ki.loop_limit_status_offset != UINT32_MAX) {
    auto vk_device = program->context->vk_device(device);
    if (!vk_device) return cl::Error{vk_device.error()};
    VkResult r = VK_SUCCESS;
    cl::StatusWordPool::Word word = status_words_->take(*vk_device, &r);
    if (!word.buffer) return cl::Error{cl::cl_error_from(r)};
    uint64_t address = word.address();
    std::memcpy(&plan.arguments[ki.loop_limit_status_offset], &address, 8);
    plan.loop_limit_status = std::make_shared<cl::LoopLimitStatus>(std::move(word), status_words_);
  }
  // The arguments the kernel reads from push constants, which follow the dispatch block.
  plan.pushed_offset = std::min<uint32_t>(ki.pushed_arguments_offset, uint32_t(plan.arguments.size()));
  plan.pushed_size = std::min<uint32_t>({ki.pushed_arguments_size, k2s::kMaxPushedArgumentBytes,
                                         uint32_t(plan.arguments.size()) - plan.pushed_offset});
  // CL_OUT_OF_RESOURCES if the kernel needs more local memory than the device has.
  if (local_bytes > device->vk_info().properties.limits.maxComputeSharedMemorySize)
    return cl::Error{CL_OUT_OF_RESOURCES};
  // A multiple of 4: kernels that resume copy local memory 4 words at a time.
  uint32_t words = uint32_t(std::max<uint64_t>((local_bytes + 15) / 16 * 4, 16));
  const bool zero_local = local_bytes > 0 && device->zeroes_local_memory();

  const uint32_t packed = packed_groups(device, ki, l, g[0] / l[0], local_bytes);

  // Uniform regions: per dimension the full groups, then the partial last group; group
  // counts above the device limit are split further.
  auto max_count = device->max_group_count();
  struct Span { uint32_t first_group, groups, local; };
  std::vector<Span> spans[3];
  for (int d = 0; d < 3; ++d) {
    uint32_t full = uint32_t(g[d] / l[d]), rest = uint32_t(g[d] % l[d]);
    for (uint32_t first = 0; first < full; first += max_count[d])
      spans[d].push_back({first, std::min(full - first, max_count[d]), uint32_t(l[d])});
    if (rest) spans[d].push_back({full, 1, rest});
  }
  // Each region's pipeline, and for a kernel that resumes its first round's: a second
  // pipeline costs a second build in the driver, so only for small kernels (ffmpeg's
  // avgblur_opencl on lavapipe: 12% faster; PyOpenCL's bessel_jn, 83k words, builds in 32 s).
  struct Wanted {
    std::array<uint32_t, 3> local;
    uint32_t pack;
    RegionFacts facts;
  };
  constexpr size_t kTwiceBuiltWords = 40000;
  const bool first_rounds = ki.resume_area_offset != UINT32_MAX && plan.loop_limit_status &&
                            t->shader.size() < kTwiceBuiltWords;
  auto make = [this, device, words, zero_local, plain, typed_images, constant_buffers, first_rounds](
                  LaunchPlan& plan, const std::vector<Wanted>& wanted) -> cl_int {
    for (size_t i = 0; i < wanted.size(); ++i) {
      const Wanted& w = wanted[i];
      auto p = pipeline(device, w.local, w.pack, words, zero_local, false, plain, typed_images, w.facts,
                        constant_buffers);
      if (!p) return p.error();
      plan.regions[i].pipeline = *p;
      if (first_rounds) {
        auto first = pipeline(device, w.local, w.pack, words, zero_local, true, false, typed_images, w.facts,
                              constant_buffers);
        if (!first) return first.error();
        plan.regions[i].first_round = *first;
      }
    }
    return CL_SUCCESS;
  };
  std::vector<Wanted> wanted;
  for (const Span& x : spans[0])
    for (const Span& y : spans[1])
      for (const Span& z : spans[2]) {
        LaunchRegion r{};
        // Full groups along x may run |packed| to a Vulkan workgroup.
        const uint32_t pack = x.local == l[0] ? packed : 1;
        RegionFacts facts;
        facts.no_global_offset = o[0] == 0 && o[1] == 0 && o[2] == 0;
        facts.at_origin = x.first_group == 0 && y.first_group == 0 && z.first_group == 0;
        facts.whole_groups = x.local == l[0] && y.local == l[1] && z.local == l[2];
        wanted.push_back({{x.local * pack, y.local, z.local}, pack, facts});
        k2s::DispatchBlock& b = r.dispatch;
        b.work_dim = work_dim;
        const Span* s[3] = {&x, &y, &z};
        for (int d = 0; d < 3; ++d) {
          b.global_offset[d] = uint32_t(o[d]);
          b.global_size[d] = uint32_t(g[d]);
          b.enqueued_local_size[d] = uint32_t(l[d]);
          b.region_group_offset[d] = s[d]->first_group;
          b.num_groups[d] = uint32_t((g[d] + l[d] - 1) / l[d]);
          r.groups[d] = s[d]->groups;
        }
        b.region_groups_x = x.groups;
        r.groups[0] = (x.groups + pack - 1) / pack;
        plan.regions.push_back(r);
      }
  if (defer_pipelines) {
    plan.make_pipelines = [make, wanted = std::move(wanted)](LaunchPlan& plan) {
      return make(plan, wanted);
    };
  } else if (cl_int e = make(plan, wanted); e != CL_SUCCESS) {
    return cl::Error{e};
  }
  if (ki.resume_area_offset != UINT32_MAX && plan.loop_limit_status) {
    // Room for every work-item's record and every work-group's saved local memory.
    uint64_t items = 1, groups = 1;
    for (cl_uint d = 0; d < work_dim; ++d) {
      items *= g[d];
      groups *= (g[d] + l[d] - 1) / l[d];
    }
    auto vk_device = program->context->vk_device(device);
    if (!vk_device) return cl::Error{vk_device.error()};
    VkResult r = VK_SUCCESS;
    cl::ResumeArea area = cl::take_resume_area(
        *vk_device, program->context->spare_owner, items, ki.resume_record_size, groups,
        ki.resume_group_records ? 16 + 4 * (words + 1) : 0, 4,
        uint32_t(plan.regions.size()), &r);
    if (!area.buffer) return cl::Error{cl::cl_error_from(r)};
    uint64_t base = area.buffer->address();
    uint64_t addresses[4] = {base + area.items, base + area.groups, base + area.arguments,
                             base + area.counters};
    std::memcpy(&plan.arguments[ki.resume_area_offset], addresses, sizeof addresses);
    for (uint32_t i = 0; i < plan.regions.size(); ++i) {
      plan.regions[i].dispatch.resume_epoch = area.epoch;
      plan.regions[i].dispatch.resume_round = 0;
      plan.regions[i].dispatch.resume_slot = i * (cl::kResumeRounds + 1);
    }
    plan.resume_arguments = area.buffer;
    plan.resume_arguments_offset = area.arguments;
    plan.loop_limit_status->set_resume(std::move(area));
  }
  return plan;
}
