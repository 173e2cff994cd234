#include "core/fma_probe.h"

#include <cstring>

namespace vkcl::cl {

bool probe_exact_fma(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                     const compiler::DeviceFeatures& features) {
  // (a, b, c, a*b+c rounded once) for products whose low bits an unfused add would lose.
  const float cases[][4] = {
      {1.0f + 0x1p-23f, 1.0f - 0x1p-23f, -1.0f, -0x1p-46f},
      {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f), 0x1p-24f},
      {-3.0f - 0x1p-21f, 5.0f + 0x1p-20f, 15.0f, -0x1.600002p-18f},
  };
  const int n = sizeof cases / sizeof cases[0];
  compiler::CompileResult c = compiler::compile(
      "__kernel void probe(__global float* d) {"
      "  for (int i = 0; i < 3; ++i) d[4 * i + 3] = fma(d[4 * i], d[4 * i + 1], d[4 * i + 2]);"
      "}",
      "", features);
  if (!c.ok) return false;
  caps.exact_fma = true;
  k2s::TranslateResult t = k2s::translate(c.spirv, caps);
  if (!t.ok || t.kernels.size() != 1 || t.kernels[0].interface.args.size() != 1) return false;
  const k2s::KernelInterface& ki = t.kernels[0].interface;

  std::unique_ptr<vk::Buffer> data, args;
  if (vk::Buffer::create(device, sizeof cases, vk::MemoryPlacement::HostVisible, &data) != VK_SUCCESS ||
      vk::Buffer::create(device, std::max<uint32_t>(ki.argument_block_size, 16),
                         vk::MemoryPlacement::HostVisible, &args) != VK_SUCCESS ||
      !data->mapped() || !args->mapped())
    return false;
  float inputs[n][4];
  std::memcpy(inputs, cases, sizeof cases);
  for (auto& row : inputs) row[3] = 0;
  std::memcpy(data->mapped(), inputs, sizeof inputs);
  std::memset(args->mapped(), 0, args->size());
  uint64_t address = data->address();
  std::memcpy(static_cast<uint8_t*>(args->mapped()) + ki.args[0].offset, &address, 8);

  std::unique_ptr<vk::ComputePipeline> pipeline;
  if (vk::ComputePipeline::create(device, t.kernels[0].shader,
                                  {{k2s::kSpecLocalSizeX, 1}, {k2s::kSpecLocalSizeY, 1},
                                   {k2s::kSpecLocalSizeZ, 1}, {k2s::kSpecLocalMemoryWords, 16}},
                                  sizeof(k2s::DispatchBlock), &pipeline) != VK_SUCCESS)
    return false;
  k2s::DispatchBlock block{};
  block.argument_block_address = args->address();
  block.work_dim = 1;
  for (int d = 0; d < 3; ++d) {
    block.global_size[d] = 1;
    block.enqueued_local_size[d] = 1;
    block.num_groups[d] = 1;
  }
  std::unique_ptr<vk::CommandStream> stream;
  uint64_t point = 0;
  if (vk::CommandStream::create(device, &stream) != VK_SUCCESS ||
      stream->dispatch(*pipeline, &block, sizeof block, 1, 1, 1) != VK_SUCCESS ||
      stream->submit({}, &point) != VK_SUCCESS || stream->wait(point) != VK_SUCCESS)
    return false;
  float out[n][4];
  std::memcpy(out, data->mapped(), sizeof out);
  for (int i = 0; i < n; ++i)
    if (std::memcmp(&out[i][3], &cases[i][3], 4) != 0) return false;
  return true;
}

}  // namespace vkcl::cl
