// Shared virtual memory entry points (core/svm.h). SVM memory is host-visible and coherent at
// the address kernels use, so map, unmap and migrate order the queue and move nothing; copies
// and fills run on the host once the device work before them is done.
#include <cstring>

#include "api/api.h"
#include "core/kernel.h"
#include "core/queue.h"

namespace vkcl::api {
namespace {

constexpr cl_svm_mem_flags kSvmAccess = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
// "the size of the largest data type supported by the OpenCL device" (long16, double16).
constexpr size_t kLargestType = 128;

bool power_of_two(size_t x) { return x && !(x & (x - 1)); }

void* CL_API_CALL SVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size, cl_uint alignment) {
  if (!cl::validate(context)) return nullptr;
  const cl_device_svm_capabilities caps = context->svm_capabilities();
  if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) return nullptr;
  // Values specified in flags: at most one access flag; atomics only with fine grain, and
  // each only where the devices have it.
  if (flags & ~(kSvmAccess | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS)) return nullptr;
  if (__builtin_popcountll(flags & kSvmAccess) > 1) return nullptr;
  if ((flags & CL_MEM_SVM_ATOMICS) && !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER)) return nullptr;
  if ((flags & CL_MEM_SVM_FINE_GRAIN_BUFFER) && !(caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) return nullptr;
  if ((flags & CL_MEM_SVM_ATOMICS) && !(caps & CL_DEVICE_SVM_ATOMICS)) return nullptr;
  // size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE; alignment is not a power of two or larger
  // than the largest data type.
  if (size == 0) return nullptr;
  for (_cl_device_id* d : context->devices) {
    cl_ulong max = 0;
    if (d->get_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max, &max, nullptr) != CL_SUCCESS || size > max) return nullptr;
  }
  size_t align = alignment ? alignment : kLargestType;
  if (!power_of_two(align) || align > kLargestType) return nullptr;
  std::vector<std::shared_ptr<vk::Device>> devices;
  for (_cl_device_id* d : context->devices) {
    auto device = context->vk_device(d);
    if (!device) return nullptr;
    devices.push_back(*device);
  }
  if (!(flags & kSvmAccess)) flags |= CL_MEM_READ_WRITE;
  auto p = context->svm.allocate(devices, flags, size, align);
  return p ? *p : nullptr;
}

void CL_API_CALL SVMFree(cl_context context, void* pointer) {
  if (!cl::validate(context) || !pointer) return;
  context->svm.free(pointer);
}

cl_int CL_API_CALL SetKernelArgSVMPointer(cl_kernel kernel, cl_uint index, const void* value) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  // CL_INVALID_OPERATION if no devices in the context associated with kernel support SVM.
  if (!kernel->program->context->svm_capabilities()) return CL_INVALID_OPERATION;
  auto r = kernel->set_arg_svm(index, value);
  return r ? CL_SUCCESS : r.error();
}

// cl_ext_buffer_device_address: a pointer argument set to a buffer's device address (or
// into the buffer).
cl_int CL_API_CALL SetKernelArgDevicePointerEXT(cl_kernel kernel, cl_uint index, cl_mem_device_address_ext value) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  auto r = kernel->set_arg_device_pointer(index, value);
  return r ? CL_SUCCESS : r.error();
}

cl_int CL_API_CALL SetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param, size_t size, const void* value) {
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  // CL_INVALID_VALUE if param_name is not valid, if param_value is NULL or if the size
  // specified by param_value_size is not valid. (No SVM pointers or device pointers, 0 and
  // NULL, unsets them.)
  const bool pointer_list = param == CL_KERNEL_EXEC_INFO_SVM_PTRS || param == CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT;
  if (!value && !(pointer_list && size == 0)) return CL_INVALID_VALUE;
  if (param == CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT) {
    if (size % sizeof(cl_mem_device_address_ext)) return CL_INVALID_VALUE;
    auto r = kernel->set_device_pointers(static_cast<const cl_mem_device_address_ext*>(value),
                                         size / sizeof(cl_mem_device_address_ext));
    return r ? CL_SUCCESS : r.error();
  }
  const cl_device_svm_capabilities caps = kernel->program->context->svm_capabilities();
  switch (param) {
    case CL_KERNEL_EXEC_INFO_SVM_PTRS: {
      if (size % sizeof(void*)) return CL_INVALID_VALUE;
      // CL_INVALID_OPERATION if ... no devices in the context associated with kernel support SVM.
      if (!caps) return CL_INVALID_OPERATION;
      auto r = kernel->set_svm_pointers(static_cast<const void* const*>(value), size / sizeof(void*));
      return r ? CL_SUCCESS : r.error();
    }
    case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM: {
      if (size != sizeof(cl_bool)) return CL_INVALID_VALUE;
      if (!caps) return CL_INVALID_OPERATION;
      // CL_INVALID_OPERATION if param_value is CL_TRUE but no devices in the context support
      // fine-grain system SVM allocations.
      bool on = *static_cast<const cl_bool*>(value);
      return on && !(caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) ? CL_INVALID_OPERATION : CL_SUCCESS;
    }
    default: return CL_INVALID_VALUE;
  }
}

// The checks every SVM command makes first: queue, SVM on its context, the wait list.
cl_int check_svm_command(cl_command_queue queue, cl_uint num_events, const cl_event* wait_list,
                         std::vector<_cl_event*>* waits) {
  if (!cl::validate(queue)) return CL_INVALID_COMMAND_QUEUE;
  if (!queue->context->svm_capabilities()) return CL_INVALID_OPERATION;
  return check_wait_list(num_events, wait_list, queue->context.get(), waits);
}

// A command that orders the queue and does nothing else (the memory is where it needs to be).
cl_int ordering_command(cl_command_queue queue, cl_command_type type, bool blocking,
                        const std::vector<_cl_event*>& waits, _cl_command_queue::Keep keep, cl_event* event) {
  auto r = queue->enqueue(type, waits, false, [queue] { return queue->sync(); }, std::move(keep));
  return finish_enqueue(std::move(r), blocking, event);
}

cl_int CL_API_CALL EnqueueSVMFree(cl_command_queue queue, cl_uint count, void* pointers[],
                                  void(CL_CALLBACK* free_fn)(cl_command_queue, cl_uint, void*[], void*),
                                  void* user_data, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_svm_command(queue, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is non-NULL, or if
  // svm_pointers is NULL and num_svm_pointers is not 0.
  if ((count == 0) != (pointers == nullptr)) return CL_INVALID_VALUE;
  std::vector<void*> list(pointers, pointers + count);
  auto r = queue->enqueue(CL_COMMAND_SVM_FREE, waits, false, [queue, list, free_fn, user_data]() mutable {
    cl_int s = queue->sync();
    if (s) return s;
    if (free_fn) {
      free_fn(queue, cl_uint(list.size()), list.data(), user_data);
    } else {
      for (void* p : list) queue->context->svm.free(p);
    }
    return CL_SUCCESS;
  });
  return finish_enqueue(std::move(r), false, event);
}

cl_int CL_API_CALL EnqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void* dst, const void* src, size_t size,
                                    cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_svm_command(queue, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if dst_ptr or src_ptr is NULL.
  if (!dst || !src) return CL_INVALID_VALUE;
  // CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and size result in an
  // overlapping copy.
  auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (size && d < s + size && s < d + size) return CL_MEM_COPY_OVERLAP;
  // Either side may be host memory; SVM that is freed before the copy runs stays.
  _cl_command_queue::Keep keep;
  for (const void* p : {static_cast<const void*>(dst), src})
    if (auto a = queue->context->svm.find(p)) keep.push_back(a);
  auto r = queue->enqueue(CL_COMMAND_SVM_MEMCPY, waits, false,
                          [queue, dst, src, size] {
                            cl_int status = queue->sync();
                            if (!status && size) std::memcpy(dst, src, size);
                            return status;
                          },
                          std::move(keep));
  return finish_enqueue(std::move(r), blocking, event);
}

cl_int CL_API_CALL EnqueueSVMMemFill(cl_command_queue queue, void* pointer, const void* pattern, size_t pattern_size,
                                     size_t size, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_svm_command(queue, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if svm_ptr is NULL or not aligned to pattern_size, if pattern is NULL,
  // if pattern_size is 0 or not one of {1, 2, 4, 8, 16, 32, 64, 128}, or if size is not a
  // multiple of pattern_size.
  if (!pointer || !pattern || !power_of_two(pattern_size) || pattern_size > 128) return CL_INVALID_VALUE;
  if (reinterpret_cast<uintptr_t>(pointer) % pattern_size || size % pattern_size) return CL_INVALID_VALUE;
  auto allocation = queue->context->svm.find(pointer, size ? size : 1);
  if (!allocation) return CL_INVALID_VALUE;
  std::vector<uint8_t> bytes(static_cast<const uint8_t*>(pattern), static_cast<const uint8_t*>(pattern) + pattern_size);
  auto r = queue->enqueue(CL_COMMAND_SVM_MEMFILL, waits, false,
                          [queue, pointer, bytes, size] {
                            cl_int status = queue->sync();
                            auto* out = static_cast<uint8_t*>(pointer);
                            for (size_t at = 0; !status && at < size; at += bytes.size())
                              std::memcpy(out + at, bytes.data(), bytes.size());
                            return status;
                          },
                          {allocation});
  return finish_enqueue(std::move(r), false, event);
}

cl_int CL_API_CALL EnqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags, void* pointer,
                                 size_t size, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_svm_command(queue, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if svm_ptr is NULL, if size is 0 or if values specified in map_flags are
  // not valid.
  if (!pointer || size == 0) return CL_INVALID_VALUE;
  if (flags & ~cl_map_flags(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) return CL_INVALID_VALUE;
  if ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))) return CL_INVALID_VALUE;
  auto allocation = queue->context->svm.find(pointer, size);
  if (!allocation) return CL_INVALID_VALUE;
  return ordering_command(queue, CL_COMMAND_SVM_MAP, blocking, waits, {allocation}, event);
}

cl_int CL_API_CALL EnqueueSVMUnmap(cl_command_queue queue, void* pointer, cl_uint num_events,
                                   const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_svm_command(queue, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if svm_ptr is NULL.
  if (!pointer) return CL_INVALID_VALUE;
  auto allocation = queue->context->svm.find(pointer);
  if (!allocation) return CL_INVALID_VALUE;
  return ordering_command(queue, CL_COMMAND_SVM_UNMAP, false, waits, {allocation}, event);
}

cl_int CL_API_CALL EnqueueSVMMigrateMem(cl_command_queue queue, cl_uint count, const void** pointers,
                                        const size_t* sizes, cl_mem_migration_flags flags, cl_uint num_events,
                                        const cl_event* wait_list, cl_event* event) {
  std::vector<_cl_event*> waits;
  cl_int e = check_svm_command(queue, num_events, wait_list, &waits);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is NULL, if flags is not 0
  // or any of the migration flags, or if a pointer (and its size) is not within an allocation.
  if (count == 0 || !pointers) return CL_INVALID_VALUE;
  if (flags & ~cl_mem_migration_flags(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  _cl_command_queue::Keep keep;
  for (cl_uint i = 0; i < count; ++i) {
    if (!pointers[i]) return CL_INVALID_VALUE;
    auto a = queue->context->svm.find(pointers[i], sizes && sizes[i] ? sizes[i] : 1);
    if (!a) return CL_INVALID_VALUE;
    keep.push_back(a);
  }
  return ordering_command(queue, CL_COMMAND_SVM_MIGRATE_MEM, false, waits, std::move(keep), event);
}

}  // namespace

void register_svm(cl_icd_dispatch& t) {
  t.clSVMAlloc = guard<SVMAlloc>;
  t.clSVMFree = guard<SVMFree>;
  t.clSetKernelArgSVMPointer = guard<SetKernelArgSVMPointer>;
  t.clSetKernelExecInfo = guard<SetKernelExecInfo>;
  t.clEnqueueSVMFree = guard<EnqueueSVMFree>;
  t.clEnqueueSVMMemcpy = guard<EnqueueSVMMemcpy>;
  t.clEnqueueSVMMemFill = guard<EnqueueSVMMemFill>;
  t.clEnqueueSVMMap = guard<EnqueueSVMMap>;
  t.clEnqueueSVMUnmap = guard<EnqueueSVMUnmap>;
  t.clEnqueueSVMMigrateMem = guard<EnqueueSVMMigrateMem>;
}

void* device_address_function(const char* name) {
  if (std::strcmp(name, "clSetKernelArgDevicePointerEXT") == 0)
    return reinterpret_cast<void*>(guard<SetKernelArgDevicePointerEXT>);
  return nullptr;
}

}  // namespace vkcl::api
