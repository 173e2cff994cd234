/* vulkan_interop: a Vulkan program shares memory with an OpenCL kernel, as a renderer that
 * runs OpenCL compute beside its Vulkan work would (cl_khr_external_memory_opaque_fd).
 *
 * The Vulkan side allocates a buffer's memory as exportable, fills it on its own queue
 * (vkCmdFillBuffer) and exports it as an opaque fd. The OpenCL side imports the fd as a
 * cl_mem, acquires it, runs a kernel over it and releases it. The Vulkan side then copies
 * the buffer into a host-visible one on its queue and checks every value.
 *
 * Ordering between the two APIs: where the OpenCL device has cl_khr_external_semaphore_*,
 * a semaphore would carry it; vkcl does not have external semaphores yet, and lavapipe
 * cannot export them, so each side waits for its own queue (vkQueueWaitIdle, clFinish)
 * before the other starts. Exits 0 when every value is right, 77 when the device cannot
 * share memory this way. */
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#define N 65536
#define FILL 0x3fc00000u /* 1.5f */

#define CL_CHECK(call)                                                                 \
  do {                                                                                 \
    cl_int err_ = (call);                                                              \
    if (err_ != CL_SUCCESS) {                                                          \
      fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, err_); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)
#define VK_CHECK(call)                                                                 \
  do {                                                                                 \
    VkResult r_ = (call);                                                              \
    if (r_ != VK_SUCCESS) {                                                            \
      fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, r_);   \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static const char* kSource =
    "__kernel void scale(__global float* x) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = x[i] * 2.0f + (float)i;\n"
    "}\n";

/* The vkcl device that imports opaque fds, or exits 77. */
static cl_device_id pick_device(cl_platform_id* platform_out) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  CL_CHECK(clGetPlatformIDs(16, platforms, &count));
  for (cl_uint p = 0; p < count && p < 16; ++p) {
    char name[64] = {0};
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strcmp(name, "vkcl") != 0) continue;
    cl_device_id device;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL) != CL_SUCCESS) continue;
    char extensions[8192] = {0};
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL);
    if (!strstr(extensions, "cl_khr_external_memory_opaque_fd")) {
      printf("the device does not import opaque fds\n");
      exit(77);
    }
    *platform_out = platforms[p];
    return device;
  }
  printf("no vkcl platform\n");
  exit(77);
}

static uint32_t memory_type(VkPhysicalDevice physical, uint32_t bits, VkMemoryPropertyFlags wanted) {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t)
    if ((bits & (1u << t)) && (memory.memoryTypes[t].propertyFlags & wanted) == wanted) return t;
  fprintf(stderr, "no memory type\n");
  exit(1);
}

static void make_buffer(VkDevice device, VkPhysicalDevice physical, VkBufferUsageFlags usage,
                        VkMemoryPropertyFlags properties, int exportable, VkBuffer* buffer, VkDeviceMemory* memory) {
  VkExternalMemoryBufferCreateInfo external = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, exportable ? &external : NULL};
  info.size = N * sizeof(float);
  info.usage = usage;
  VK_CHECK(vkCreateBuffer(device, &info, NULL, buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, *buffer, &req);
  VkExportMemoryAllocateInfo exported = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  exported.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, exportable ? &exported : NULL};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = memory_type(physical, req.memoryTypeBits, properties);
  VK_CHECK(vkAllocateMemory(device, &alloc, NULL, memory));
  VK_CHECK(vkBindBufferMemory(device, *buffer, *memory, 0));
}

/* Fills |shared| (no |readback|) or copies it into |readback| on the queue, and waits. */
static void run_on_queue(VkDevice device, VkQueue queue, VkCommandPool pool, VkBuffer shared, VkBuffer readback) {
  VkCommandBufferAllocateInfo alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cb;
  VK_CHECK(vkAllocateCommandBuffers(device, &alloc, &cb));
  VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(cb, &begin));
  if (readback) {
    VkBufferCopy region = {0, 0, N * sizeof(float)};
    vkCmdCopyBuffer(cb, shared, readback, 1, &region);
  } else {
    vkCmdFillBuffer(cb, shared, 0, VK_WHOLE_SIZE, FILL);
  }
  VK_CHECK(vkEndCommandBuffer(cb));
  VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  VK_CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
  VK_CHECK(vkQueueWaitIdle(queue));
  vkFreeCommandBuffers(device, pool, 1, &cb);
}

int main(void) {
  cl_platform_id platform;
  cl_device_id cl_device = pick_device(&platform);
  cl_uchar uuid[CL_UUID_SIZE_KHR];
  CL_CHECK(clGetDeviceInfo(cl_device, CL_DEVICE_UUID_KHR, sizeof uuid, uuid, NULL));

  /* The Vulkan program: the physical device OpenCL runs on, found by its UUID. */
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo instance_info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  VkInstance instance;
  VK_CHECK(vkCreateInstance(&instance_info, NULL, &instance));
  uint32_t count = 16;
  VkPhysicalDevice physicals[16];
  VkResult enumerated = vkEnumeratePhysicalDevices(instance, &count, physicals);
  if (enumerated != VK_SUCCESS && enumerated != VK_INCOMPLETE) exit(1);
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceIDProperties id = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    vkGetPhysicalDeviceProperties2(physicals[i], &props);
    if (memcmp(id.deviceUUID, uuid, VK_UUID_SIZE) == 0) physical = physicals[i];
  }
  if (!physical) {
    fprintf(stderr, "no Vulkan device has the OpenCL device's UUID\n");
    return 1;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = 0; /* the first family of a device OpenCL runs on has transfers */
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  const char* extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
  VkDeviceCreateInfo device_info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = 1;
  device_info.ppEnabledExtensionNames = extensions;
  VkDevice device;
  VK_CHECK(vkCreateDevice(physical, &device_info, NULL, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, 0, 0, &queue);
  VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool;
  VK_CHECK(vkCreateCommandPool(device, &pool_info, NULL, &pool));

  VkBuffer shared, readback;
  VkDeviceMemory shared_memory, readback_memory;
  make_buffer(device, physical, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 1, &shared, &shared_memory);
  make_buffer(device, physical, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, &readback,
              &readback_memory);
  run_on_queue(device, queue, pool, shared, VK_NULL_HANDLE);  /* 1.5f everywhere */
  PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR");
  VkMemoryGetFdInfoKHR fd_info = {VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  fd_info.memory = shared_memory;
  fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VK_CHECK(get_fd(device, &fd_info, &fd));

  /* The OpenCL side. */
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &cl_device, NULL, NULL, &err);
  CL_CHECK(err);
  cl_command_queue cl_queue = clCreateCommandQueueWithProperties(context, cl_device, NULL, &err);
  CL_CHECK(err);
  const cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, (cl_mem_properties)fd, 0};
  cl_mem x = clCreateBufferWithProperties(context, props, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
  CL_CHECK(err);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
  CL_CHECK(err);
  CL_CHECK(clBuildProgram(program, 1, &cl_device, "", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "scale", &err);
  CL_CHECK(err);
  CL_CHECK(clSetKernelArg(kernel, 0, sizeof x, &x));
  clEnqueueAcquireExternalMemObjectsKHR_fn acquire = (clEnqueueAcquireExternalMemObjectsKHR_fn)
      clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireExternalMemObjectsKHR");
  clEnqueueReleaseExternalMemObjectsKHR_fn release = (clEnqueueReleaseExternalMemObjectsKHR_fn)
      clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseExternalMemObjectsKHR");
  if (!acquire || !release) {
    fprintf(stderr, "no acquire/release entry points\n");
    return 1;
  }
  size_t global = N;
  CL_CHECK(acquire(cl_queue, 1, &x, 0, NULL, NULL));
  CL_CHECK(clEnqueueNDRangeKernel(cl_queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_CHECK(release(cl_queue, 1, &x, 0, NULL, NULL));
  CL_CHECK(clFinish(cl_queue));

  /* Back on the Vulkan side: copy out and check. */
  run_on_queue(device, queue, pool, shared, readback);
  float* got;
  VK_CHECK(vkMapMemory(device, readback_memory, 0, VK_WHOLE_SIZE, 0, (void**)&got));
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    float want = 1.5f * 2.0f + (float)i;
    if (got[i] != want && wrong++ < 5) fprintf(stderr, "x[%d] = %g, want %g\n", i, got[i], want);
  }
  printf("vulkan_interop: %d of %d values shared through an opaque fd %s\n", N - wrong, N,
         wrong ? "WRONG" : "right");

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(x);
  clReleaseCommandQueue(cl_queue);
  clReleaseContext(context);
  close(fd); /* vkcl imported a duplicate */
  vkUnmapMemory(device, readback_memory);
  vkDestroyBuffer(device, shared, NULL);
  vkDestroyBuffer(device, readback, NULL);
  vkFreeMemory(device, shared_memory, NULL);
  vkFreeMemory(device, readback_memory, NULL);
  vkDestroyCommandPool(device, pool, NULL);
  vkDestroyDevice(device, NULL);
  vkDestroyInstance(instance, NULL);
  return wrong ? 1 : 0;
}
