#include "runtime/cl_harness.h"

#include <stdexcept>

namespace vkcl::test {

cl_platform_id find_vkcl_platform() {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return nullptr;
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name), name, nullptr);
    if (std::string(name) == "vkcl") return p;
  }
  return nullptr;
}

cl_ulong validation_messages(cl_platform_id platform) {
  using Fn = cl_ulong(CL_API_CALL*)();
  auto fn = reinterpret_cast<Fn>(
      clGetExtensionFunctionAddressForPlatform(platform, "clGetValidationMessageCountVKCL"));
  return fn ? fn() : ~cl_ulong(0);  // a missing query fails the check too
}

void KernelTest::TearDown() {
  if (queue_.get()) clFinish(queue_);
  if (platform_) {
    EXPECT_EQ(validation_messages(platform_), 0u) << "Vulkan validation messages";
  }
}

namespace {

// The fixture is made with VKCL_FAIL_HOST_ALLOCATIONS unset (and the variable set back
// after), so that a run of the tests under it fails allocations in the tests' own steps
// rather than in every test's first clCreateContext.
class HostAllocationFailuresAside {
 public:
  HostAllocationFailuresAside() {
    if (const char* v = std::getenv("VKCL_FAIL_HOST_ALLOCATIONS")) value_ = v;
    unsetenv("VKCL_FAIL_HOST_ALLOCATIONS");
  }
  ~HostAllocationFailuresAside() {
    if (!value_.empty()) setenv("VKCL_FAIL_HOST_ALLOCATIONS", value_.c_str(), 1);
  }

 private:
  std::string value_;
};

}  // namespace

void KernelTest::SetUp() {
  HostAllocationFailuresAside aside;
  platform_ = find_vkcl_platform();
  ASSERT_NE(platform_, nullptr) << "the vkcl platform is not visible through the ICD loader";
  ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_DEFAULT, 1, &device_, nullptr));
  cl_int err = CL_SUCCESS;
  context_ = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  queue_ = Queue(clCreateCommandQueueWithProperties(context_, device_, props, &err));
  ASSERT_EQ(CL_SUCCESS, err);
}

Program KernelTest::build(const std::string& source, const std::string& extra_options) {
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  Program p(clCreateProgramWithSource(context_, 1, &text, nullptr, &err));
  EXPECT_EQ(CL_SUCCESS, err);
  std::string options = GetParam() + " " + extra_options;
  err = clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    ADD_FAILURE() << "build failed (" << err << ") with options '" << options << "':\n" << log;
  }
  return p;
}

Kernel KernelTest::kernel(const Program& program, const char* name) {
  cl_int err = CL_SUCCESS;
  Kernel k(clCreateKernel(program, name, &err));
  EXPECT_EQ(CL_SUCCESS, err) << "clCreateKernel(" << name << ")";
  return k;
}

Mem KernelTest::buffer(size_t bytes, const void* init, cl_mem_flags flags) {
  cl_int err = CL_SUCCESS;
  if (init) flags |= CL_MEM_COPY_HOST_PTR;
  Mem m(clCreateBuffer(context_, flags, bytes, const_cast<void*>(init), &err));
  EXPECT_EQ(CL_SUCCESS, err);
  // A test cannot go on without its buffer (its kernel would be handed NULL and write
  // through it, as under VKCL_FAIL_HOST_ALLOCATIONS): the exception ends the test, which
  // GoogleTest reports as a failure.
  if (!m) throw std::runtime_error("clCreateBuffer failed: " + std::to_string(err));
  return m;
}

Mem KernelTest::poisoned(size_t bytes) {
  std::vector<unsigned char> poison(bytes, 0xAB);
  return buffer(bytes, poison.data());
}

void KernelTest::run(const Kernel& k, cl_uint dims, const size_t* global, const size_t* local,
                     const size_t* offset) {
  ASSERT_EQ(CL_SUCCESS,
            clEnqueueNDRangeKernel(queue_, k, dims, offset, global, local, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clFinish(queue_));
}

std::string options_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param.empty() ? "Default" : "OptDisable";
}

}  // namespace vkcl::test
