// cl_khr_command_buffer entry points (0.9.0): creation, recording, finalizing, enqueueing,
// queries. The commands are the enqueue entry points' own (api.h's *_command makers), checked
// the same way when they are recorded.
#include <array>
#include <cstring>

#include "api/api.h"
#include "core/command_buffer.h"
#include "core/info.h"
#include "core/kernel.h"

namespace vkcl::api {

using cl::Ref;

namespace {

using CommandBuffer = _cl_command_buffer_khr;

// The checks every clCommand* function starts with (those of the command itself follow).
cl_int check_recording(cl_command_buffer_khr buffer, cl_command_queue queue, cl_uint num_sync_points,
                       const cl_sync_point_khr* sync_points, cl_mutable_command_khr* mutable_handle) {
  // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  // CL_INVALID_COMMAND_QUEUE if command_queue is not NULL (a command-buffer records for the
  // one queue it was created with).
  if (queue) return CL_INVALID_COMMAND_QUEUE;
  // CL_INVALID_OPERATION if command_buffer has been finalized.
  if (buffer->state() != CL_COMMAND_BUFFER_STATE_RECORDING_KHR) return CL_INVALID_OPERATION;
  // CL_INVALID_VALUE if mutable_handle is not NULL (only kernel commands have handles, from
  // cl_khr_command_buffer_mutable_dispatch).
  if (mutable_handle) return CL_INVALID_VALUE;
  // CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if sync_point_wait_list is NULL and
  // num_sync_points_in_wait_list is > 0, or sync_point_wait_list is not NULL and
  // num_sync_points_in_wait_list is 0, or if synchronization-point objects in
  // sync_point_wait_list are not valid synchronization-points.
  if ((sync_points == nullptr) != (num_sync_points == 0)) return CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
  const size_t recorded = buffer->size();
  for (cl_uint i = 0; i < num_sync_points; ++i)
    if (sync_points[i] >= recorded) return CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
  return CL_SUCCESS;
}

// Records a command: |make| checks it against the buffer's queue now, and makes it again for
// each execution. Every recorded command waits for all before it (a barrier between each
// two), so every sync point list is honoured.
template <typename Make>
cl_int record(cl_command_buffer_khr buffer, cl_command_queue queue, cl_uint num_sync_points,
              const cl_sync_point_khr* sync_points, cl_sync_point_khr* sync_point,
              cl_mutable_command_khr* mutable_handle, Make make, bool remade = false) {
  cl_int e = check_recording(buffer, queue, num_sync_points, sync_points, mutable_handle);
  if (e != CL_SUCCESS) return e;
  cl::GpuCommand checked;
  if ((e = make(buffer->queue.get(), &checked)) != CL_SUCCESS) return e;
  if (remade) checked.fixed = false;  // made again for each execution
  // The objects stay with the buffer as long as it lives.
  auto held = std::make_shared<_cl_command_queue::Keep>(checked.keep);
  auto added = buffer->add(
      [make, held](_cl_command_queue& q) -> cl::Result<cl::GpuCommand> {
        cl::GpuCommand c;
        if (cl_int e = make(&q, &c); e != CL_SUCCESS) return cl::Error{e};
        return c;
      },
      std::move(checked));
  if (!added) return added.error();
  if (sync_point) *sync_point = *added;
  return CL_SUCCESS;
}

using Box = std::array<size_t, 3>;
// The first |count| values of |v| (origins and regions have 3; a kernel's sizes work_dim).
Box box(const size_t* v, cl_uint count = 3) {
  Box b{};
  for (cl_uint i = 0; v && i < count && i < 3; ++i) b[i] = v[i];
  return b;
}
const size_t* ptr(const Box& b, const size_t* given) { return given ? b.data() : nullptr; }

cl_command_buffer_khr CL_API_CALL CreateCommandBufferKHR(cl_uint num_queues, const cl_command_queue* queues,
                                                         const cl_command_buffer_properties_khr* properties,
                                                         cl_int* errcode_ret) {
  // CL_INVALID_VALUE if num_queues is not one (cl_khr_command_buffer_multi_device is not
  // supported), or queues is NULL.
  if (num_queues != 1 || !queues) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a valid command-queue.
  _cl_command_queue* queue = queues[0];
  if (!cl::validate(queue)) return set_error(errcode_ret, CL_INVALID_COMMAND_QUEUE), nullptr;
  // CL_INVALID_VALUE if values specified in properties are not valid, or the same property
  // name is specified more than once; CL_INVALID_PROPERTY... flags other than
  // CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR are not valid.
  std::vector<cl_command_buffer_properties_khr> list;
  cl_command_buffer_flags_khr flags = 0;
  bool seen = false;
  if (properties) {
    for (const auto* p = properties; *p; p += 2) {
      if (p[0] != CL_COMMAND_BUFFER_FLAGS_KHR || seen) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
      seen = true;
      flags = p[1];
      if (flags & ~cl_command_buffer_flags_khr(CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR))
        return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
      list.insert(list.end(), {p[0], p[1]});
    }
    list.push_back(0);
  }
  auto buffer = Ref<CommandBuffer>::adopt(new CommandBuffer());
  buffer->queue = Ref<_cl_command_queue>(queue);
  buffer->properties = std::move(list);
  buffer->flags = flags;
  set_error(errcode_ret, CL_SUCCESS);
  return buffer.release_to_api();
}

cl_int CL_API_CALL FinalizeCommandBufferKHR(cl_command_buffer_khr buffer) {
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  return buffer->finalize().error();
}

cl_int CL_API_CALL RetainCommandBufferKHR(cl_command_buffer_khr buffer) {
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  buffer->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseCommandBufferKHR(cl_command_buffer_khr buffer) {
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  // (Executions in flight hold their own reference: the buffer goes when they are done.)
  buffer->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL EnqueueCommandBufferKHR(cl_uint num_queues, cl_command_queue* queues,
                                           cl_command_buffer_khr buffer, cl_uint num_events,
                                           const cl_event* wait_list, cl_event* event) {
  // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  // CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or queues is not NULL and
  // num_queues is 0, or num_queues is > 0 and not the number of queues the buffer was
  // created with.
  if ((queues == nullptr) != (num_queues == 0) || num_queues > 1) return CL_INVALID_VALUE;
  _cl_command_queue* queue = buffer->queue.get();
  if (num_queues) {
    // CL_INVALID_COMMAND_QUEUE if any element of queues is not a valid command-queue.
    if (!cl::validate(queues[0])) return CL_INVALID_COMMAND_QUEUE;
    // CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if any element of queues is not compatible with the
    // command-queue set on command_buffer creation at the same list index: the same device,
    // the same properties.
    if (queues[0]->device != queue->device || queues[0]->properties != queue->properties)
      return CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
    // CL_INVALID_CONTEXT if the context of the queue and of command_buffer differ.
    if (queues[0]->context.get() != queue->context.get()) return CL_INVALID_CONTEXT;
    queue = queues[0];
  }
  // CL_INVALID_CONTEXT if the context associated with command_queue, command_buffer, and
  // events in event_wait_list are not the same; CL_INVALID_EVENT_WAIT_LIST.
  std::vector<_cl_event*> waits;
  cl_int e = check_wait_list(num_events, wait_list, queue->context.get(), &waits);
  if (e != CL_SUCCESS) return e;
  // Device timestamps only where the application sees the event (enqueue_gpu).
  return finish_enqueue(buffer->enqueue(queue, waits, event != nullptr), false, event);
}

cl_int CL_API_CALL CommandBarrierWithWaitListKHR(cl_command_buffer_khr buffer, cl_command_queue queue,
                                                 cl_uint num_sync_points, const cl_sync_point_khr* sync_points,
                                                 cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [](_cl_command_queue*, cl::GpuCommand* c) {
                  c->type = CL_COMMAND_BARRIER;
                  c->record = [](_cl_command_queue&) { return CL_SUCCESS; };
                  return CL_SUCCESS;
                });
}

cl_int CL_API_CALL CommandCopyBufferKHR(cl_command_buffer_khr buffer, cl_command_queue queue, cl_mem src,
                                        cl_mem dst, size_t src_offset, size_t dst_offset, size_t size,
                                        cl_uint num_sync_points, const cl_sync_point_khr* sync_points,
                                        cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return copy_buffer_command(q, src, dst, src_offset, dst_offset, size, c);
                });
}

cl_int CL_API_CALL CommandCopyBufferRectKHR(cl_command_buffer_khr buffer, cl_command_queue queue,
                                            cl_mem src, cl_mem dst, const size_t* src_origin,
                                            const size_t* dst_origin, const size_t* region,
                                            size_t src_row, size_t src_slice, size_t dst_row,
                                            size_t dst_slice, cl_uint num_sync_points,
                                            const cl_sync_point_khr* sync_points,
                                            cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  Box so = box(src_origin), d = box(dst_origin), r = box(region);
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return copy_buffer_rect_command(q, src, dst, ptr(so, src_origin), ptr(d, dst_origin),
                                                  ptr(r, region), src_row, src_slice, dst_row, dst_slice, c);
                });
}

cl_int CL_API_CALL CommandCopyBufferToImageKHR(cl_command_buffer_khr buffer, cl_command_queue queue,
                                               cl_mem src, cl_mem dst, size_t offset, const size_t* origin,
                                               const size_t* region, cl_uint num_sync_points,
                                               const cl_sync_point_khr* sync_points,
                                               cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  Box o = box(origin), r = box(region);
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return copy_buffer_to_image_command(q, src, dst, offset, ptr(o, origin), ptr(r, region), c);
                });
}

cl_int CL_API_CALL CommandCopyImageKHR(cl_command_buffer_khr buffer, cl_command_queue queue, cl_mem src,
                                       cl_mem dst, const size_t* src_origin, const size_t* dst_origin,
                                       const size_t* region, cl_uint num_sync_points,
                                       const cl_sync_point_khr* sync_points, cl_sync_point_khr* sync_point,
                                       cl_mutable_command_khr* handle) {
  Box so = box(src_origin), d = box(dst_origin), r = box(region);
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return copy_image_command(q, src, dst, ptr(so, src_origin), ptr(d, dst_origin),
                                            ptr(r, region), c);
                });
}

cl_int CL_API_CALL CommandCopyImageToBufferKHR(cl_command_buffer_khr buffer, cl_command_queue queue,
                                               cl_mem src, cl_mem dst, const size_t* origin,
                                               const size_t* region, size_t offset, cl_uint num_sync_points,
                                               const cl_sync_point_khr* sync_points,
                                               cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  Box o = box(origin), r = box(region);
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return copy_image_to_buffer_command(q, src, dst, ptr(o, origin), ptr(r, region), offset, c);
                });
}

cl_int CL_API_CALL CommandFillBufferKHR(cl_command_buffer_khr buffer, cl_command_queue queue, cl_mem mem,
                                        const void* pattern, size_t pattern_size, size_t offset, size_t size,
                                        cl_uint num_sync_points, const cl_sync_point_khr* sync_points,
                                        cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  // The pattern is copied when the command is recorded (an application may reuse its memory).
  std::vector<uint8_t> bytes;
  if (pattern && pattern_size <= 128)
    bytes.assign(static_cast<const uint8_t*>(pattern), static_cast<const uint8_t*>(pattern) + pattern_size);
  const bool given = pattern != nullptr;
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return fill_buffer_command(q, mem, given ? bytes.data() : nullptr, pattern_size, offset,
                                             size, c);
                });
}

cl_int CL_API_CALL CommandFillImageKHR(cl_command_buffer_khr buffer, cl_command_queue queue, cl_mem image,
                                       const void* fill_color, const size_t* origin, const size_t* region,
                                       cl_uint num_sync_points, const cl_sync_point_khr* sync_points,
                                       cl_sync_point_khr* sync_point, cl_mutable_command_khr* handle) {
  // A fill colour is four 32-bit values (float, int or uint, by the image's format).
  std::array<uint8_t, 16> color{};
  if (fill_color) std::memcpy(color.data(), fill_color, color.size());
  const bool given = fill_color != nullptr;
  Box o = box(origin), r = box(region);
  return record(buffer, queue, num_sync_points, sync_points, sync_point, handle,
                [=](_cl_command_queue* q, cl::GpuCommand* c) {
                  return fill_image_command(q, image, given ? color.data() : nullptr, ptr(o, origin),
                                            ptr(r, region), c);
                });
}

// What cl_khr_command_buffer_mutable_dispatch lets an update change: everything.
constexpr cl_mutable_dispatch_fields_khr kMutableFields =
    CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR |
    CL_MUTABLE_DISPATCH_ARGUMENTS_KHR | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

using Launch = _cl_mutable_command_khr::Launch;

cl_int make_launch(_cl_command_queue* q, cl_uint work_dim, const Launch& l, cl::GpuCommand* c) {
  return kernel_command(q, l.arguments.get(), work_dim, l.has_offset ? l.offset.data() : nullptr,
                        l.has_global ? l.global.data() : nullptr, l.has_local ? l.local.data() : nullptr, c);
}

cl_int CL_API_CALL CommandNDRangeKernelKHR(cl_command_buffer_khr buffer, cl_command_queue queue,
                                           const cl_ndrange_kernel_command_properties_khr* properties,
                                           cl_kernel kernel, cl_uint work_dim, const size_t* offset,
                                           const size_t* global, const size_t* local, cl_uint num_sync_points,
                                           const cl_sync_point_khr* sync_points, cl_sync_point_khr* sync_point,
                                           cl_mutable_command_khr* handle) {
  cl_int e = check_recording(buffer, queue, num_sync_points, sync_points, nullptr);
  if (e != CL_SUCCESS) return e;
  // The one property is CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR; "If ... not specified then
  // it defaults to the value returned by the CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR
  // device query". CL_INVALID_VALUE if values specified in properties are not valid.
  std::vector<cl_ndrange_kernel_command_properties_khr> given;
  cl_mutable_dispatch_fields_khr fields = kMutableFields;
  if (properties) {
    for (const auto* p = properties; *p; p += 2) {
      if (p[0] != CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR || !given.empty()) return CL_INVALID_VALUE;
      // CL_INVALID_OPERATION if the requested CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR
      // properties are not reported by CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR.
      if (p[1] & ~kMutableFields) return CL_INVALID_OPERATION;
      fields = p[1];
      given.insert(given.end(), {p[0], p[1]});
    }
    given.push_back(0);
  }
  // CL_INVALID_KERNEL, CL_INVALID_CONTEXT, CL_INVALID_WORK_DIMENSION, CL_INVALID_KERNEL_ARGS,
  // ...: as clEnqueueNDRangeKernel.
  if (!cl::validate(kernel)) return CL_INVALID_KERNEL;
  if (kernel->program->context.get() != buffer->queue->context.get()) return CL_INVALID_CONTEXT;
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  // The arguments are those set when the command is recorded: a clone of the kernel keeps
  // them, whatever the application sets later.
  auto copy = kernel->clone();
  if (!copy) return copy.error();
  Launch launch;
  launch.arguments = Ref<_cl_kernel>::adopt(*copy);
  launch.offset = box(offset, work_dim);
  launch.global = box(global, work_dim);
  launch.local = box(local, work_dim);
  launch.has_offset = offset;
  launch.has_global = global;
  launch.has_local = local;
  // A command with a handle reads its launch each time it is made, where the buffer is
  // mutable (in another buffer the handle only answers queries).
  if (handle) {
    auto m = Ref<_cl_mutable_command_khr>::adopt(new _cl_mutable_command_khr());
    m->buffer = buffer;
    m->properties = std::move(given);
    m->fields = fields;
    m->kernel = Ref<_cl_kernel>(kernel);
    m->work_dim = work_dim;
    m->set_launch(launch);
    e = record(buffer, nullptr, num_sync_points, sync_points, sync_point, nullptr,
               [m, work_dim](_cl_command_queue* q, cl::GpuCommand* c) { return make_launch(q, work_dim, m->launch(), c); },
               buffer->flags & CL_COMMAND_BUFFER_MUTABLE_KHR);
    if (e != CL_SUCCESS) return e;
    std::lock_guard<std::mutex> lock(buffer->mutables_mutex);
    buffer->mutables.push_back(m);
    *handle = m.get();
    return CL_SUCCESS;
  }
  return record(buffer, nullptr, num_sync_points, sync_points, sync_point, nullptr,
                [launch, work_dim](_cl_command_queue* q, cl::GpuCommand* c) { return make_launch(q, work_dim, launch, c); });
}

// The work-groups a launch has, where its local size is known (0 where it is not).
size_t work_groups(cl_uint work_dim, const Launch& l) {
  if (!l.has_local || !l.has_global) return 0;
  size_t n = 1;
  for (cl_uint d = 0; d < work_dim; ++d) n *= l.local[d] ? (l.global[d] + l.local[d] - 1) / l.local[d] : 0;
  return n;
}
bool uniform(cl_uint work_dim, const Launch& l) {
  for (cl_uint d = 0; d < work_dim; ++d) {
    if (l.local[d] && l.global[d] % l.local[d]) return false;
  }
  return true;
}

// One cl_mutable_dispatch_config_khr applied to a copy of |m|'s launch (nothing of |m| changes
// here): the errors of clSetKernelArg, clSetKernelArgSVMPointer, clSetKernelExecInfo and
// clEnqueueNDRangeKernel, and the update's own.
cl_int updated_launch(CommandBuffer* buffer, const cl_mutable_dispatch_config_khr& config, Launch* out) {
  _cl_mutable_command_khr* m = config.command;
  // CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable command object, or
  // created from command_buffer.
  if (!cl::validate(m) || m->buffer != buffer || !buffer->owns(m)) return CL_INVALID_MUTABLE_COMMAND_KHR;
  // CL_INVALID_VALUE if type is not CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR.
  if (config.type != CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR || config.next) return CL_INVALID_VALUE;
  // CL_INVALID_VALUE if a list is NULL with a count > 0, or not NULL with a count of 0.
  if ((config.arg_list == nullptr) != (config.num_args == 0) ||
      (config.arg_svm_list == nullptr) != (config.num_svm_args == 0) ||
      (config.exec_info_list == nullptr) != (config.num_exec_infos == 0))
    return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if the work_dim is different from the work_dim set on command
  // recording, or a field is given that was not made updatable.
  if (config.work_dim != m->work_dim) return CL_INVALID_OPERATION;
  const cl_mutable_dispatch_fields_khr f = m->fields;
  if ((config.global_work_offset && !(f & CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR)) ||
      (config.global_work_size && !(f & CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR)) ||
      (config.local_work_size && !(f & CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR)) ||
      ((config.num_args || config.num_svm_args) && !(f & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR)) ||
      (config.num_exec_infos && !(f & CL_MUTABLE_DISPATCH_EXEC_INFO_KHR)))
    return CL_INVALID_OPERATION;
  const Launch before = m->launch();
  Launch l = before;
  if (config.num_args || config.num_svm_args || config.num_exec_infos) {
    auto copy = before.arguments->clone();
    if (!copy) return copy.error();
    l.arguments = Ref<_cl_kernel>::adopt(*copy);
    cl_kernel k = l.arguments.get();
    for (cl_uint i = 0; i < config.num_args; ++i) {
      const cl_mutable_dispatch_arg_khr& a = config.arg_list[i];
      if (cl_int e = cl::g_dispatch_table.clSetKernelArg(k, a.arg_index, a.arg_size, a.arg_value); e != CL_SUCCESS)
        return e;
    }
    for (cl_uint i = 0; i < config.num_svm_args; ++i) {
      const cl_mutable_dispatch_arg_khr& a = config.arg_svm_list[i];
      if (cl_int e = cl::g_dispatch_table.clSetKernelArgSVMPointer(k, a.arg_index, a.arg_value); e != CL_SUCCESS)
        return e;
    }
    for (cl_uint i = 0; i < config.num_exec_infos; ++i) {
      const cl_mutable_dispatch_exec_info_khr& x = config.exec_info_list[i];
      if (cl_int e = cl::g_dispatch_table.clSetKernelExecInfo(k, x.param_name, x.param_value_size, x.param_value);
          e != CL_SUCCESS)
        return e;
    }
  }
  if (config.global_work_offset) l.offset = box(config.global_work_offset, m->work_dim), l.has_offset = true;
  if (config.global_work_size) l.global = box(config.global_work_size, m->work_dim), l.has_global = true;
  if (config.local_work_size) l.local = box(config.local_work_size, m->work_dim), l.has_local = true;
  // CL_INVALID_OPERATION if values of local_work_size and/or global_work_size result in an
  // increase to the number of work-groups in the ND-range, or in a change to work-group
  // uniformity (checked where both local sizes are known).
  if (config.global_work_size || config.local_work_size) {
    const size_t was = work_groups(m->work_dim, before), now = work_groups(m->work_dim, l);
    if (was && now && (now > was || uniform(m->work_dim, before) != uniform(m->work_dim, l)))
      return CL_INVALID_OPERATION;
  }
  // The launch as clEnqueueNDRangeKernel would check it.
  cl::GpuCommand trial;
  if (cl_int e = make_launch(buffer->queue.get(), m->work_dim, l, &trial); e != CL_SUCCESS) return e;
  *out = std::move(l);
  return CL_SUCCESS;
}

cl_int CL_API_CALL UpdateMutableCommandsKHR(cl_command_buffer_khr buffer, const cl_mutable_base_config_khr* config) {
  // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer.
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  // CL_INVALID_OPERATION if command_buffer has not been finalized, or was not created with
  // the CL_COMMAND_BUFFER_MUTABLE_KHR flag.
  if (buffer->state() == CL_COMMAND_BUFFER_STATE_RECORDING_KHR) return CL_INVALID_OPERATION;
  if (!(buffer->flags & CL_COMMAND_BUFFER_MUTABLE_KHR)) return CL_INVALID_OPERATION;
  // CL_INVALID_VALUE if mutable_config is NULL, its type is not
  // CL_STRUCTURE_TYPE_MUTABLE_BASE_CONFIG_KHR, its list is NULL with a count > 0 or not NULL
  // with a count of 0, both next and the list are NULL, or next is not NULL (no structure
  // may follow: none is defined).
  if (!config || config->type != CL_STRUCTURE_TYPE_MUTABLE_BASE_CONFIG_KHR) return CL_INVALID_VALUE;
  if ((config->mutable_dispatch_list == nullptr) != (config->num_mutable_dispatch == 0)) return CL_INVALID_VALUE;
  if (!config->mutable_dispatch_list || config->next) return CL_INVALID_VALUE;
  // "Otherwise, none of the updates to mutable-command objects are preserved": every update
  // is checked before any is made.
  std::vector<Launch> launches(config->num_mutable_dispatch);
  for (cl_uint i = 0; i < config->num_mutable_dispatch; ++i) {
    if (cl_int e = updated_launch(buffer, config->mutable_dispatch_list[i], &launches[i]); e != CL_SUCCESS) return e;
  }
  for (cl_uint i = 0; i < config->num_mutable_dispatch; ++i)
    config->mutable_dispatch_list[i].command->set_launch(std::move(launches[i]));
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetMutableCommandInfoKHR(cl_mutable_command_khr command, cl_mutable_command_info_khr param,
                                            size_t size, void* value, size_t* size_ret) {
  // CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable command object.
  if (!cl::validate(command)) return CL_INVALID_MUTABLE_COMMAND_KHR;
  cl::InfoOut out{size, value, size_ret};
  const Launch l = command->launch();
  auto sizes = [&](const _cl_mutable_command_khr::Sizes& s, bool given) {
    std::vector<size_t> v(command->work_dim, 0);
    for (cl_uint d = 0; given && d < command->work_dim; ++d) v[d] = s[d];
    return out(v);
  };
  switch (param) {
    case CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR:
      return out(static_cast<cl_command_queue>(command->buffer->queue.get()));
    case CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR: return out(static_cast<cl_command_buffer_khr>(command->buffer));
    case CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR: return out(cl_command_type(CL_COMMAND_NDRANGE_KERNEL));
    case CL_MUTABLE_DISPATCH_PROPERTIES_ARRAY_KHR: return out(command->properties);
    case CL_MUTABLE_DISPATCH_KERNEL_KHR: return out(static_cast<cl_kernel>(command->kernel.get()));
    case CL_MUTABLE_DISPATCH_DIMENSIONS_KHR: return out(command->work_dim);
    case CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR: return sizes(l.offset, l.has_offset);
    case CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR: return sizes(l.global, l.has_global);
    case CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR: return sizes(l.local, l.has_local);
    // CL_INVALID_VALUE if param_name is not valid.
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetCommandBufferInfoKHR(cl_command_buffer_khr buffer, cl_command_buffer_info_khr param,
                                           size_t size, void* value, size_t* size_ret) {
  if (!cl::validate(buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_COMMAND_BUFFER_QUEUES_KHR: return out(static_cast<cl_command_queue>(buffer->queue.get()));
    case CL_COMMAND_BUFFER_NUM_QUEUES_KHR: return out(cl_uint(1));
    case CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR: return out(cl_uint(buffer->reference_count()));
    case CL_COMMAND_BUFFER_STATE_KHR: return out(buffer->state());
    case CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: return out(buffer->properties);
    // CL_INVALID_VALUE if param_name is not one of the supported values.
    default: return CL_INVALID_VALUE;
  }
}

}  // namespace

void* command_buffer_function(const char* name) {
#define VKCL_ENTRY(F) \
  if (std::strcmp(name, "cl" #F) == 0) return reinterpret_cast<void*>(guard<F>);
  VKCL_ENTRY(CreateCommandBufferKHR)
  VKCL_ENTRY(FinalizeCommandBufferKHR)
  VKCL_ENTRY(RetainCommandBufferKHR)
  VKCL_ENTRY(ReleaseCommandBufferKHR)
  VKCL_ENTRY(EnqueueCommandBufferKHR)
  VKCL_ENTRY(CommandBarrierWithWaitListKHR)
  VKCL_ENTRY(CommandCopyBufferKHR)
  VKCL_ENTRY(CommandCopyBufferRectKHR)
  VKCL_ENTRY(CommandCopyBufferToImageKHR)
  VKCL_ENTRY(CommandCopyImageKHR)
  VKCL_ENTRY(CommandCopyImageToBufferKHR)
  VKCL_ENTRY(CommandFillBufferKHR)
  VKCL_ENTRY(CommandFillImageKHR)
  VKCL_ENTRY(CommandNDRangeKernelKHR)
  VKCL_ENTRY(GetCommandBufferInfoKHR)
  VKCL_ENTRY(UpdateMutableCommandsKHR)
  VKCL_ENTRY(GetMutableCommandInfoKHR)
#undef VKCL_ENTRY
  return nullptr;
}

}  // namespace vkcl::api
