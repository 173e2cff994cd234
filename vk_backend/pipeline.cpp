#include <cstdio>
#include <string>

#include "inject.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::vk {

VkResult ComputePipeline::create(std::shared_ptr<Device> device,
                                 const std::vector<uint32_t>& spirv,
                                 const std::vector<SpecConstant>& spec_constants,
                                 uint32_t push_constant_size,
                                 const std::vector<DescriptorBinding>& descriptors,
                                 std::unique_ptr<ComputePipeline>* out) {
  if (!vulkan_usable()) return VK_ERROR_DEVICE_LOST;
  std::unique_ptr<ComputePipeline> p(new ComputePipeline());
  p->device_ = device;
  p->push_constant_size_ = push_constant_size;
  VkDevice d = device->handle();
  VkShaderModuleCreateInfo module{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module.codeSize = spirv.size() * 4;
  module.pCode = spirv.data();
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkResult r = vkCreateShaderModule(d, &module, nullptr, &p->module_);
  if (r != VK_SUCCESS) return r;
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_size};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  if (!descriptors.empty()) {
    p->push_descriptors_ = device->info().push_descriptor;
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const DescriptorBinding& b : descriptors)
      bindings.push_back({b.binding, b.type, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    if (p->push_descriptors_) set.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    set.bindingCount = uint32_t(bindings.size());
    set.pBindings = bindings.data();
    if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
    r = vkCreateDescriptorSetLayout(d, &set, nullptr, &p->set_layout_);
    if (r != VK_SUCCESS) return r;
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &p->set_layout_;
  }
  layout.pushConstantRangeCount = push_constant_size ? 1 : 0;
  layout.pPushConstantRanges = &range;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = vkCreatePipelineLayout(d, &layout, nullptr, &p->layout_);
  if (r != VK_SUCCESS) return r;
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint32_t> values;
  for (size_t i = 0; i < spec_constants.size(); ++i) {
    entries.push_back({spec_constants[i].id, uint32_t(i * 4), 4});
    values.push_back(spec_constants[i].value);
  }
  VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), values.size() * 4,
                            values.data()};
  VkComputePipelineCreateInfo create{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  create.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  create.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  create.stage.module = p->module_;
  create.stage.pName = "main";
  create.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  create.layout = p->layout_;
  if (device->info().pipeline_statistics) create.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (detail::injected_object_failure()) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = vkCreateComputePipelines(d, device->pipeline_cache(), 1, &create, nullptr, &p->pipeline_);
  if (r != VK_SUCCESS) return r;
  *out = std::move(p);
  return VK_SUCCESS;
}

void ComputePipeline::print_statistics(const std::string& label) const {
  if (!device_->info().pipeline_statistics || !vkGetPipelineExecutablePropertiesKHR) return;
  VkDevice d = device_->handle();
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, nullptr, pipeline_};
  uint32_t count = 0;
  vkGetPipelineExecutablePropertiesKHR(d, &info, &count, nullptr);
  std::string line = "vkcl pipeline " + label + ":";
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, nullptr, pipeline_, e};
    uint32_t n = 0;
    vkGetPipelineExecutableStatisticsKHR(d, &executable, &n, nullptr);
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    vkGetPipelineExecutableStatisticsKHR(d, &executable, &n, stats.data());
    for (const VkPipelineExecutableStatisticKHR& st : stats) {
      line += std::string(" ") + st.name + "=";
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: line += st.value.b32 ? "true" : "false"; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: line += std::to_string(st.value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: line += std::to_string(st.value.u64); break;
        default: line += std::to_string(st.value.f64); break;
      }
      line += ";";
    }
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

ComputePipeline::~ComputePipeline() {
  if (!device_ || !vulkan_usable()) return;
  VkDevice d = device_->handle();
  if (pipeline_) vkDestroyPipeline(d, pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(d, layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(d, set_layout_, nullptr);
  if (module_) vkDestroyShaderModule(d, module_, nullptr);
}

}  // namespace vkcl::vk
