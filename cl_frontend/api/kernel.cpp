// Kernel entry points.
#include "api/api.h"
#include "core/info.h"
#include "core/kernel.h"
#include "core/queue.h"

namespace vkcl::api {
namespace {

cl_kernel CL_API_CALL CreateKernel(cl_program program, const char* name, cl_int* errcode_ret) {
  // CL_INVALID_PROGRAM if program is not a valid program object.
  if (!cl::validate(program)) return set_error(errcode_ret, CL_INVALID_PROGRAM), nullptr;
  // CL_INVALID_VALUE if kernel_name is NULL.
  if (!name) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program.
  if (!program->built_for_any()) return set_error(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE), nullptr;
  return hand_out(_cl_kernel::create(program, name), errcode_ret);
}

cl_int CL_API_CALL CreateKernelsInProgram(cl_program program, cl_uint num_kernels,
                                          cl_kernel* kernels, cl_uint* num_kernels_ret) {
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  if (!program->built_for_any()) return CL_INVALID_PROGRAM_EXECUTABLE;
  std::vector<std::string> names = program->kernel_names();
  // CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number of
  // kernels in program.
  if (kernels && num_kernels < names.size()) return CL_INVALID_VALUE;
  if (kernels) {
    for (size_t i = 0; i < names.size(); ++i) {
      auto k = _cl_kernel::create(program, names[i]);
      if (!k) {
        for (size_t j = 0; j < i; ++j) kernels[j]->release();
        return k.error();
      }
      kernels[i] = *k;
    }
  }
  if (num_kernels_ret) *num_kernels_ret = cl_uint(names.size());
  return CL_SUCCESS;
}

cl_kernel CL_API_CALL CloneKernel(cl_kernel kernel, cl_int* errcode_ret) {
  if (!cl::validate(kernel)) return set_error(errcode_ret, CL_INVALID_KERNEL), nullptr;
  return hand_out(kernel->clone(), errcode_ret);
}

cl_int CL_API_CALL RetainKernel(cl_kernel kernel) {
  // CL_INVALID_KERNEL if kernel is not a valid kernel object.
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  kernel->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseKernel(cl_kernel kernel) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  kernel->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL SetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  return kernel->set_arg(index, size, value).error();
}

cl_int CL_API_CALL GetKernelInfo(cl_kernel kernel, cl_kernel_info param, size_t size, void* value,
                                 size_t* size_ret) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_KERNEL_FUNCTION_NAME: return out(kernel->name);
    case CL_KERNEL_NUM_ARGS: return out(cl_uint(kernel->args.size()));
    case CL_KERNEL_REFERENCE_COUNT: return out(cl_uint(kernel->reference_count()));
    case CL_KERNEL_CONTEXT: return out(static_cast<cl_context>(kernel->program->context.get()));
    case CL_KERNEL_PROGRAM: return out(static_cast<cl_program>(kernel->program.get()));
    case CL_KERNEL_ATTRIBUTES: {
      const auto* info = kernel->source_info();
      return out(info ? info->attributes : std::string());
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param,
                                    size_t size, void* value, size_t* size_ret) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
  if (index >= kernel->args.size()) return CL_INVALID_ARG_INDEX;
  const auto* info = kernel->source_info();
  // CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available: "only
  // available if the program object associated with kernel is created with
  // clCreateProgramWithSource and the program executable was built with the
  // -cl-kernel-arg-info option specified in options argument to clBuildProgram or
  // clCompileProgram".
  if (!info || !info->args_reported || index >= info->args.size())
    return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
  const auto& a = info->args[index];
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: return out(a.address_qualifier);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: return out(a.access_qualifier);
    case CL_KERNEL_ARG_TYPE_NAME: return out(a.type_name);
    case CL_KERNEL_ARG_TYPE_QUALIFIER: return out(a.type_qualifier);
    case CL_KERNEL_ARG_NAME: return out(a.name);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                          cl_kernel_work_group_info param, size_t size,
                                          void* value, size_t* size_ret) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  _cl_program* program = kernel->program.get();
  if (!device) {
    // CL_INVALID_DEVICE if device is NULL but there is more than one device associated with
    // kernel.
    if (program->devices.size() != 1) return CL_INVALID_DEVICE;
    device = program->devices.front();
  }
  if (!cl::validate(device) || !kernel->translated(device)) return CL_INVALID_DEVICE;
  const auto& ki = kernel->translated(device)->interface;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE:
      return out(size_t(std::min<size_t>(device->max_work_group_size(), 1024)));
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      std::vector<size_t> s(3, 0);
      if (ki.required_work_group_size)
        for (int i = 0; i < 3; ++i) s[i] = (*ki.required_work_group_size)[i];
      return out(s);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE: return out(cl_ulong(kernel->local_memory_size()));
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: return out(size_t(device->subgroup_size()));
    case CL_KERNEL_PRIVATE_MEM_SIZE: return out(cl_ulong(ki.private_memory_size));
    case CL_KERNEL_GLOBAL_WORK_SIZE:
      // CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a
      // custom device and kernel is not a built-in kernel.
      return CL_INVALID_VALUE;
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelSubGroupInfo(cl_kernel kernel, cl_device_id device,
                                         cl_kernel_sub_group_info param, size_t input_size,
                                         const void* input, size_t size, void* value,
                                         size_t* size_ret) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  _cl_program* program = kernel->program.get();
  if (!device) {
    // CL_INVALID_DEVICE if device is NULL but there is more than one device associated with
    // kernel.
    if (program->devices.size() != 1) return CL_INVALID_DEVICE;
    device = program->devices.front();
  }
  if (!cl::validate(device) || !kernel->translated(device)) return CL_INVALID_DEVICE;
  // CL_INVALID_OPERATION if device does not support sub-groups.
  if (!device->has_subgroups()) return CL_INVALID_OPERATION;
  // Vulkan forms sub-groups of consecutive local linear ids, all of the device's fixed size
  // but the last.
  size_t sub = device->subgroup_size(), max_wg = device->max_work_group_size();
  cl::InfoOut out{size, value, size_ret};
  auto local_total = [&](size_t* total) {
    // CL_INVALID_VALUE if the input (a local work size of 1 to 3 dimensions) is invalid.
    if (!input || input_size == 0 || input_size % sizeof(size_t) || input_size > 3 * sizeof(size_t))
      return false;
    const auto* l = static_cast<const size_t*>(input);
    *total = 1;
    for (size_t d = 0; d < input_size / sizeof(size_t); ++d) *total *= l[d];
    return true;
  };
  size_t total = 0;
  switch (param) {
    case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
      if (!local_total(&total)) return CL_INVALID_VALUE;
      return out(std::min(total, sub));
    case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
      if (!local_total(&total)) return CL_INVALID_VALUE;
      return out((total + sub - 1) / sub);
    case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
      if (!input || input_size != sizeof(size_t)) return CL_INVALID_VALUE;
      size_t count = *static_cast<const size_t*>(input);
      size_t dims = size / sizeof(size_t);
      if (value && (dims == 0 || dims > 3 || size % sizeof(size_t))) return CL_INVALID_VALUE;
      // A 1D size of exactly |count| sub-groups, or 0 in every element when no work-group
      // size gives it.
      bool fits = count && count * sub <= max_wg;
      std::vector<size_t> local(std::max<size_t>(dims, 1), fits ? 1 : 0);
      if (fits) local[0] = count * sub;
      if (!value) {
        if (size_ret) *size_ret = size;
        return CL_SUCCESS;
      }
      return out(local);
    }
    case CL_KERNEL_MAX_NUM_SUB_GROUPS: return out(size_t((max_wg + sub - 1) / sub));
    case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
      return out(size_t(kernel->translated(device)->interface.compile_num_sub_groups));
    default: return CL_INVALID_VALUE;
  }
}

}  // namespace

cl_int CL_API_CALL GetKernelSuggestedLocalWorkSize(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                                   const size_t* global_work_offset, const size_t* global_work_size,
                                                   size_t* suggested_local_work_size) {
  // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue.
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_KERNEL if kernel is not a valid kernel object.
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  // CL_INVALID_CONTEXT if the context associated with kernel is not the same as the context
  // associated with command_queue.
  if (kernel->program->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
  // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built program executable
  // available for kernel for the device associated with command_queue.
  const k2s::TranslatedKernel* t = kernel->translated(queue->device);
  if (!t) return CL_INVALID_PROGRAM_EXECUTABLE;
  // CL_INVALID_KERNEL_ARGS if all argument values for kernel have not been set.
  if (!kernel->all_args_set()) return CL_INVALID_KERNEL_ARGS;
  // CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1 and
  // CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS).
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  // CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or if any of the values specified
  // in global_work_size are 0, or exceed what the device's 32-bit ids hold.
  if (!global_work_size) return CL_INVALID_GLOBAL_WORK_SIZE;
  for (cl_uint d = 0; d < work_dim; ++d) {
    if (global_work_size[d] == 0 || global_work_size[d] > UINT32_MAX) return CL_INVALID_GLOBAL_WORK_SIZE;
    // CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size plus the
    // corresponding value in global_work_offset for dimension exceeds the maximum value
    // representable by size_t on the device (the dispatch's 32-bit ids here).
    if (global_work_offset && (global_work_offset[d] > UINT32_MAX ||
                               global_work_offset[d] + global_work_size[d] > UINT32_MAX))
      return CL_INVALID_GLOBAL_OFFSET;
  }
  // CL_INVALID_VALUE if suggested_local_work_size is NULL.
  if (!suggested_local_work_size) return CL_INVALID_VALUE;
  // The local size an enqueue without one gets.
  if (const auto& required = t->interface.required_work_group_size) {
    for (cl_uint d = 0; d < work_dim; ++d) suggested_local_work_size[d] = (*required)[d];
    return CL_SUCCESS;
  }
  kernel->chosen_local_size(queue->device, work_dim, global_work_size, suggested_local_work_size);
  return CL_SUCCESS;
}

void register_kernel(cl_icd_dispatch& t) {
  t.clCreateKernel = guard<CreateKernel>;
  t.clCreateKernelsInProgram = guard<CreateKernelsInProgram>;
  t.clCloneKernel = guard<CloneKernel>;
  t.clRetainKernel = guard<RetainKernel>;
  t.clReleaseKernel = guard<ReleaseKernel>;
  t.clSetKernelArg = guard<SetKernelArg>;
  t.clGetKernelInfo = guard<GetKernelInfo>;
  t.clGetKernelArgInfo = guard<GetKernelArgInfo>;
  t.clGetKernelWorkGroupInfo = guard<GetKernelWorkGroupInfo>;
  t.clGetKernelSubGroupInfo = guard<GetKernelSubGroupInfo>;
  t.clGetKernelSubGroupInfoKHR = guard<GetKernelSubGroupInfo>;
}

}  // namespace vkcl::api
