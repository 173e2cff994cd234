// Platform, device, context and queue entry points: normal paths and the specification's
// error codes, through the real ICD loader.
// clCreateCommandQueue (deprecated by OpenCL 2.0) is still an entry point to test.
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_ext.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

struct Fake {  // a pointer that is not a vkcl object
  void* dispatch = nullptr;
  uint32_t magic = 0;
};

class Api : public ::testing::Test {
 protected:
  void SetUp() override {
    platform_ = find_vkcl_platform();
    ASSERT_NE(platform_, nullptr);
    ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_DEFAULT, 1, &device_, nullptr));
  }
  void TearDown() override { EXPECT_EQ(validation_messages(platform_), 0u); }
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
};

TEST_F(Api, PlatformInfo) {
  char name[64];
  ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(platform_, CL_PLATFORM_NAME, sizeof(name), name, nullptr));
  EXPECT_STREQ(name, "vkcl");
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(platform_, CL_PLATFORM_VERSION, 0, nullptr, &size));
  std::string version(size, '\0');
  ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(platform_, CL_PLATFORM_VERSION, size, version.data(), nullptr));
  EXPECT_EQ(version.rfind("OpenCL 3.0", 0), 0u);
  EXPECT_EQ(CL_INVALID_VALUE, clGetPlatformInfo(platform_, 0x7777, sizeof(name), name, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clGetPlatformInfo(platform_, CL_PLATFORM_NAME, 2, name, nullptr));
}

// A CPU device (lavapipe) reports the host's compute units and its highest clock as the host
// tells them (cpufreq where there is one, else /proc/cpuinfo), not 1 and 0.
TEST_F(Api, CpuDeviceReportsTheHostsCoresAndClock) {
  cl_device_type type = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_TYPE, sizeof(type), &type, nullptr));
  if (type != CL_DEVICE_TYPE_CPU) GTEST_SKIP() << "not a CPU device";
  cl_uint units = 0, mhz = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, nullptr));
  EXPECT_EQ(units, std::max(1u, std::thread::hardware_concurrency()));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(mhz), &mhz, nullptr));
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  unsigned long khz = 0;
  if (max_freq >> khz) {
    EXPECT_EQ(mhz, cl_uint(khz / 1000));
    return;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  double best = 0;
  while (std::getline(cpuinfo, line))
    if (line.rfind("cpu MHz", 0) == 0) best = std::max(best, std::stod(line.substr(line.find(':') + 1)));
  if (best == 0) GTEST_SKIP() << "the host tells no clock";
  EXPECT_NEAR(double(mhz), best, 1.0);
}

TEST_F(Api, DeviceIdsAndInfo) {
  cl_uint count = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_ALL, 0, nullptr, &count));
  EXPECT_GE(count, 1u);
  EXPECT_EQ(CL_INVALID_DEVICE_TYPE, clGetDeviceIDs(platform_, cl_device_type(1) << 40, 0, nullptr, &count));
  EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_ALL, 0, nullptr, nullptr));
  cl_device_id d;
  EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_ALL, 0, &d, nullptr));
  EXPECT_EQ(CL_DEVICE_NOT_FOUND, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_CUSTOM, 1, &d, nullptr));

  size_t wg = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, nullptr));
  EXPECT_GE(wg, 64u);
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string ext(size, '\0');
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, ext.data(), nullptr));
  EXPECT_NE(ext.find("cl_khr_global_int32_base_atomics"), std::string::npos);
  // Only what really works is reported: halves and doubles where the device passes the
  // precision probe, and then with the configurations the extensions require.
  cl_device_fp_config fp16 = 1;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_HALF_FP_CONFIG, sizeof(fp16), &fp16, nullptr));
  if (ext.find("cl_khr_fp16") == std::string::npos) {
    EXPECT_EQ(fp16, 0u);
  } else {
    EXPECT_EQ(fp16 & CL_FP_INF_NAN, CL_FP_INF_NAN);
  }
  if (fp16) {
    EXPECT_TRUE(fp16 & (CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO));
  }
  cl_device_fp_config fp64 = 1;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp64), &fp64, nullptr));
  const cl_device_fp_config required = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                        CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
  if (ext.find("cl_khr_fp64") == std::string::npos) {
    EXPECT_EQ(fp64, 0u);
  } else {
    EXPECT_EQ(fp64 & required, required);
  }
  cl_platform_id p = nullptr;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_PLATFORM, sizeof(p), &p, nullptr));
  EXPECT_EQ(p, platform_);
  EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceInfo(device_, 0x7777, sizeof(wg), &wg, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1, &wg, nullptr));
}

// cl_khr_device_uuid is always there (Vulkan 1.1 has the IDs); cl_khr_pci_bus_info only with
// VK_EXT_pci_bus_info, and its query fails without it.
TEST_F(Api, DeviceUuidAndPciBusInfo) {
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string ext(size, '\0');
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, ext.data(), nullptr));
  EXPECT_NE(ext.find("cl_khr_device_uuid"), std::string::npos);
  cl_uchar uuid[CL_UUID_SIZE_KHR] = {}, driver[CL_UUID_SIZE_KHR] = {}, luid[CL_LUID_SIZE_KHR] = {};
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_UUID_KHR, sizeof uuid, uuid, &size));
  EXPECT_EQ(size_t(CL_UUID_SIZE_KHR), size);
  EXPECT_TRUE(std::any_of(uuid, uuid + CL_UUID_SIZE_KHR, [](cl_uchar c) { return c != 0; }));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DRIVER_UUID_KHR, sizeof driver, driver, &size));
  EXPECT_EQ(size_t(CL_UUID_SIZE_KHR), size);
  cl_bool luid_valid = CL_TRUE;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_LUID_VALID_KHR, sizeof luid_valid, &luid_valid, nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_LUID_KHR, sizeof luid, luid, &size));
  EXPECT_EQ(size_t(CL_LUID_SIZE_KHR), size);
  cl_uint mask = 7;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_NODE_MASK_KHR, sizeof mask, &mask, nullptr));
  if (!luid_valid) {
    EXPECT_EQ(0u, mask);
  }
  EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceInfo(device_, CL_DEVICE_UUID_KHR, 4, uuid, nullptr));
  cl_device_pci_bus_info_khr pci{};
  cl_int pci_status = clGetDeviceInfo(device_, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, nullptr);
  EXPECT_EQ(ext.find("cl_khr_pci_bus_info") != std::string::npos ? CL_SUCCESS : CL_INVALID_VALUE, pci_status);
}

TEST_F(Api, ContextCreationAndErrors) {
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  cl_uint n = 0;
  ASSERT_EQ(CL_SUCCESS, clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof(n), &n, nullptr));
  EXPECT_EQ(n, 1u);
  cl_uint refs = 0;
  ASSERT_EQ(CL_SUCCESS, clRetainContext(c));
  ASSERT_EQ(CL_SUCCESS, clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs), &refs, nullptr));
  EXPECT_EQ(refs, 2u);
  static int destroyed = 0;
  destroyed = 0;
  ASSERT_EQ(CL_SUCCESS, clSetContextDestructorCallback(c, [](cl_context, void*) { destroyed++; }, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clGetContextInfo(c, 0x7777, sizeof(n), &n, nullptr));
  clReleaseContext(c);
  EXPECT_EQ(destroyed, 0);
  clReleaseContext(c);
  EXPECT_EQ(destroyed, 1);

  EXPECT_EQ(nullptr, clCreateContext(nullptr, 0, &device_, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 1, nullptr, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  int dummy;
  EXPECT_EQ(nullptr, clCreateContext(nullptr, 1, &device_, nullptr, &dummy, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  cl_context_properties bad[] = {0x7777, 1, 0};
  EXPECT_EQ(nullptr, clCreateContext(bad, 1, &device_, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_PROPERTY, err);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(platform_), 0};
  c = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  clReleaseContext(c);
  EXPECT_EQ(nullptr, clCreateContextFromType(props, cl_device_type(1) << 40, nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_DEVICE_TYPE, err);
  EXPECT_EQ(CL_INVALID_CONTEXT, clRetainContext(nullptr));
  EXPECT_EQ(CL_INVALID_CONTEXT, clReleaseContext(nullptr));
}

// cl_khr_spirv_queries, against the OpenCL SPIR-V environment's lists: the capabilities every
// environment takes (3.1) and those chapter 5 ties to the extensions the device reports.
TEST_F(Api, SpirvQueriesFollowTheReportedExtensions) {
  const cl_device_info kSets = 0x12B9, kExtensions = 0x12BA, kCapabilities = 0x12BB;
  char ext[8192] = {};
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, nullptr));
  std::string extensions(ext);
  ASSERT_NE(extensions.find("cl_khr_spirv_queries"), std::string::npos);
  auto strings = [&](cl_device_info what) {
    size_t size = 0;
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, what, 0, nullptr, &size));
    std::vector<const char*> v(size / sizeof(const char*));
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, what, size, v.data(), nullptr));
    std::set<std::string> out(v.begin(), v.end());
    return out;
  };
  std::set<std::string> sets = strings(kSets), spirv_extensions = strings(kExtensions);
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kCapabilities, 0, nullptr, &size));
  std::vector<cl_uint> caps(size / sizeof(cl_uint));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kCapabilities, size, caps.data(), nullptr));
  auto has_cap = [&](cl_uint c) { return std::find(caps.begin(), caps.end(), c) != caps.end(); };
  auto reports = [&](const char* e) { return extensions.find(e) != std::string::npos; };
  EXPECT_TRUE(sets.count("OpenCL.std"));
  EXPECT_EQ(sets.count("OpenCL.DebugInfo.100") == 1, reports("cl_khr_spirv_extended_debug_info"));
  // Addresses 4, Linkage 5, Kernel 6, Vector16 7, Float16Buffer 8, Int16 22, Int8 39.
  for (cl_uint c : {4u, 5u, 6u, 7u, 8u, 22u, 39u}) EXPECT_TRUE(has_cap(c)) << c;
  EXPECT_EQ(has_cap(9), reports("cl_khr_fp16"));   // Float16
  EXPECT_EQ(has_cap(10), reports("cl_khr_fp64"));  // Float64
  EXPECT_EQ(spirv_extensions.count("SPV_KHR_expect_assume") == 1, reports("cl_khr_expect_assume"));
  EXPECT_EQ(spirv_extensions.count("SPV_KHR_shader_clock") == 1, reports("cl_khr_kernel_clock"));
  EXPECT_EQ(has_cap(6026), reports("cl_khr_subgroup_rotate"));  // GroupNonUniformRotateKHR
}

// cl_khr_spirv_queries' requirements (the extension's specification, as CTS api
// spirv_query_requirements checks them): each capability and SPIR-V extension a device must
// report, decided by the device's other queries.
TEST_F(Api, SpirvQueriesReportEveryRequiredCapability) {
  const cl_device_info kExtensions = 0x12BA, kCapabilities = 0x12BB;
  auto text = [&](cl_device_info what) {
    size_t size = 0;
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, what, 0, nullptr, &size));
    std::string s(size, '\0');
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, what, size, s.data(), nullptr));
    return s;
  };
  std::string extensions = text(CL_DEVICE_EXTENSIONS), il = text(CL_DEVICE_IL_VERSION);
  auto reports = [&](const char* e) {
    std::string padded = " " + extensions + " ";
    return padded.find(std::string(" ") + e + " ") != std::string::npos;
  };
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kCapabilities, 0, nullptr, &size));
  std::vector<cl_uint> caps(size / sizeof(cl_uint));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kCapabilities, size, caps.data(), nullptr));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kExtensions, 0, nullptr, &size));
  std::vector<const char*> spirv_ext(size / sizeof(const char*));
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, kExtensions, size, spirv_ext.data(), nullptr));
  std::set<std::string> spirv_extensions(spirv_ext.begin(), spirv_ext.end());
  auto query = [&](cl_device_info what, auto zero) {
    decltype(zero) v = zero;
    EXPECT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, what, sizeof v, &v, nullptr)) << what;
    return v;
  };
  std::vector<std::pair<cl_uint, const char*>> required = {
      {4, "Addresses"}, {8, "Float16Buffer"}, {22, "Int16"}, {39, "Int8"},
      {6, "Kernel"}, {5, "Linkage"}, {7, "Vector16"}, {11, "Int64"}};
  std::vector<const char*> required_extensions;
  auto need = [&](bool condition, cl_uint cap, const char* name) {
    if (condition) required.emplace_back(cap, name);
  };
  // Devices that take SPIR-V 1.6 take the UniformDecoration capability.
  need(il.find("SPIR-V_1.6") != std::string::npos, 71, "UniformDecoration");
  need(query(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, cl_bool()), 38, "GenericPointer");
  bool subgroups = query(CL_DEVICE_MAX_NUM_SUB_GROUPS, cl_uint()) != 0;
  need(subgroups || query(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, cl_bool()), 18, "Groups");
  need(query(CL_DEVICE_PIPE_SUPPORT, cl_bool()), 17, "Pipes");
  // Devices with images (and read_write images: CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS).
  const bool images = query(CL_DEVICE_IMAGE_SUPPORT, cl_bool());
  for (auto [cap, name] : {std::pair<cl_uint, const char*>{44, "Image1D"}, {13, "ImageBasic"}, {47, "ImageBuffer"},
                           {20, "LiteralSampler"}, {43, "Sampled1D"}, {46, "SampledBuffer"}})
    need(images, cap, name);
  need(query(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, cl_uint()) != 0, 14, "ImageReadWrite");
  need(subgroups, 58, "SubgroupDispatch");
  need(reports("cl_khr_fp16"), 9, "Float16");
  need(reports("cl_khr_fp64"), 10, "Float64");
  need(reports("cl_khr_int64_base_atomics") || reports("cl_khr_int64_extended_atomics"), 12,
       "Int64Atomics");
  if (reports("cl_khr_integer_dot_product")) {
    required_extensions.push_back("SPV_KHR_integer_dot_product");
    need(true, 6019, "DotProduct");
    need(true, 6018, "DotProductInput4x8BitPacked");
    need(query(CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR, cl_bitfield()) &
             CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR,
         6017, "DotProductInput4x8Bit");
  }
  if (reports("cl_ext_float_atomics")) {
    const cl_bitfield add = (1 << 1) | (1 << 17), min_max = (1 << 2) | (1 << 18);
    cl_bitfield fp32 = query(0x4231, cl_bitfield()), fp64 = query(0x4232, cl_bitfield()),
                fp16 = query(0x4233, cl_bitfield());
    need(fp32 & add, 6033, "AtomicFloat32AddEXT");
    need(fp32 & min_max, 5612, "AtomicFloat32MinMaxEXT");
    need(fp16 & add, 6095, "AtomicFloat16AddEXT");
    need(fp16 & min_max, 5616, "AtomicFloat16MinMaxEXT");
    need(fp64 & add, 6034, "AtomicFloat64AddEXT");
    need(fp64 & min_max, 5613, "AtomicFloat64MinMaxEXT");
    if (fp16 & add) required_extensions.push_back("SPV_EXT_shader_atomic_float16_add");
    if ((fp32 | fp64) & add) required_extensions.push_back("SPV_EXT_shader_atomic_float_add");
    if ((fp16 | fp32 | fp64) & min_max)
      required_extensions.push_back("SPV_EXT_shader_atomic_float_min_max");
  }
  for (const auto& [cap, name] : required)
    EXPECT_NE(std::find(caps.begin(), caps.end(), cap), caps.end()) << "missing capability " << name;
  for (const char* e : required_extensions)
    EXPECT_TRUE(spirv_extensions.count(e)) << "missing SPIR-V extension " << e;
}

// clGetCommandQueueInfo on a host queue: CL_QUEUE_SIZE "To be considered valid for this query,
// command_queue must be a device command-queue" (CL_INVALID_COMMAND_QUEUE "if command_queue is
// not a valid command-queue for param_name"); CL_QUEUE_PROPERTIES_ARRAY is the properties
// argument as given (size 0 for clCreateCommandQueue or NULL properties);
// CL_QUEUE_DEVICE_DEFAULT is NULL where there is no device queue.
TEST_F(Api, CommandQueueInfoOfHostQueues) {
  cl_int err;
  Context c(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  Queue q(clCreateCommandQueueWithProperties(c, device_, props, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  cl_uint queue_size = 1234;
  size_t size = 0;
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
            clGetCommandQueueInfo(q, CL_QUEUE_SIZE, sizeof queue_size, &queue_size, nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clGetCommandQueueInfo(q, CL_QUEUE_SIZE, 0, nullptr, &size));
  ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &size));
  ASSERT_EQ(size, sizeof props);
  cl_queue_properties back[3] = {7, 7, 7};
  ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, size, back, nullptr));
  EXPECT_EQ(0, std::memcmp(back, props, sizeof props));
  cl_command_queue device_default = q;
  ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_DEVICE_DEFAULT, sizeof device_default,
                                              &device_default, &size));
  EXPECT_EQ(size, sizeof(cl_command_queue));
  EXPECT_EQ(device_default, nullptr);
  cl_uint refs = 0;
  EXPECT_EQ(CL_INVALID_VALUE, clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, 0, &refs, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clGetCommandQueueInfo(q, 0x7777, 0, nullptr, nullptr));
  Queue others[2] = {Queue(clCreateCommandQueue(c, device_, 0, &err)),
                     Queue(clCreateCommandQueueWithProperties(c, device_, nullptr, &err))};
  for (const Queue& other : others) {
    ASSERT_NE(other.get(), nullptr);
    size = 99;
    ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(other, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &size));
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
              clGetCommandQueueInfo(other, CL_QUEUE_SIZE, sizeof queue_size, &queue_size, nullptr));
  }
}

// "clGetExtensionFunctionAddressForPlatform returns NULL if platform is not a valid platform"
// (checked with other vkcl objects, which the ICD loader hands to vkcl).
TEST_F(Api, ExtensionFunctionAddressNeedsAValidPlatform) {
  EXPECT_NE(nullptr, clGetExtensionFunctionAddressForPlatform(platform_, "clGetValidationMessageCountVKCL"));
  EXPECT_EQ(nullptr, clGetExtensionFunctionAddressForPlatform(platform_, "clNoSuchFunctionVKCL"));
  cl_int err;
  Context c(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  for (const char* name : {"clGetValidationMessageCountVKCL", "clIcdGetPlatformIDsKHR"}) {
    EXPECT_EQ(nullptr, clGetExtensionFunctionAddressForPlatform(
                           reinterpret_cast<cl_platform_id>(device_), name)) << name;
    EXPECT_EQ(nullptr, clGetExtensionFunctionAddressForPlatform(
                           reinterpret_cast<cl_platform_id>(c.get()), name)) << name;
  }
}

TEST_F(Api, QueueCreationAndErrors) {
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(c, device_, profiling, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  cl_command_queue_properties props = 0;
  ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, nullptr));
  EXPECT_EQ(props, cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE));
  cl_context qc = nullptr;
  ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(qc), &qc, nullptr));
  EXPECT_EQ(qc, c);
  EXPECT_EQ(CL_SUCCESS, clFlush(q));
  EXPECT_EQ(CL_SUCCESS, clFinish(q));
  EXPECT_EQ(CL_SUCCESS, clReleaseCommandQueue(q));

  cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(c, device_, ooo, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  ASSERT_EQ(CL_SUCCESS, clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, nullptr));
  EXPECT_EQ(props, cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
  EXPECT_EQ(CL_SUCCESS, clReleaseCommandQueue(q));
  cl_command_queue_properties host = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof host, &host, nullptr));
  EXPECT_EQ(host, cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE));
  // On-device queues are not supported.
  cl_queue_properties on_device[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE, 0};
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(c, device_, on_device, &err));
  EXPECT_EQ(CL_INVALID_QUEUE_PROPERTIES, err);
  cl_queue_properties bad[] = {0x7777, 1, 0};
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(c, device_, bad, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(nullptr, device_, nullptr, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);
  Fake fake;
  EXPECT_EQ(nullptr, clCreateCommandQueueWithProperties(c, reinterpret_cast<cl_device_id>(&fake), nullptr, &err));
  EXPECT_EQ(CL_INVALID_DEVICE, err);
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clFlush(nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clFinish(nullptr));
  EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(nullptr));
  clReleaseContext(c);
}

}  // namespace
}  // namespace vkcl::test
