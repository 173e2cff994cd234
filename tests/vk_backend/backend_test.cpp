// vk_backend on the real Vulkan driver (lavapipe in CI): devices, buffers, command streams,
// pipelines and timestamps, checked on the host.
#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {
namespace {

class Backend : public ::testing::Test {
 protected:
  void SetUp() override {
    Instance* instance = Instance::get();
    ASSERT_NE(instance, nullptr) << "no Vulkan";
    for (const auto& d : instance->devices())
      if (d.usable) {
        ASSERT_EQ(VK_SUCCESS, Device::create(d, &device_));
        break;
      }
    ASSERT_TRUE(device_) << "no usable Vulkan device";
    ASSERT_EQ(VK_SUCCESS, CommandStream::create(device_, &stream_));
  }
  void TearDown() override { EXPECT_EQ(Instance::validation_message_count(), 0u); }

  std::shared_ptr<Device> device_;
  std::unique_ptr<CommandStream> stream_;
};

TEST_F(Backend, DeviceInfoIsComplete) {
  const DeviceInfo& info = device_->info();
  EXPECT_TRUE(info.buffer_device_address);
  EXPECT_TRUE(info.timeline_semaphore);
  EXPECT_GT(info.device_local_heap_size, 0u);
  EXPECT_GT(info.max_allocation_size, 0u);
  EXPECT_GT(info.properties.limits.maxComputeWorkGroupInvocations, 0u);
  const char* icd = std::getenv("VK_ICD_FILENAMES");
  if (icd && std::strstr(icd, "lvp_icd")) {
    EXPECT_NE(std::string(info.properties.deviceName).find("llvmpipe"), std::string::npos);
    EXPECT_TRUE(info.unified_memory);
  }
}

TEST_F(Backend, BuffersHaveDistinctAddressesAndMappings) {
  std::unique_ptr<Buffer> a, b;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 4096, MemoryPlacement::DeviceLocal, &a));
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 4096, MemoryPlacement::HostVisible, &b));
  EXPECT_NE(a->address(), 0u);
  EXPECT_NE(b->address(), 0u);
  EXPECT_NE(a->address(), b->address());
  EXPECT_NE(b->mapped(), nullptr);
  std::unique_ptr<Buffer> huge;
  EXPECT_NE(VK_SUCCESS, Buffer::create(device_, VkDeviceSize(1) << 50, MemoryPlacement::DeviceLocal, &huge));
  EXPECT_NE(VK_SUCCESS, Buffer::create(device_, 0, MemoryPlacement::DeviceLocal, &huge));
}

TEST_F(Backend, FillAndCopyThroughAStream) {
  const size_t n = 1 << 16;
  std::unique_ptr<Buffer> src, dst;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, n, MemoryPlacement::HostVisible, &src));
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, n, MemoryPlacement::HostVisible, &dst));
  std::mt19937 rng(7);
  std::vector<uint8_t> data(n);
  for (auto& x : data) x = uint8_t(rng());
  std::memcpy(src->mapped(), data.data(), n);
  ASSERT_EQ(VK_SUCCESS, stream_->fill_buffer(*dst, 0, n, 0xdeadbeef));
  ASSERT_EQ(VK_SUCCESS, stream_->barrier());
  ASSERT_EQ(VK_SUCCESS, stream_->copy_buffer(*src, 128, *dst, 256, 1024));
  EXPECT_TRUE(stream_->has_pending());
  uint64_t point = stream_->last_point();
  EXPECT_EQ(point, 1u);
  ASSERT_EQ(VK_SUCCESS, stream_->wait(point));
  EXPECT_GE(stream_->completed_point(), point);
  auto* out = static_cast<uint8_t*>(dst->mapped());
  EXPECT_EQ(0, std::memcmp(out + 256, data.data() + 128, 1024));
  uint32_t word;
  std::memcpy(&word, out, 4);
  EXPECT_EQ(word, 0xdeadbeefu);
  std::memcpy(&word, out + 2048, 4);
  EXPECT_EQ(word, 0xdeadbeefu);
  // The next batch signals the next point.
  ASSERT_EQ(VK_SUCCESS, stream_->fill_buffer(*dst, 0, 4, 1));
  EXPECT_EQ(stream_->last_point(), 2u);
  uint64_t submitted = 0;
  ASSERT_EQ(VK_SUCCESS, stream_->submit({}, &submitted));
  EXPECT_EQ(submitted, 2u);
  ASSERT_EQ(VK_SUCCESS, stream_->wait(submitted));
}

// A stream's timeline semaphore outlives the stream: kept by a batch of another stream that
// waits on it until that batch has run, then by the device for the next stream, whose points
// go on from its value (lavapipe's queue thread still touches a semaphore just after its
// signal wakes a waiter; destroying it then corrupted the driver's lists, CTS test_events).
TEST_F(Backend, TimelineSemaphoresOutliveTheirStreams) {
  std::unique_ptr<Buffer> b;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 4096, MemoryPlacement::HostVisible, &b));
  std::unique_ptr<CommandStream> first, second;
  ASSERT_EQ(VK_SUCCESS, CommandStream::create(device_, &first));
  ASSERT_EQ(VK_SUCCESS, CommandStream::create(device_, &second));
  uint64_t point = 0;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(VK_SUCCESS, first->fill_buffer(*b, 0, 4096, uint32_t(i)));
    ASSERT_EQ(VK_SUCCESS, first->submit({}, &point));
  }
  // |second| waits on the device for |first|'s last point; |first| goes before that runs.
  ASSERT_EQ(VK_SUCCESS, second->wait_before_batch(*first, point));
  ASSERT_EQ(VK_SUCCESS, second->fill_buffer(*b, 0, 4, 77));
  uint64_t after = 0;
  ASSERT_EQ(VK_SUCCESS, second->submit({}, &after));
  first.reset();
  ASSERT_EQ(VK_SUCCESS, second->wait(after));
  EXPECT_EQ(static_cast<const uint32_t*>(b->mapped())[0], 77u);
  EXPECT_EQ(static_cast<const uint32_t*>(b->mapped())[1], 4u);
  // Once |second|'s batch has run, |first|'s semaphore is kept by the device: the next
  // stream takes it and counts on from point 5.
  ASSERT_EQ(VK_SUCCESS, second->fill_buffer(*b, 0, 4, 78));  // recycles the finished batch
  ASSERT_EQ(VK_SUCCESS, second->submit({}, &after));
  ASSERT_EQ(VK_SUCCESS, second->wait(after));
  std::unique_ptr<CommandStream> third;
  ASSERT_EQ(VK_SUCCESS, CommandStream::create(device_, &third));
  EXPECT_EQ(third->completed_point(), point);
  ASSERT_EQ(VK_SUCCESS, third->fill_buffer(*b, 0, 4, 79));
  uint64_t next = 0;
  ASSERT_EQ(VK_SUCCESS, third->submit({}, &next));
  EXPECT_EQ(next, point + 1);
  ASSERT_EQ(VK_SUCCESS, third->wait(next));
  EXPECT_EQ(static_cast<const uint32_t*>(b->mapped())[0], 79u);
}

// Thousands of small reusable buffers share a few allocations (drivers allow as few as 4096
// at once), each with bytes of its own: disjoint address ranges at OpenCL's base alignment
// (CL_DEVICE_MEM_BASE_ADDR_ALIGN, 128 bytes), and a fill of each through the device leaves
// every other one alone. Released pieces are reused, and the blocks go with their owner.
TEST_F(Backend, SmallBuffersShareAFewAllocations) {
  constexpr uint64_t kOwner = 77;
  const size_t before = device_->allocation_count();
  std::mt19937 rng(3);
  std::vector<std::unique_ptr<Buffer>> buffers;
  for (int i = 0; i < 6000; ++i) {
    const VkDeviceSize size = 4 * (1 + rng() % 800);
    std::unique_ptr<Buffer> b;
    ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, size, i % 2 ? MemoryPlacement::HostVisible : MemoryPlacement::DeviceLocal,
                                         &b, /*reusable=*/true, kOwner));
    buffers.push_back(std::move(b));
  }
  const size_t held = device_->allocation_count() - before;
  EXPECT_LT(held, 30u);
  std::vector<const Buffer*> sorted;
  for (const auto& b : buffers) sorted.push_back(b.get());
  std::sort(sorted.begin(), sorted.end(), [](const Buffer* a, const Buffer* b) { return a->address() < b->address(); });
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(sorted[i]->address() % 128, 0u);
    if (i + 1 < sorted.size()) {
      ASSERT_LE(sorted[i]->address() + sorted[i]->size(), sorted[i + 1]->address()) << i;
    }
  }
  if (!buffers[0]->mapped()) GTEST_SKIP() << "device-local memory is not mapped here";
  for (size_t i = 0; i < buffers.size(); ++i) {
    ASSERT_EQ(VK_SUCCESS, stream_->fill_buffer(*buffers[i], 0, buffers[i]->size(), uint32_t(i)));
  }
  uint64_t point = 0;
  ASSERT_EQ(VK_SUCCESS, stream_->submit({}, &point));
  ASSERT_EQ(VK_SUCCESS, stream_->wait(point));
  for (size_t i = 0; i < buffers.size(); ++i) {
    const auto* words = static_cast<const uint32_t*>(buffers[i]->mapped());
    for (size_t w = 0; w < buffers[i]->size() / 4; ++w) ASSERT_EQ(words[w], uint32_t(i)) << i << " " << w;
  }
  // Every other buffer released and made again: no new allocation.
  for (size_t i = 0; i < buffers.size(); i += 2) buffers[i].reset();
  for (size_t i = 0; i < buffers.size(); i += 2) {
    ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 1024, MemoryPlacement::DeviceLocal, &buffers[i], true, kOwner));
  }
  EXPECT_EQ(device_->allocation_count() - before, held);
  buffers.clear();
  device_->drop_spares(kOwner);
  EXPECT_EQ(device_->allocation_count(), before);
}

// A burst of buffers made and released together (arrays a client makes ahead of the device
// and drops, PyOpenCL's temporaries) leaves its blocks for the next burst, which allocates
// nothing, within the device's spare limit; their owner takes them with it.
TEST_F(Backend, BlocksOfABurstServeTheNext) {
  constexpr uint64_t kOwner = 83;
  constexpr VkDeviceSize kSize = VkDeviceSize(3) << 20;
  const size_t before = device_->allocation_count();
  // As many pieces as half the limit holds, in blocks of at most 64 MiB.
  const size_t count = std::min<size_t>(40, size_t(device_->spare_limit() / 2 / kSize));
  ASSERT_GT(count, 4u);
  size_t first = 0;
  for (int burst = 0; burst < 3; ++burst) {
    std::vector<std::unique_ptr<Buffer>> buffers(count);
    for (auto& b : buffers) {
      ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, kSize, MemoryPlacement::DeviceLocal, &b, true, kOwner));
    }
    const size_t held = device_->allocation_count() - before;
    EXPECT_GT(held, 1u);
    if (burst == 0) first = held;
    EXPECT_EQ(held, first) << "burst " << burst;
    buffers.clear();
    EXPECT_EQ(device_->allocation_count() - before, first) << "kept after burst " << burst;
  }
  device_->drop_spares(kOwner);
  EXPECT_EQ(device_->allocation_count(), before);
}

// A piece handed out for the first time reads as zeros, whatever the memory held before: each
// owner in turn fills its pieces with a pattern and releases them with its blocks (the
// driver's memory goes back to the heap, where the next block may find it).
TEST_F(Backend, NewPiecesOfABlockReadAsZeros) {
  // Freed heap memory full of the pattern, where the driver's next allocation may come from
  // (lavapipe's memory is the process heap's): after glibc frees a 4 MiB mapping, blocks of
  // a few MiB come from the heap, and the pin keeps the freed chunks from being trimmed.
  std::free(std::malloc(size_t(4) << 20));
  std::vector<void*> chunks;
  for (int i = 0; i < 8; ++i) {
    chunks.push_back(std::malloc((size_t(1) << 20) + 4096));
    std::memset(chunks.back(), 0xa5, (size_t(1) << 20) + 4096);
  }
  void* pin = std::malloc(64);
  for (void* c : chunks) std::free(c);
  for (uint64_t owner = 78; owner < 82; ++owner) {
    std::vector<std::unique_ptr<Buffer>> buffers(200);
    for (auto& b : buffers) {
      ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, 4096, MemoryPlacement::HostVisible, &b, true, owner));
      if (b->fresh()) GTEST_SKIP() << "not mapped: the caller zeroes it";
      const auto* bytes = static_cast<const uint8_t*>(b->mapped());
      for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(bytes[i], 0) << "owner " << owner << " byte " << i;
      std::memset(b->mapped(), 0xa5, 4096);
    }
    buffers.clear();
    device_->drop_spares(owner);
  }
  std::free(pin);
}

// Large buffers, their own allocations or pieces of large blocks, read as zeros whatever an
// owner before them wrote; on a CPU device that imports host memory they come zeroed (pages
// of vkcl's own), so nobody zeroes them again (not fresh).
TEST_F(Backend, LargeBuffersComeZeroed) {
  for (uint64_t owner = 84; owner < 87; ++owner) {
    std::vector<std::unique_ptr<Buffer>> buffers;
    for (VkDeviceSize size : {VkDeviceSize(12) << 20, VkDeviceSize(3) << 20}) {
      // Three-MiB pieces enough to fill blocks of 16 MiB and more.
      for (int i = 0; i < (size == (VkDeviceSize(3) << 20) ? 12 : 2); ++i) {
        std::unique_ptr<Buffer> b;
        ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, size, MemoryPlacement::HostVisible, &b, true, owner));
        buffers.push_back(std::move(b));
      }
    }
    for (auto& b : buffers) {
      if (!b->mapped()) GTEST_SKIP() << "not mapped here";
      if (device_->buffer_handle_types() && b->size() >= (VkDeviceSize(12) << 20)) {
        EXPECT_FALSE(b->fresh()) << "owner " << owner;
      }
      if (b->fresh()) continue;  // the caller zeroes it
      const auto* words = static_cast<const uint64_t*>(b->mapped());
      for (size_t i = 0; i < b->size() / 8; i += 61) ASSERT_EQ(words[i], 0u) << "owner " << owner << " word " << i;
      std::memset(b->mapped(), 0x5a, b->size());
    }
    buffers.clear();
    device_->drop_spares(owner);
  }
  if (device_->info().properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && device_->info().external_memory_host) {
    EXPECT_NE(device_->buffer_handle_types(), 0u);
  }
}

// y[i] = a * x[i] + y[i] with both buffers reached through device addresses in push constants
// and the local size from specialization constants.
const char* kSaxpy = R"(
OpCapability Shader
OpCapability Int64
OpCapability PhysicalStorageBufferAddresses
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main" %pc %gid
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %block Block
OpMemberDecorate %block 0 Offset 0
OpMemberDecorate %block 1 Offset 8
OpMemberDecorate %block 2 Offset 16
OpDecorate %sx SpecId 0
OpDecorate %wgsize BuiltIn WorkgroupSize
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_4 = OpConstant %uint 4
%sx = OpSpecConstant %uint 1
%wgsize = OpSpecConstantComposite %v3uint %sx %uint_1 %uint_1
%block = OpTypeStruct %ulong %ulong %float
%pc_ptr = OpTypePointer PushConstant %block
%pc = OpVariable %pc_ptr PushConstant
%pc_ulong = OpTypePointer PushConstant %ulong
%pc_float = OpTypePointer PushConstant %float
%in_v3 = OpTypePointer Input %v3uint
%gid = OpVariable %in_v3 Input
%psb_float = OpTypePointer PhysicalStorageBuffer %float
%main = OpFunction %void None %fn
%entry = OpLabel
%ids = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %ids 0
%i64 = OpUConvert %ulong %i
%off = OpIMul %ulong %i64 %ulong_4
%xp = OpAccessChain %pc_ulong %pc %uint_0
%yp = OpAccessChain %pc_ulong %pc %uint_1
%ap = OpAccessChain %pc_float %pc %uint_2
%xa = OpLoad %ulong %xp
%ya = OpLoad %ulong %yp
%a = OpLoad %float %ap
%xe = OpIAdd %ulong %xa %off
%ye = OpIAdd %ulong %ya %off
%xptr = OpConvertUToPtr %psb_float %xe
%yptr = OpConvertUToPtr %psb_float %ye
%x = OpLoad %float %xptr Aligned 4
%y = OpLoad %float %yptr Aligned 4
%ax = OpFMul %float %a %x
%r = OpFAdd %float %ax %y
OpStore %yptr %r Aligned 4
OpReturn
OpFunctionEnd
%ulong_4 = OpConstant %ulong 4
)";

TEST_F(Backend, ComputePipelineWithDeviceAddresses) {
  std::string text = kSaxpy;
  // Constants must precede their use: move the trailing constant up.
  text.erase(text.rfind("%ulong_4 = OpConstant %ulong 4"));
  text.insert(text.find("%sx = OpSpecConstant"), "%ulong_4 = OpConstant %ulong 4\n");
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::vector<uint32_t> spirv;
  ASSERT_TRUE(tools.Assemble(text, &spirv));
  ASSERT_TRUE(tools.Validate(spirv));
  std::unique_ptr<ComputePipeline> pipeline;
  ASSERT_EQ(VK_SUCCESS, ComputePipeline::create(device_, spirv, {{0, 64}}, 20, &pipeline));
  const uint32_t n = 64 * 16;
  std::unique_ptr<Buffer> x, y;
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, n * 4, MemoryPlacement::HostVisible, &x));
  ASSERT_EQ(VK_SUCCESS, Buffer::create(device_, n * 4, MemoryPlacement::HostVisible, &y));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> hx(n), hy(n);
  for (uint32_t i = 0; i < n; ++i) hx[i] = dist(rng), hy[i] = dist(rng);
  std::memcpy(x->mapped(), hx.data(), n * 4);
  std::memcpy(y->mapped(), hy.data(), n * 4);
  struct {
    uint64_t x, y;
    float a;
  } push{x->address(), y->address(), 0.5f};
  uint32_t start, end;
  ASSERT_EQ(VK_SUCCESS, stream_->write_timestamp(&start));
  ASSERT_EQ(VK_SUCCESS, stream_->dispatch(*pipeline, &push, 20, n / 64, 1, 1));
  ASSERT_EQ(VK_SUCCESS, stream_->write_timestamp(&end));
  ASSERT_EQ(VK_SUCCESS, stream_->wait(stream_->last_point()));
  const float* out = static_cast<const float*>(y->mapped());
  for (uint32_t i = 0; i < n; ++i) {
    volatile float product = 0.5f * hx[i];
    ASSERT_EQ(out[i], float(product + hy[i])) << i;
  }
  uint64_t t0 = stream_->read_timestamp(start), t1 = stream_->read_timestamp(end);
  EXPECT_GT(t0, 0u);
  EXPECT_LE(t0, t1);
  stream_->release_timestamp(start);
  stream_->release_timestamp(end);
}

}  // namespace
}  // namespace vkcl::vk
