/* vkcl_demo: an ordinary OpenCL application (the README's main job). It finds the vkcl
 * platform through the system ICD loader, prints the platform and device, runs a vector add,
 * a saxpy with a global offset and a work-group reduction, and checks each against the CPU.
 * Set VKCL_DEMO_ANY_PLATFORM=1 to run it on the first platform instead (e.g. PoCL). */
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cl_int err_ = (call);                                                        \
    if (err_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, err_); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

static const char* kSource =
    "__kernel void vadd(__global const float* a, __global const float* b,\n"
    "                   __global float* c, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void saxpy(float alpha, __global const float* x, __global float* y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = alpha * x[i] + y[i];\n"
    "}\n"
    "__kernel void reduce(__global const int* in, __global int* total, __local int* tmp) {\n"
    "  size_t l = get_local_id(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) atomic_add(total, tmp[0]);\n"
    "}\n";

static cl_platform_id pick_platform(void) {
  cl_uint count = 0;
  CHECK(clGetPlatformIDs(0, NULL, &count));
  cl_platform_id* platforms = malloc(sizeof(cl_platform_id) * count);
  CHECK(clGetPlatformIDs(count, platforms, NULL));
  cl_platform_id chosen = NULL;
  for (cl_uint i = 0; i < count && !chosen; ++i) {
    char name[256] = {0};
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
    if (strcmp(name, "vkcl") == 0 || getenv("VKCL_DEMO_ANY_PLATFORM")) chosen = platforms[i];
  }
  free(platforms);
  return chosen;
}

static int report(const char* name, int ok, const char* detail) {
  printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name, detail[0] ? " " : "", detail);
  return ok ? 0 : 1;
}

int main(void) {
  cl_platform_id platform = pick_platform();
  if (!platform) {
    fprintf(stderr, "the vkcl platform is not registered with the ICD loader "
                    "(set OCL_ICD_VENDORS to build/vkcl.icd)\n");
    return 1;
  }
  char text[512];
  CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(text), text, NULL));
  printf("Platform: %s", text);
  CHECK(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof(text), text, NULL));
  printf(" (%s)\n", text);
  cl_device_id device;
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL));
  cl_device_type type;
  cl_uint units;
  cl_ulong memory;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(text), text, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(memory), &memory, NULL));
  printf("Device: %s (%s, %u compute units, %llu MiB global memory)\n", text,
         type == CL_DEVICE_TYPE_GPU ? "GPU" : type == CL_DEVICE_TYPE_CPU ? "CPU" : "other", units,
         (unsigned long long)(memory >> 20));

  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK(err);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
  CHECK(err);
  err = clBuildProgram(program, 1, &device, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char* log = malloc(size + 1);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    fprintf(stderr, "build failed (%d):\n%s\n", err, log);
    return 1;
  }
  int failures = 0;
  char detail[256] = "";
  srand(1234);

  /* Vector add over a size that is not a multiple of the work-group size. */
  {
    const int n = 100003;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    for (int i = 0; i < n; ++i) a[i] = rand() / (float)RAND_MAX, b[i] = rand() / (float)RAND_MAX, c[i] = -1;
    cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, a, &err);
    cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, b, &err);
    cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, n * 4, NULL, &err);
    CHECK(err);
    cl_kernel k = clCreateKernel(program, "vadd", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &da));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &db));
    CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &dc));
    CHECK(clSetKernelArg(k, 3, sizeof(int), &n));
    size_t local = 128, global = (n + local - 1) / local * local;
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, n * 4, c, 0, NULL, NULL));
    int ok = 1;
    for (int i = 0; i < n && ok; ++i)
      if (c[i] != a[i] + b[i]) {
        ok = 0;
        snprintf(detail, sizeof(detail), "(first mismatch at %d: %g != %g)", i, c[i], a[i] + b[i]);
      }
    failures += report("vector add", ok, ok ? "" : detail);
    clReleaseKernel(k);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    free(a), free(b), free(c);
  }

  /* saxpy on the middle of the array, through a global offset. */
  {
    const size_t n = 65536, offset = 1000, count = 50000;
    float *x = malloc(n * 4), *y = malloc(n * 4), *out = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) x[i] = rand() / (float)RAND_MAX, y[i] = rand() / (float)RAND_MAX;
    float alpha = 1.75f;
    cl_mem dx = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, x, &err);
    cl_mem dy = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, y, &err);
    CHECK(err);
    cl_kernel k = clCreateKernel(program, "saxpy", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof(float), &alpha));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &dx));
    CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &dy));
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, &offset, &count, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, dy, CL_TRUE, 0, n * 4, out, 0, NULL, NULL));
    int ok = 1;
    for (size_t i = 0; i < n && ok; ++i) {
      /* OpenCL C contracts a * x + y by default: both roundings are correct answers. */
      volatile float product = alpha * x[i];
      int inside = i >= offset && i < offset + count;
      float expect = inside ? product + y[i] : y[i];
      float fused = inside ? fmaf(alpha, x[i], y[i]) : y[i];
      if (out[i] != expect && out[i] != fused) {
        ok = 0;
        snprintf(detail, sizeof(detail), "(first mismatch at %zu: %g != %g)", i, out[i], expect);
      }
    }
    failures += report("saxpy with global offset", ok, ok ? "" : detail);
    clReleaseKernel(k);
    clReleaseMemObject(dx);
    clReleaseMemObject(dy);
    free(x), free(y), free(out);
  }

  /* Reduction with __local memory, barriers and a global atomic. */
  {
    const size_t n = 1 << 18, local = 256;
    int* in = malloc(n * sizeof(int));
    long long expect = 0;
    for (size_t i = 0; i < n; ++i) in[i] = rand() % 2001 - 1000, expect += in[i];
    int zero = 0, total = 0;
    cl_mem din = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, in, &err);
    cl_mem dt = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &zero, &err);
    CHECK(err);
    cl_kernel k = clCreateKernel(program, "reduce", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &din));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &dt));
    CHECK(clSetKernelArg(k, 2, local * sizeof(int), NULL));
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &n, &local, 0, NULL, &done));
    CHECK(clWaitForEvents(1, &done));
    CHECK(clEnqueueReadBuffer(queue, dt, CL_TRUE, 0, 4, &total, 0, NULL, NULL));
    snprintf(detail, sizeof(detail), "(%d, expected %lld)", total, expect);
    failures += report("work-group reduction", total == expect, total == expect ? "" : detail);
    clReleaseEvent(done);
    clReleaseKernel(k);
    clReleaseMemObject(din);
    clReleaseMemObject(dt);
    free(in);
  }

  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  printf("%s\n", failures ? "Some checks FAILED" : "All checks passed");
  return failures ? 1 : 0;
}
