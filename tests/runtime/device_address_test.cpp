// cl_ext_buffer_device_address: buffers made with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT give their
// device address, kernels take such addresses (and addresses inside such buffers) as pointer
// arguments and through memory (CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT); results against the CPU.
#include <CL/cl_ext.h>

#include <cstdlib>
#include <vector>

#include "runtime/cl_harness.h"

#ifndef cl_ext_buffer_device_address
typedef cl_ulong cl_mem_device_address_ext;
#define CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT 0x5000
#define CL_MEM_DEVICE_ADDRESS_EXT 0x5001
#define CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT 0x5002
#endif

namespace vkcl::test {
namespace {

using SetDevicePointer = cl_int(CL_API_CALL*)(cl_kernel, cl_uint, cl_mem_device_address_ext);

class DeviceAddress : public KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    if (HasFatalFailure()) return;
    set_pointer_ = reinterpret_cast<SetDevicePointer>(
        clGetExtensionFunctionAddressForPlatform(platform_, "clSetKernelArgDevicePointerEXT"));
    ASSERT_NE(nullptr, set_pointer_);
  }
  cl_mem addressed(size_t size, cl_mem_device_address_ext* address, cl_int* err) {
    const cl_mem_properties props[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE, 0};
    cl_mem m = clCreateBufferWithProperties(context_, props, CL_MEM_READ_WRITE, size, nullptr, err);
    if (m && address) clGetMemObjectInfo(m, CL_MEM_DEVICE_ADDRESS_EXT, sizeof *address, address, nullptr);
    return m;
  }
  SetDevicePointer set_pointer_ = nullptr;
};

TEST_P(DeviceAddress, PointerArgumentsAndPointersInMemory) {
  constexpr size_t n = 1024;
  cl_int err = CL_SUCCESS;
  cl_mem_device_address_ext a_address = 0, b_address = 0;
  Mem a(addressed(n * 4, &a_address, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem b(addressed(n * 4, &b_address, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_NE(0u, a_address);
  // Sub-buffers have their parent's address plus their origin.
  cl_buffer_region region{256, 256};
  Mem sub(clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_mem_device_address_ext sub_address = 0;
  ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sub, CL_MEM_DEVICE_ADDRESS_EXT, sizeof sub_address, &sub_address, nullptr));
  EXPECT_EQ(a_address + 256, sub_address);
  Program p = build(R"(
    __kernel void fill(__global int* p, int base) { p[get_global_id(0)] = base + (int)get_global_id(0); }
    // |table| holds a device address; the kernel writes through it.
    __kernel void through(__global const ulong* table, int scale) {
      __global int* q = (__global int*)table[0];
      size_t i = get_global_id(0);
      q[i] = q[i] * scale;
    })");
  // An address 16 ints into |a|: the kernel fills from there.
  Kernel fill = kernel(p, "fill");
  ASSERT_EQ(CL_SUCCESS, set_pointer_(fill, 0, a_address + 16 * 4));
  set_arg(fill, 1, 100);
  const size_t items = n - 16;
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, fill, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
  std::vector<cl_int> got = read<cl_int>(a, n);
  for (size_t i = 16; i < n; ++i) ASSERT_EQ(cl_int(100 + i - 16), got[i]) << i;
  // |b| filled, then scaled through its address stored in a table.
  ASSERT_EQ(CL_SUCCESS, set_pointer_(fill, 0, b_address));
  set_arg(fill, 1, 7);
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, fill, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  Mem table = buffer(8, &b_address);
  Kernel through = kernel(p, "through");
  set_mem_arg(through, 0, table);
  set_arg(through, 1, 3);
  ASSERT_EQ(CL_SUCCESS, clSetKernelExecInfo(through, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, sizeof b_address, &b_address));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, through, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  got = read<cl_int>(b, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(cl_int(7 + i) * 3, got[i]) << i;
}

// Checked mode (VKCL_CHECKED=1) lets a kernel reach a buffer through an address in memory
// only where the exec info lists it, and a clone of the kernel keeps that list.
TEST_P(DeviceAddress, CheckedModeAndClonesKeepTheExecInfo) {
  setenv("VKCL_CHECKED", "1", 1);
  Program p = build(R"(
    __kernel void through(__global const ulong* table) { ((__global int*)table[0])[get_global_id(0)] = 9; })");
  unsetenv("VKCL_CHECKED");
  constexpr size_t n = 64;
  cl_int err = CL_SUCCESS;
  cl_mem_device_address_ext address = 0;
  Mem target(addressed(n * 4, &address, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Mem table = buffer(8, &address);
  Kernel unlisted = kernel(p, "through");
  set_mem_arg(unlisted, 0, table);
  auto status_of = [&](cl_kernel k) {
    cl_event e = nullptr;
    testing::internal::CaptureStderr();
    cl_int s = clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &n, nullptr, 0, nullptr, &e);
    if (s == CL_SUCCESS) {
      clWaitForEvents(1, &e);
      clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
      clReleaseEvent(e);
    }
    testing::internal::GetCapturedStderr();
    return s;
  };
  EXPECT_EQ(CL_OUT_OF_RESOURCES, status_of(unlisted)) << "an unlisted buffer was reached";
  Kernel listed = kernel(p, "through");
  set_mem_arg(listed, 0, table);
  ASSERT_EQ(CL_SUCCESS, clSetKernelExecInfo(listed, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, sizeof address, &address));
  Kernel clone(clCloneKernel(listed, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(CL_COMPLETE, status_of(clone));
  std::vector<cl_int> got = read<cl_int>(target, n);
  for (cl_int v : got) ASSERT_EQ(9, v);
}

TEST_P(DeviceAddress, ErrorCodes) {
  cl_int err = CL_SUCCESS;
  cl_mem_device_address_ext address = 0;
  Mem a(addressed(64, &address, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  Program p = build("__kernel void k(__global int* p, int x) { p[0] = x; }");
  Kernel k = kernel(p, "k");
  EXPECT_EQ(CL_INVALID_KERNEL, set_pointer_(nullptr, 0, address));
  EXPECT_EQ(CL_INVALID_ARG_INDEX, set_pointer_(k, 2, address));
  EXPECT_EQ(CL_INVALID_ARG_VALUE, set_pointer_(k, 1, address));           // not a pointer
  EXPECT_EQ(CL_INVALID_ARG_VALUE, set_pointer_(k, 0, address + 64));      // past the buffer
  EXPECT_EQ(CL_INVALID_ARG_VALUE, set_pointer_(k, 0, 0x1000));            // no buffer's
  EXPECT_EQ(CL_SUCCESS, set_pointer_(k, 0, 0));                           // NULL
  const cl_mem_device_address_ext outside = address + 64;
  EXPECT_EQ(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, sizeof outside, &outside));
  EXPECT_EQ(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, 3, &address));
  // A buffer made without the property has no address to give; nor has an image.
  Mem plain = buffer(64);
  cl_mem_device_address_ext none = 0;
  EXPECT_EQ(CL_INVALID_OPERATION, clGetMemObjectInfo(plain, CL_MEM_DEVICE_ADDRESS_EXT, sizeof none, &none, nullptr));
  const cl_mem_properties twice[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE, CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE, 0};
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, twice, 0, 64, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  const cl_mem_properties not_bool[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, 2, 0};
  EXPECT_EQ(nullptr, clCreateBufferWithProperties(context_, not_bool, 0, 64, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  // The extension is named.
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  EXPECT_NE(std::string::npos, extensions.find("cl_ext_buffer_device_address"));
}

INSTANTIATE_TEST_SUITE_P(Options, DeviceAddress, ::testing::Values(std::string("")), options_name);

}  // namespace
}  // namespace vkcl::test
