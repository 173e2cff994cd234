// Samplers: the three OpenCL sampler modes, and their encoding as the 4-byte value a kernel's
// sampler argument receives (the CLK_* bits of OpenCL C's sampler_t initializers, which the
// translator decodes: kernel_to_shader/passes/lower_image.cpp).
#pragma once

#include <CL/cl.h>

#include <vector>

#include "core/context.h"
#include "core/object.h"

namespace vkcl::cl {

// The CLK_* encoding of a sampler: bit 0 normalized coordinates, bits 1-3 the addressing mode
// (CLK_ADDRESS_NONE 0, CLAMP_TO_EDGE 2, CLAMP 4, REPEAT 6, MIRRORED_REPEAT 8), 0x10 nearest
// and 0x20 linear filtering.
uint32_t sampler_bits(bool normalized, cl_addressing_mode addressing, cl_filter_mode filter);

}  // namespace vkcl::cl

struct _cl_sampler : vkcl::cl::Object<_cl_sampler, vkcl::cl::ObjectKind::Sampler> {
  vkcl::cl::Ref<_cl_context> context;
  cl_bool normalized_coords = CL_TRUE;
  cl_addressing_mode addressing_mode = CL_ADDRESS_CLAMP;
  cl_filter_mode filter_mode = CL_FILTER_NEAREST;
  // CL_SAMPLER_PROPERTIES: as given to clCreateSamplerWithProperties, zero-terminated, or
  // empty (clCreateSampler, or NULL properties).
  std::vector<cl_sampler_properties> properties;

  // A sampler of |context| with the given modes (already checked by the caller).
  static _cl_sampler* create(_cl_context* context, cl_bool normalized,
                             cl_addressing_mode addressing, cl_filter_mode filter,
                             std::vector<cl_sampler_properties> properties);
  uint32_t bits() const {
    return vkcl::cl::sampler_bits(normalized_coords != CL_FALSE, addressing_mode, filter_mode);
  }
};

namespace vkcl::cl {
using Sampler = _cl_sampler;
}
