// Sampler entry points.
#include "core/sampler.h"

#include "api/api.h"
#include "core/context.h"
#include "core/info.h"

namespace vkcl::api {
namespace {

bool valid_addressing(cl_addressing_mode m) {
  return m == CL_ADDRESS_NONE || m == CL_ADDRESS_CLAMP_TO_EDGE || m == CL_ADDRESS_CLAMP ||
         m == CL_ADDRESS_REPEAT || m == CL_ADDRESS_MIRRORED_REPEAT;
}

bool valid_filter(cl_filter_mode f) { return f == CL_FILTER_NEAREST || f == CL_FILTER_LINEAR; }

cl::Result<_cl_sampler*> create_sampler(cl_context context, cl_bool normalized,
                                        cl_addressing_mode addressing, cl_filter_mode filter,
                                        std::vector<cl_sampler_properties> properties) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return cl::Error{CL_INVALID_CONTEXT};
  // CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords or a combination of
  // these arguments are not valid.
  if ((normalized != CL_TRUE && normalized != CL_FALSE) || !valid_addressing(addressing) ||
      !valid_filter(filter))
    return cl::Error{CL_INVALID_VALUE};
  // CL_INVALID_OPERATION if images are not supported by any device associated with context.
  bool images = false;
  for (_cl_device_id* d : context->devices) images = images || d->images();
  if (!images) return cl::Error{CL_INVALID_OPERATION};
  return _cl_sampler::create(context, normalized, addressing, filter, std::move(properties));
}

cl_sampler CL_API_CALL CreateSampler(cl_context context, cl_bool normalized_coords,
                                     cl_addressing_mode addressing_mode, cl_filter_mode filter_mode,
                                     cl_int* errcode_ret) {
  return hand_out(create_sampler(context, normalized_coords, addressing_mode, filter_mode, {}),
                  errcode_ret);
}

cl_sampler CL_API_CALL CreateSamplerWithProperties(cl_context context,
                                                   const cl_sampler_properties* properties,
                                                   cl_int* errcode_ret) {
  // "If a supported property and its value is not specified in sampler_properties, its
  // default value will be used": normalized coordinates, CL_ADDRESS_CLAMP, nearest.
  cl_bool normalized = CL_TRUE;
  cl_sampler_properties addressing = CL_ADDRESS_CLAMP, filter = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> kept;
  if (properties) {
    bool seen[3] = {false, false, false};
    const cl_sampler_properties* p = properties;
    for (; *p; p += 2) {
      int which = -1;
      switch (p[0]) {
        case CL_SAMPLER_NORMALIZED_COORDS: which = 0; break;
        case CL_SAMPLER_ADDRESSING_MODE: which = 1; break;
        case CL_SAMPLER_FILTER_MODE: which = 2; break;
        default: break;
      }
      // CL_INVALID_VALUE if the property name in sampler_properties is not a supported
      // property name, if the value specified for a supported property name is not valid, or
      // if the same property name is specified more than once.
      if (which < 0 || seen[which]) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
      seen[which] = true;
      if (which == 0) {
        if (p[1] != CL_TRUE && p[1] != CL_FALSE)
          return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
        normalized = cl_bool(p[1]);
      } else if (which == 1) {
        if (!valid_addressing(cl_addressing_mode(p[1])) || p[1] > 0xffffffffu)
          return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
        addressing = p[1];
      } else {
        if (!valid_filter(cl_filter_mode(p[1])) || p[1] > 0xffffffffu)
          return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
        filter = p[1];
      }
    }
    kept.assign(properties, p + 1);
  }
  return hand_out(create_sampler(context, normalized, cl_addressing_mode(addressing),
                                 cl_filter_mode(filter), std::move(kept)),
                  errcode_ret);
}

cl_int CL_API_CALL RetainSampler(cl_sampler sampler) {
  // CL_INVALID_SAMPLER if sampler is not a valid sampler object.
  if (!cl::validate(sampler)) return CL_INVALID_SAMPLER;
  sampler->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseSampler(cl_sampler sampler) {
  // CL_INVALID_SAMPLER if sampler is not a valid sampler object.
  if (!cl::validate(sampler)) return CL_INVALID_SAMPLER;
  sampler->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetSamplerInfo(cl_sampler sampler, cl_sampler_info param, size_t size,
                                  void* value, size_t* size_ret) {
  // CL_INVALID_SAMPLER if sampler is not a valid sampler object.
  if (!cl::validate(sampler)) return CL_INVALID_SAMPLER;
  cl::InfoOut out{size, value, size_ret};
  switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT: return out(cl_uint(sampler->reference_count()));
    case CL_SAMPLER_CONTEXT: return out(static_cast<cl_context>(sampler->context.get()));
    case CL_SAMPLER_NORMALIZED_COORDS: return out(sampler->normalized_coords);
    case CL_SAMPLER_ADDRESSING_MODE: return out(sampler->addressing_mode);
    case CL_SAMPLER_FILTER_MODE: return out(sampler->filter_mode);
    // "If sampler was created using clCreateSampler, or if the properties argument specified
    // in clCreateSamplerWithProperties was NULL, the implementation must set
    // param_value_size_ret to 0."
    case CL_SAMPLER_PROPERTIES: return out(sampler->properties);
    // CL_INVALID_VALUE if param_name is not valid.
    default: return CL_INVALID_VALUE;
  }
}

}  // namespace

void register_sampler(cl_icd_dispatch& t) {
  t.clCreateSampler = guard<CreateSampler>;
  t.clCreateSamplerWithProperties = guard<CreateSamplerWithProperties>;
  t.clRetainSampler = guard<RetainSampler>;
  t.clReleaseSampler = guard<ReleaseSampler>;
  t.clGetSamplerInfo = guard<GetSamplerInfo>;
}

}  // namespace vkcl::api
