#include "core/probe_kernel.h"

#include <algorithm>
#include <cstring>

namespace vkcl::cl {

namespace {
thread_local int t_failed_runs = 0;
}  // namespace

void reset_failed_probe_runs() { t_failed_runs = 0; }
int failed_probe_runs() { return t_failed_runs; }

bool run_probe(const std::shared_ptr<vk::Device>& device, const k2s::TargetCaps& caps,
               const compiler::DeviceFeatures& features, const char* source, uint32_t items,
               std::vector<std::vector<uint8_t>>* data, uint32_t repeats,
               std::vector<uint64_t>* device_ns) {
  compiler::CompileResult c = compiler::compile(source, "", features, nullptr, {}, /*whole_program=*/true);
  if (!c.ok) return false;
  k2s::TranslateResult t = k2s::translate(c.spirv, caps, k2s::InputOrigin::OwnCompiler);
  if (!t.ok || t.kernels.size() != 1 || t.kernels[0].interface.args.size() != data->size()) return false;
  const k2s::KernelInterface& ki = t.kernels[0].interface;
  std::vector<std::unique_ptr<vk::Buffer>> buffers(data->size());
  std::unique_ptr<vk::Buffer> args;
  if (vk::Buffer::create(device, std::max<uint32_t>(ki.argument_block_size, 16),
                         vk::MemoryPlacement::HostVisible, &args) != VK_SUCCESS || !args->mapped())
    return ++t_failed_runs, false;
  std::memset(args->mapped(), 0, args->size());
  for (size_t a = 0; a < data->size(); ++a) {
    const std::vector<uint8_t>& bytes = (*data)[a];
    if (vk::Buffer::create(device, bytes.size(), vk::MemoryPlacement::HostVisible, &buffers[a]) != VK_SUCCESS ||
        !buffers[a]->mapped())
      return ++t_failed_runs, false;
    std::memcpy(buffers[a]->mapped(), bytes.data(), bytes.size());
    uint64_t address = buffers[a]->address();
    std::memcpy(static_cast<uint8_t*>(args->mapped()) + ki.args[a].offset, &address, 8);
  }

  const uint32_t local = 64;
  std::unique_ptr<vk::ComputePipeline> pipeline;
  if (vk::ComputePipeline::create(device, t.kernels[0].shader,
                                  {{k2s::kSpecLocalSizeX, local}, {k2s::kSpecLocalSizeY, 1},
                                   {k2s::kSpecLocalSizeZ, 1}, {k2s::kSpecLocalMemoryWords, 16}},
                                  ki.push_constant_size, &pipeline) != VK_SUCCESS)
    return ++t_failed_runs, false;
  k2s::DispatchBlock block{};
  block.argument_block_address = args->address();
  block.work_dim = 1;
  for (int dim = 0; dim < 3; ++dim) {
    block.global_size[dim] = dim ? 1 : items;
    block.enqueued_local_size[dim] = dim ? 1 : local;
    block.num_groups[dim] = dim ? 1 : items / local;
    block.region_groups_x = items / local;
  }
  // The dispatch block, then the arguments the kernel reads from push constants.
  std::vector<uint8_t> push(sizeof block + ki.pushed_arguments_size);
  std::memcpy(push.data(), &block, sizeof block);
  std::memcpy(push.data() + sizeof block,
              static_cast<const uint8_t*>(args->mapped()) + ki.pushed_arguments_offset,
              ki.pushed_arguments_size);
  std::unique_ptr<vk::CommandStream> stream;
  uint64_t point = 0;
  std::vector<uint32_t> slots;
  VkResult r = vk::CommandStream::create(device, &stream);
  for (uint32_t k = 0; k < repeats && r == VK_SUCCESS; ++k) {
    // Each run after the one before, so that the timestamps around it are its own.
    if (k) r = stream->barrier();
    if (device_ns && r == VK_SUCCESS) r = stream->write_timestamp(&slots.emplace_back());
    if (r == VK_SUCCESS) r = stream->dispatch(*pipeline, push.data(), uint32_t(push.size()), items / local, 1, 1);
    if (device_ns && r == VK_SUCCESS) r = stream->write_timestamp(&slots.emplace_back());
  }
  if (r == VK_SUCCESS) r = stream->submit({}, &point);
  if (r == VK_SUCCESS) r = stream->wait(point);
  if (r != VK_SUCCESS) return ++t_failed_runs, false;
  if (device_ns) {
    device_ns->clear();
    for (size_t k = 0; k + 1 < slots.size(); k += 2)
      device_ns->push_back(stream->read_timestamp(slots[k + 1]) - stream->read_timestamp(slots[k]));
  }
  for (size_t a = 0; a < data->size(); ++a)
    std::memcpy((*data)[a].data(), buffers[a]->mapped(), (*data)[a].size());
  return true;
}

}  // namespace vkcl::cl
