// Whether a device's GLSL.std.450 Fma and Sqrt are good enough for OpenCL. Vulkan allows Fma to be a multiply
// and an add, and Sqrt to be 1/inversesqrt (about 4.5 ulp); OpenCL's fma must be correctly
// rounded and its sqrt within 3 ulp. Where the device's instructions are correctly rounded
// (CPUs, most GPUs' fma) the translator uses them directly; otherwise it corrects them.
#pragma once

#include <string>

#include <memory>

#include "compiler/compiler.h"
#include "vkcl/kernel_to_shader/translate.h"
#include "vkcl/vk_backend/vk_backend.h"

namespace vkcl::cl {

struct PrecisionProbe {
  bool exact_fma = false;   // fused on inputs where a split multiply-add differs
  // Within 1 ulp on every probe input (OpenCL's bound is 3), IEEE results for ±0, ±inf,
  // negatives and NaN, and denormal inputs exact or flushed to a zero of their sign.
  bool close_sqrt = false;
  // Division within 2.5 ulp also for divisors above 2^126, where Vulkan promises nothing.
  bool full_range_divide = false;
  // Double addition, multiplication, division and conversion to float correctly rounded on
  // every probe input, denormals kept: what cl_khr_fp64 needs (false without shaderFloat64).
  bool exact_float64 = false;
  bool exact_fma64 = false;   // and double Fma fused
  bool exact_sqrt64 = false;  // and double Sqrt correctly rounded
  // Half addition, subtraction, multiplication and conversions from and to float correctly
  // rounded, division within 1 ulp (denormal results may flush), half memory read and written: what
  // cl_khr_fp16 needs (false without shaderFloat16).
  bool exact_float16 = false;
  bool half_round_trip_folded = false;  // (float)(half)x came back as x
  // 8- and 16-bit integer arithmetic that wraps as it should before it is widened (an
  // NVIDIA driver turned (char)-a into 128 for a = -128); where not, the translator computes
  // in 32 bits (widen-small-integers) and keeps only the narrow loads and stores.
  bool exact_int8 = false;
  bool exact_int16 = false;
  // False when a probe could not run (a Vulkan allocation or submission failed): the fields
  // then say false for this process, and the result is not kept in the build cache.
  bool complete = true;
};

// Runs small kernels on |device|, translated as if Fma were exact and using Sqrt bare, and compares their
// results with the host's correctly rounded ones. All false on any failure.
// The probe's findings as text ("exact_fma=1\n..."), and back: false unless every field is there.
std::string describe_probe(const PrecisionProbe& probe);
bool parse_probe(const std::string& text, PrecisionProbe* probe);

PrecisionProbe probe_precision(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                               const compiler::DeviceFeatures& features);

}  // namespace vkcl::cl
