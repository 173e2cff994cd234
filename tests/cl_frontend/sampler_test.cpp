// Samplers (clCreateSampler, clCreateSamplerWithProperties, clGetSamplerInfo, retain and
// release), and every error code they can return.
// clCreateSampler is deprecated (OpenCL 2.0) but still an entry point to test.
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <cstdlib>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

using Sampler = Handle<cl_sampler, clReleaseSampler>;

class SamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    platform_ = find_vkcl_platform();
    ASSERT_NE(platform_, nullptr);
    ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(platform_, CL_DEVICE_TYPE_DEFAULT, 1, &device_, nullptr));
    cl_int err = CL_SUCCESS;
    context_ = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
    ASSERT_EQ(CL_SUCCESS, err);
  }
  void TearDown() override {
    if (platform_) {
      EXPECT_EQ(validation_messages(platform_), 0u) << "Vulkan validation messages";
    }
  }
  template <typename T>
  T info(cl_sampler s, cl_sampler_info param) {
    T v{};
    size_t size = 0;
    EXPECT_EQ(CL_SUCCESS, clGetSamplerInfo(s, param, sizeof(T), &v, &size));
    EXPECT_EQ(sizeof(T), size);
    return v;
  }
  cl_int properties_error(std::vector<cl_sampler_properties> p) {
    cl_int err = CL_SUCCESS;
    Sampler s(clCreateSamplerWithProperties(context_, p.data(), &err));
    EXPECT_EQ(err != CL_SUCCESS, s.get() == nullptr);
    return err;
  }

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  Context context_;
};

const cl_addressing_mode kModes[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
                                     CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};

TEST_F(SamplerTest, CreateSamplerReportsEveryModeCombination) {
  for (cl_bool normalized : {CL_FALSE, CL_TRUE})
    for (cl_addressing_mode mode : kModes)
      for (cl_filter_mode filter : {CL_FILTER_NEAREST, CL_FILTER_LINEAR}) {
        cl_int err = CL_INVALID_VALUE;
        Sampler s(clCreateSampler(context_, normalized, mode, filter, &err));
        ASSERT_EQ(CL_SUCCESS, err);
        EXPECT_EQ(normalized, info<cl_bool>(s, CL_SAMPLER_NORMALIZED_COORDS));
        EXPECT_EQ(mode, info<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE));
        EXPECT_EQ(filter, info<cl_filter_mode>(s, CL_SAMPLER_FILTER_MODE));
        EXPECT_EQ(context_.get(), info<cl_context>(s, CL_SAMPLER_CONTEXT));
        EXPECT_EQ(1u, info<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT));
        // "If sampler was created using clCreateSampler ... param_value_size_ret [is] 0."
        size_t size = 99;
        EXPECT_EQ(CL_SUCCESS, clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, nullptr, &size));
        EXPECT_EQ(0u, size);
      }
}

TEST_F(SamplerTest, PropertiesAndTheirDefaults) {
  cl_int err = CL_INVALID_VALUE;
  // Defaults: normalized coordinates, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST.
  Sampler d(clCreateSamplerWithProperties(context_, nullptr, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(cl_bool(CL_TRUE), info<cl_bool>(d, CL_SAMPLER_NORMALIZED_COORDS));
  EXPECT_EQ(cl_addressing_mode(CL_ADDRESS_CLAMP), info<cl_addressing_mode>(d, CL_SAMPLER_ADDRESSING_MODE));
  EXPECT_EQ(cl_filter_mode(CL_FILTER_NEAREST), info<cl_filter_mode>(d, CL_SAMPLER_FILTER_MODE));
  size_t size = 99;
  EXPECT_EQ(CL_SUCCESS, clGetSamplerInfo(d, CL_SAMPLER_PROPERTIES, 0, nullptr, &size));
  EXPECT_EQ(0u, size);

  const cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                         CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
                                         CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_MIRRORED_REPEAT, 0};
  Sampler s(clCreateSamplerWithProperties(context_, props, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(cl_bool(CL_FALSE), info<cl_bool>(s, CL_SAMPLER_NORMALIZED_COORDS));
  EXPECT_EQ(cl_addressing_mode(CL_ADDRESS_MIRRORED_REPEAT), info<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE));
  EXPECT_EQ(cl_filter_mode(CL_FILTER_LINEAR), info<cl_filter_mode>(s, CL_SAMPLER_FILTER_MODE));
  std::vector<cl_sampler_properties> back(7, 99);
  ASSERT_EQ(CL_SUCCESS, clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, back.size() * sizeof(back[0]),
                                         back.data(), &size));
  EXPECT_EQ(sizeof(props), size);
  EXPECT_EQ(std::vector<cl_sampler_properties>(props, props + 7), back);
  // Only what was given, partially: the rest keeps its default.
  const cl_sampler_properties one[] = {CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_REPEAT, 0};
  Sampler r(clCreateSamplerWithProperties(context_, one, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(cl_bool(CL_TRUE), info<cl_bool>(r, CL_SAMPLER_NORMALIZED_COORDS));
  EXPECT_EQ(cl_addressing_mode(CL_ADDRESS_REPEAT), info<cl_addressing_mode>(r, CL_SAMPLER_ADDRESSING_MODE));
}

TEST_F(SamplerTest, RetainAndReleaseCount) {
  cl_int err = CL_SUCCESS;
  cl_sampler s = clCreateSampler(context_, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  ASSERT_EQ(CL_SUCCESS, err);
  EXPECT_EQ(CL_SUCCESS, clRetainSampler(s));
  EXPECT_EQ(2u, info<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT));
  EXPECT_EQ(CL_SUCCESS, clReleaseSampler(s));
  EXPECT_EQ(1u, info<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT));
  // The sampler keeps its context alive.
  cl_uint context_refs = 0;
  ASSERT_EQ(CL_SUCCESS, clGetContextInfo(context_, CL_CONTEXT_REFERENCE_COUNT, sizeof(context_refs),
                                         &context_refs, nullptr));
  EXPECT_GE(context_refs, 2u);
  EXPECT_EQ(CL_SUCCESS, clReleaseSampler(s));
}

TEST_F(SamplerTest, ErrorCodes) {
  cl_int err = CL_SUCCESS;
  // CL_INVALID_CONTEXT if context is not a valid context.
  EXPECT_EQ(nullptr, clCreateSampler(nullptr, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(nullptr, clCreateSampler(reinterpret_cast<cl_context>(device_), CL_TRUE, CL_ADDRESS_CLAMP,
                                     CL_FILTER_NEAREST, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(nullptr, clCreateSamplerWithProperties(nullptr, nullptr, &err));
  EXPECT_EQ(CL_INVALID_CONTEXT, err);
  // CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords or a combination of
  // these arguments are not valid.
  EXPECT_EQ(nullptr, clCreateSampler(context_, CL_TRUE, 0x1135, CL_FILTER_NEAREST, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, clCreateSampler(context_, CL_TRUE, CL_ADDRESS_CLAMP, 0x1142, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  EXPECT_EQ(nullptr, clCreateSampler(context_, 7, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  EXPECT_EQ(CL_INVALID_VALUE, err);
  // CL_INVALID_VALUE if the property name in sampler_properties is not a supported property
  // name, if the value specified for a supported property name is not valid, or if the same
  // property name is specified more than once.
  EXPECT_EQ(CL_INVALID_VALUE, properties_error({0x1234, 1, 0}));
  EXPECT_EQ(CL_INVALID_VALUE, properties_error({CL_SAMPLER_NORMALIZED_COORDS, 2, 0}));
  EXPECT_EQ(CL_INVALID_VALUE, properties_error({CL_SAMPLER_ADDRESSING_MODE, CL_FILTER_LINEAR, 0}));
  EXPECT_EQ(CL_INVALID_VALUE, properties_error({CL_SAMPLER_FILTER_MODE, CL_ADDRESS_CLAMP, 0}));
  EXPECT_EQ(CL_INVALID_VALUE, properties_error({CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                                CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0}));
  EXPECT_EQ(CL_SUCCESS, properties_error({CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0}));
  // CL_INVALID_SAMPLER if sampler is not a valid sampler object.
  EXPECT_EQ(CL_INVALID_SAMPLER, clRetainSampler(nullptr));
  EXPECT_EQ(CL_INVALID_SAMPLER, clReleaseSampler(nullptr));
  EXPECT_EQ(CL_INVALID_SAMPLER, clGetSamplerInfo(nullptr, CL_SAMPLER_FILTER_MODE, 0, nullptr, nullptr));
  EXPECT_EQ(CL_INVALID_SAMPLER, clRetainSampler(reinterpret_cast<cl_sampler>(context_.get())));
  Sampler s(clCreateSampler(context_, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  // CL_INVALID_VALUE if param_name is not valid, or if size in bytes specified by
  // param_value_size is < size of return type and param_value is not NULL.
  cl_uint v = 0;
  EXPECT_EQ(CL_INVALID_VALUE, clGetSamplerInfo(s, 0x1234, sizeof(v), &v, nullptr));
  EXPECT_EQ(CL_INVALID_VALUE, clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, 1, &v, nullptr));
  // CL_INVALID_OPERATION if images are not supported by any device associated with context.
  WithoutImages hidden;
  EXPECT_EQ(nullptr, clCreateSampler(context_, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  EXPECT_EQ(CL_INVALID_OPERATION, err);
  EXPECT_EQ(nullptr, clCreateSamplerWithProperties(context_, nullptr, &err));
  EXPECT_EQ(CL_INVALID_OPERATION, err);
}

}  // namespace
}  // namespace vkcl::test
