#include "core/sampler.h"

namespace vkcl::cl {

uint32_t sampler_bits(bool normalized, cl_addressing_mode addressing, cl_filter_mode filter) {
  uint32_t mode = 0;
  switch (addressing) {
    case CL_ADDRESS_CLAMP_TO_EDGE: mode = 2; break;
    case CL_ADDRESS_CLAMP: mode = 4; break;
    case CL_ADDRESS_REPEAT: mode = 6; break;
    case CL_ADDRESS_MIRRORED_REPEAT: mode = 8; break;
    default: mode = 0; break;
  }
  return (normalized ? 1u : 0u) | mode | (filter == CL_FILTER_LINEAR ? 0x20u : 0x10u);
}

}  // namespace vkcl::cl

_cl_sampler* _cl_sampler::create(_cl_context* context, cl_bool normalized,
                                 cl_addressing_mode addressing, cl_filter_mode filter,
                                 std::vector<cl_sampler_properties> properties) {
  auto s = vkcl::cl::Ref<_cl_sampler>::adopt(new _cl_sampler());
  s->context = vkcl::cl::Ref<_cl_context>(context);
  s->normalized_coords = normalized;
  s->addressing_mode = addressing;
  s->filter_mode = filter;
  s->properties = std::move(properties);
  return s.release_to_api();
}
