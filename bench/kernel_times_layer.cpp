// An OpenCL loader layer (ocl-icd's OPENCL_LAYERS) that measures where a real program's device
// time goes, on any implementation: every queue is made a profiling queue, every kernel launch
// gets an event, and at exit the layer prints each kernel's launches and its summed
// COMMAND_END - COMMAND_START to stderr, largest first. Run the same program on vkcl and on
// another implementation to see which kernel is slower (bench/README.md).
// Usage: OPENCL_LAYERS=build/bench/libvkcl_kernel_times.so program ...
//        KERNEL_TIMES=wall OPENCL_LAYERS=... program ...   (host time of each launch run alone)
#include <CL/cl_icd.h>
#include <CL/cl_layer.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

const _cl_icd_dispatch* next;  // the implementation's (or the next layer's) entry points
_cl_icd_dispatch own;

struct Totals {
  unsigned long launches = 0;
  unsigned long timed = 0;
  double device_ns = 0;
};

std::mutex lock;
std::map<std::string, Totals>& totals() {
  static auto* t = new std::map<std::string, Totals>;  // outlives the exit-time report
  return *t;
}

struct Launch {
  std::string kernel;
};

void CL_CALLBACK finished(cl_event event, cl_int status, void* data) {
  auto* launch = static_cast<Launch*>(data);
  cl_ulong start = 0, end = 0;
  bool timed = status == CL_COMPLETE &&
               next->clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) ==
                   CL_SUCCESS &&
               next->clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
                   CL_SUCCESS &&
               end >= start;
  {
    std::lock_guard<std::mutex> guard(lock);
    Totals& t = totals()[launch->kernel];
    if (timed) {
      t.timed++;
      t.device_ns += double(end - start);
    }
  }
  next->clReleaseEvent(event);
  delete launch;
}

std::string kernel_name(cl_kernel kernel) {
  char name[256] = {};
  if (next->clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr) != CL_SUCCESS)
    return "(unnamed)";
  return name;
}

double host_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// KERNEL_TIMES=wall: each launch runs alone (clFinish before and after) and its host time is
// counted, for implementations whose profiling times cannot be trusted.
bool wall_clock() {
  static const bool wall = [] {
    const char* v = std::getenv("KERNEL_TIMES");
    return v && std::strcmp(v, "wall") == 0;
  }();
  return wall;
}

cl_int CL_API_CALL enqueue_nd_range(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                                    const size_t* global, const size_t* local, cl_uint num_events,
                                    const cl_event* wait_list, cl_event* event) {
  if (wall_clock()) {
    next->clFinish(queue);
    double start = host_ns();
    cl_int err = next->clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, num_events, wait_list, event);
    if (err != CL_SUCCESS) return err;
    next->clFinish(queue);
    double took = host_ns() - start;
    std::lock_guard<std::mutex> guard(lock);
    Totals& t = totals()[kernel_name(kernel)];
    t.launches++;
    t.timed++;
    t.device_ns += took;
    return CL_SUCCESS;
  }
  cl_event mine = nullptr;
  cl_int err = next->clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, num_events, wait_list, &mine);
  if (err != CL_SUCCESS) return err;
  std::string name = kernel_name(kernel);
  {
    std::lock_guard<std::mutex> guard(lock);
    totals()[name].launches++;
  }
  if (event) {
    *event = mine;
    next->clRetainEvent(mine);  // one reference for the application, one for the callback
  }
  if (next->clSetEventCallback(mine, CL_COMPLETE, finished, new Launch{name}) != CL_SUCCESS) next->clReleaseEvent(mine);
  return CL_SUCCESS;
}

cl_command_queue CL_API_CALL create_queue(cl_context context, cl_device_id device, cl_command_queue_properties props,
                                          cl_int* err) {
  return next->clCreateCommandQueue(context, device, props | CL_QUEUE_PROFILING_ENABLE, err);
}

cl_command_queue CL_API_CALL create_queue_with_properties(cl_context context, cl_device_id device,
                                                          const cl_queue_properties* props, cl_int* err) {
  std::vector<cl_queue_properties> with;
  bool found = false;
  for (size_t i = 0; props && props[i]; i += 2) {
    with.push_back(props[i]);
    with.push_back(props[i] == CL_QUEUE_PROPERTIES ? props[i + 1] | CL_QUEUE_PROFILING_ENABLE : props[i + 1]);
    found |= props[i] == CL_QUEUE_PROPERTIES;
  }
  if (!found) with.insert(with.end(), {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE});
  with.push_back(0);
  return next->clCreateCommandQueueWithProperties(context, device, with.data(), err);
}

// Printed from a destructor rather than atexit so that it runs after the program's own exit
// handlers (which may still finish queues).
struct Report {
  ~Report() {
    if (!next) return;
    std::lock_guard<std::mutex> guard(lock);
    std::vector<std::pair<std::string, Totals>> rows(totals().begin(), totals().end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.device_ns > b.second.device_ns; });
    double all = 0;
    for (const auto& r : rows) all += r.second.device_ns;
    std::fprintf(stderr, "\nkernel times (%s): %.3f ms in all\n",
                 wall_clock() ? "host, each launch alone" : "device, COMMAND_END - COMMAND_START", all * 1e-6);
    std::fprintf(stderr, "%-40s %10s %12s %12s %7s\n", "kernel", "launches", "total ms", "mean us", "share");
    for (const auto& [name, t] : rows) {
      double mean_us = t.timed ? t.device_ns / double(t.timed) * 1e-3 : 0;
      std::fprintf(stderr, "%-40s %10lu %12.3f %12.2f %6.1f%%\n", name.c_str(), t.launches, t.device_ns * 1e-6,
                   mean_us, all > 0 ? 100 * t.device_ns / all : 0);
    }
  }
} report;

}  // namespace

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param, size_t size, void* value, size_t* size_ret) {
  if (param != CL_LAYER_API_VERSION) return CL_INVALID_VALUE;
  cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  if (size_ret) *size_ret = sizeof version;
  if (value) {
    if (size < sizeof version) return CL_INVALID_VALUE;
    std::memcpy(value, &version, sizeof version);
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const _cl_icd_dispatch* target, cl_uint* num_entries_ret,
                                            const _cl_icd_dispatch** layer_dispatch) {
  const cl_uint ours = sizeof(_cl_icd_dispatch) / sizeof(void*);
  // The three entries replaced here are old ones: a loader's table has them whatever its size.
  if (!target || !num_entries_ret || !layer_dispatch) return CL_INVALID_VALUE;
  next = target;
  std::memcpy(&own, target, std::min(num_entries, ours) * sizeof(void*));
  own.clEnqueueNDRangeKernel = enqueue_nd_range;
  own.clCreateCommandQueue = create_queue;
  own.clCreateCommandQueueWithProperties = create_queue_with_properties;
  *layer_dispatch = &own;
  *num_entries_ret = ours;
  return CL_SUCCESS;
}

}  // extern "C"
