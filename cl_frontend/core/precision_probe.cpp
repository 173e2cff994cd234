#include "core/precision_probe.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace vkcl::cl {

namespace {

// (a, b, c, a*b+c rounded once) for products whose low bits an unfused add would lose.
const float kFmaCases[][4] = {
    {1.0f + 0x1p-23f, 1.0f - 0x1p-23f, -1.0f, -0x1p-46f},
    {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f), 0x1p-24f},
    {-3.0f - 0x1p-21f, 5.0f + 0x1p-20f, 15.0f, -0x1.600002p-18f},
};
constexpr int kFmaCount = 3;

// (x, y, x / y) with divisors above 2^126 and quotients that are exact.
const float kDivideCases[][3] = {
    {INFINITY, 0x1.fffffep127f, INFINITY},
    {0x1.fffffep127f, 0x1.fffffep127f, 1.0f},
    {0x1.8p127f, 0x1p127f, 1.5f},
    {-0x1p127f, 0x1p127f, -1.0f},
    {0x1p127f, 0x1.8p126f * 1.0f, 0x1.555556p0f},
};
constexpr int kDivideCount = 5;

// Sqrt inputs: every binade from 2^-126 to 2^127 with mantissas from a fixed generator, plus
// the neighbours of perfect squares and of the midpoints between representable roots, where
// an approximation is most likely to round the wrong way. An approximate square root (a
// reciprocal-root estimate with refinement) misses on a large fraction of random inputs, so
// thousands of them separate the two kinds reliably.
std::vector<float> sqrt_inputs() {
  std::vector<float> v;
  uint32_t state = 0x9e3779b9u;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  for (uint32_t e = 1; e < 255; ++e)
    for (int k = 0; k < 24; ++k) {
      uint32_t bits = (e << 23) | (next() & 0x7fffffu);
      float f;
      std::memcpy(&f, &bits, 4);
      v.push_back(f);
    }
  for (uint32_t r = 1; r < 1024; ++r) {  // r^2 and its neighbours, r^2 scaled by 2^-40
    float sq = float(r) * float(r);
    for (float base : {sq, sq * 0x1p-40f}) {
      v.push_back(base);
      v.push_back(std::nextafter(base, 0.0f));
      v.push_back(std::nextafter(base, INFINITY));
    }
  }
  // Special values and denormals, which the result must get right or flush (the device does
  // not report CL_FP_DENORM).
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, -1.0f, -0x1p-130f, NAN, 0x1p-149f,
                  0x1.8p-140f, 0x1.fffffcp-127f, 0x1p-127f})
    v.push_back(f);
  v.resize((v.size() + 63) / 64 * 64, 1.0f);
  return v;
}

}  // namespace

PrecisionProbe probe_precision(const std::shared_ptr<vk::Device>& device, k2s::TargetCaps caps,
                               const compiler::DeviceFeatures& features) {
  PrecisionProbe none;
  compiler::CompileResult c = compiler::compile(
      "__kernel void probe(__global float* d, __global float* s) {"
      "  size_t i = get_global_id(0);"
      "  if (i < 3) d[4 * i + 3] = fma(d[4 * i], d[4 * i + 1], d[4 * i + 2]);"
      "  if (i >= 3 && i < 8) d[4 * i + 3] = d[4 * i] / d[4 * i + 1];"
      "  s[2 * i + 1] = native_sqrt(s[2 * i]);"  // GLSL.std.450 Sqrt and nothing else
      "}",
      "", features);
  if (!c.ok) return none;
  caps.exact_fma = true;
  caps.exact_sqrt = true;
  caps.full_range_divide = true;  // the division as it is
  k2s::TranslateResult t = k2s::translate(c.spirv, caps);
  if (!t.ok || t.kernels.size() != 1 || t.kernels[0].interface.args.size() != 2) return none;
  const k2s::KernelInterface& ki = t.kernels[0].interface;

  std::vector<float> roots = sqrt_inputs();
  const uint32_t items = uint32_t(roots.size());
  std::vector<float> s(2 * items);
  for (uint32_t i = 0; i < items; ++i) s[2 * i] = roots[i];
  float d[kFmaCount + kDivideCount][4] = {};
  std::memcpy(d, kFmaCases, sizeof kFmaCases);
  for (int k = 0; k < kDivideCount; ++k) {
    d[kFmaCount + k][0] = kDivideCases[k][0];
    d[kFmaCount + k][1] = kDivideCases[k][1];
  }
  for (auto& row : d) row[3] = 0;

  std::unique_ptr<vk::Buffer> fma_data, sqrt_data, args;
  if (vk::Buffer::create(device, sizeof d, vk::MemoryPlacement::HostVisible, &fma_data) != VK_SUCCESS ||
      vk::Buffer::create(device, s.size() * 4, vk::MemoryPlacement::HostVisible, &sqrt_data) != VK_SUCCESS ||
      vk::Buffer::create(device, std::max<uint32_t>(ki.argument_block_size, 16),
                         vk::MemoryPlacement::HostVisible, &args) != VK_SUCCESS ||
      !fma_data->mapped() || !sqrt_data->mapped() || !args->mapped())
    return none;
  std::memcpy(fma_data->mapped(), d, sizeof d);
  std::memcpy(sqrt_data->mapped(), s.data(), s.size() * 4);
  std::memset(args->mapped(), 0, args->size());
  uint64_t addresses[2] = {fma_data->address(), sqrt_data->address()};
  for (int a = 0; a < 2; ++a)
    std::memcpy(static_cast<uint8_t*>(args->mapped()) + ki.args[a].offset, &addresses[a], 8);

  const uint32_t local = 64;
  std::unique_ptr<vk::ComputePipeline> pipeline;
  if (vk::ComputePipeline::create(device, t.kernels[0].shader,
                                  {{k2s::kSpecLocalSizeX, local}, {k2s::kSpecLocalSizeY, 1},
                                   {k2s::kSpecLocalSizeZ, 1}, {k2s::kSpecLocalMemoryWords, 16}},
                                  sizeof(k2s::DispatchBlock), &pipeline) != VK_SUCCESS)
    return none;
  k2s::DispatchBlock block{};
  block.argument_block_address = args->address();
  block.work_dim = 1;
  for (int dim = 0; dim < 3; ++dim) {
    block.global_size[dim] = dim ? 1 : items;
    block.enqueued_local_size[dim] = dim ? 1 : local;
    block.num_groups[dim] = dim ? 1 : items / local;
  }
  std::unique_ptr<vk::CommandStream> stream;
  uint64_t point = 0;
  if (vk::CommandStream::create(device, &stream) != VK_SUCCESS ||
      stream->dispatch(*pipeline, &block, sizeof block, items / local, 1, 1) != VK_SUCCESS ||
      stream->submit({}, &point) != VK_SUCCESS || stream->wait(point) != VK_SUCCESS)
    return none;

  PrecisionProbe result;
  float out[kFmaCount + kDivideCount][4];
  std::memcpy(out, fma_data->mapped(), sizeof out);
  result.exact_fma = true;
  for (int i = 0; i < kFmaCount; ++i)
    if (std::memcmp(&out[i][3], &kFmaCases[i][3], 4) != 0) result.exact_fma = false;
  result.full_range_divide = true;
  for (int k = 0; k < kDivideCount; ++k) {
    float got = out[kFmaCount + k][3], want = kDivideCases[k][2];
    bool ok = got == want || (std::isfinite(want) && std::fabs(got - want) <= 2.5f * 0x1p-23f * std::fabs(want));
    if (!ok) result.full_range_divide = false;
  }
  std::memcpy(s.data(), sqrt_data->mapped(), s.size() * 4);
  result.exact_sqrt = true;
  for (uint32_t i = 0; i < items; ++i) {
    float x = roots[i], got = s[2 * i + 1], expected = std::sqrt(x);
    bool flushed = std::fpclassify(x) == FP_SUBNORMAL && got == 0.0f &&
                   std::signbit(got) == std::signbit(x);
    bool same = std::memcmp(&got, &expected, 4) == 0 || (std::isnan(got) && std::isnan(expected));
    if (!same && !flushed) result.exact_sqrt = false;
  }
  return result;
}

}  // namespace vkcl::cl
