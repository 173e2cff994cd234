// Test harness for kernel tests: a real OpenCL application through the system ICD loader.
// Owns everything it creates (RAII), so a failing assertion leaks nothing.
#pragma once

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace vkcl::test {

// The vkcl platform, or nullptr.
cl_platform_id find_vkcl_platform();
// Vulkan validation messages vkcl has seen so far (its clGetValidationMessageCountVKCL).
cl_ulong validation_messages(cl_platform_id platform);

template <typename T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  Handle(Handle&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Handle& operator=(Handle&& o) noexcept { std::swap(h_, o.h_); return *this; }
  Handle(const Handle&) = delete;
  ~Handle() { if (h_) Release(h_); }
  T get() const { return h_; }
  operator T() const { return h_; }

 private:
  T h_ = nullptr;
};

using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Mem = Handle<cl_mem, clReleaseMemObject>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Event = Handle<cl_event, clReleaseEvent>;

// A context and profiling queue on the vkcl device; kernel tests derive from it. The test
// parameter is the build options string (e.g. "-cl-opt-disable" or "").
// While alive, VKCL_WITHOUT_FEATURES also hides images (the device reports none); the
// variable's value before is restored after.
class WithoutImages {
 public:
  WithoutImages() {
    const char* old = std::getenv("VKCL_WITHOUT_FEATURES");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("VKCL_WITHOUT_FEATURES", (had_ ? old_ + ",images" : std::string("images")).c_str(), 1);
  }
  ~WithoutImages() {
    if (had_) setenv("VKCL_WITHOUT_FEATURES", old_.c_str(), 1);
    else unsetenv("VKCL_WITHOUT_FEATURES");
  }
  WithoutImages(const WithoutImages&) = delete;
  WithoutImages& operator=(const WithoutImages&) = delete;

 private:
  bool had_ = false;
  std::string old_;
};

// Captures stderr while alive; text() ends the capture, and so does the destructor, so that
// an ASSERT returning early leaves no capture behind (gtest aborts on a second one).
class CapturedStderr {
 public:
  CapturedStderr() { testing::internal::CaptureStderr(); }
  ~CapturedStderr() { (void)text(); }
  CapturedStderr(const CapturedStderr&) = delete;
  CapturedStderr& operator=(const CapturedStderr&) = delete;
  std::string text() {
    if (!done_) text_ = testing::internal::GetCapturedStderr();
    done_ = true;
    return text_;
  }

 private:
  bool done_ = false;
  std::string text_;
};

class KernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Builds |source| with the test's options plus |extra_options|; fails the test with the
  // build log on error.
  Program build(const std::string& source, const std::string& extra_options = "");
  // A program made from |text| and not built yet.
  Program source(const char* text) {
    cl_int err;
    Program p(clCreateProgramWithSource(context_, 1, &text, nullptr, &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return p;
  }
  // The device's build log of |p|.
  std::string log_of(cl_program p) {
    size_t size = 0;
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    return log;
  }
  Kernel kernel(const Program& program, const char* name);
  Mem buffer(size_t bytes, const void* init = nullptr, cl_mem_flags flags = CL_MEM_READ_WRITE);
  // A buffer filled with 0xAB bytes, so an element the kernel never writes is caught.
  Mem poisoned(size_t bytes);
  template <typename T>
  std::vector<T> read(const Mem& m, size_t count) {
    std::vector<T> out(count);
    EXPECT_EQ(CL_SUCCESS, clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, count * sizeof(T),
                                              out.data(), 0, nullptr, nullptr));
    return out;
  }
  template <typename T>
  void set_arg(const Kernel& k, cl_uint index, const T& value) {
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, index, sizeof(T), &value));
  }
  void set_mem_arg(const Kernel& k, cl_uint index, const Mem& m) {
    cl_mem h = m.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, index, sizeof(cl_mem), &h));
  }
  void run(const Kernel& k, cl_uint dims, const size_t* global, const size_t* local,
           const size_t* offset = nullptr);

  std::mt19937 rng_{12345};
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  Context context_;
  Queue queue_;
};

std::string options_name(const ::testing::TestParamInfo<std::string>& info);

}  // namespace vkcl::test
