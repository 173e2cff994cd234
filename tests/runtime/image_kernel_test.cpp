// Images in kernels: write_image read back with
// clEnqueueReadImage, read_image with samplers of every addressing mode x normalized or not x
// nearest or linear filtering, sampler-less reads and the get_image_* queries, on 1D, 1D
// array, 2D, 2D array and 3D images of float and integer formats. Every result is compared
// with a CPU reference written here from the SPIR-V environment spec's §7 (addressing and
// filtering) and the OpenCL C spec's conversion rules; inputs are random, outputs poisoned.
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

using Sampler = Handle<cl_sampler, clReleaseSampler>;
using Float4 = std::array<float, 4>;
using Int4 = std::array<int32_t, 4>;

struct Shape {
  cl_mem_object_type type;
  const char* cl_type;  // the OpenCL C type name
  size_t width, height, depth, array_size;
  uint32_t dims() const {  // spatial dimensions
    switch (type) {
      case CL_MEM_OBJECT_IMAGE1D: case CL_MEM_OBJECT_IMAGE1D_ARRAY: return 1;
      case CL_MEM_OBJECT_IMAGE3D: return 3;
      default: return 2;
    }
  }
  bool arrayed() const { return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY; }
  // Size of spatial dimension |d| (w_t, h_t, d_t).
  int size(uint32_t d) const { return int(d == 0 ? width : d == 1 ? height : depth); }
  int layers() const { return int(array_size); }
  // The clEnqueueReadImage/WriteImage region: rows are a 1D array's layers, slices a 2D array's.
  std::array<size_t, 3> region() const {
    switch (type) {
      case CL_MEM_OBJECT_IMAGE1D: return {width, 1, 1};
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: return {width, array_size, 1};
      case CL_MEM_OBJECT_IMAGE2D: return {width, height, 1};
      case CL_MEM_OBJECT_IMAGE2D_ARRAY: return {width, height, array_size};
      default: return {width, height, depth};
    }
  }
  size_t texels() const {
    auto r = region();
    return r[0] * r[1] * r[2];
  }
  // Index of texel (i, j, k) with |layer| for arrays, in the region's order.
  size_t index(int i, int j, int k, int layer) const {
    auto r = region();
    switch (type) {
      case CL_MEM_OBJECT_IMAGE1D: return size_t(i);
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: return size_t(layer) * r[0] + size_t(i);
      case CL_MEM_OBJECT_IMAGE2D: return size_t(j) * r[0] + size_t(i);
      case CL_MEM_OBJECT_IMAGE2D_ARRAY: return (size_t(layer) * r[1] + size_t(j)) * r[0] + size_t(i);
      default: return (size_t(k) * r[1] + size_t(j)) * r[0] + size_t(i);
    }
  }
};

const Shape kShapes[] = {{CL_MEM_OBJECT_IMAGE1D, "image1d_t", 13, 1, 1, 1},
                         {CL_MEM_OBJECT_IMAGE1D_ARRAY, "image1d_array_t", 11, 1, 1, 4},
                         {CL_MEM_OBJECT_IMAGE2D, "image2d_t", 9, 7, 1, 1},
                         {CL_MEM_OBJECT_IMAGE2D_ARRAY, "image2d_array_t", 7, 5, 1, 3},
                         {CL_MEM_OBJECT_IMAGE3D, "image3d_t", 5, 4, 3, 1}};

enum class Kind { Float, Int, UInt };

struct Format {
  cl_channel_order order;
  cl_channel_type type;
  const char* name;
  Kind kind() const {
    switch (type) {
      case CL_SIGNED_INT8: case CL_SIGNED_INT16: case CL_SIGNED_INT32: return Kind::Int;
      case CL_UNSIGNED_INT8: case CL_UNSIGNED_INT16: case CL_UNSIGNED_INT32: return Kind::UInt;
      default: return Kind::Float;
    }
  }
  size_t channels() const {
    switch (order) {
      case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: return 4;
      case CL_RG: case CL_RA: return 2;
      default: return 1;
    }
  }
  size_t channel_size() const {
    switch (type) {
      case CL_UNORM_INT8: case CL_SNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
      case CL_SNORM_INT16:
      case CL_HALF_FLOAT: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16: return 2;
      default: return 4;
    }
  }
  size_t texel_size() const { return channels() * channel_size(); }
};

const Format kFormats[] = {{CL_RGBA, CL_UNORM_INT8, "rgba_unorm8"},
                           {CL_R, CL_FLOAT, "r_float"},
                           {CL_RGBA, CL_HALF_FLOAT, "rgba_half"},
                           {CL_RGBA, CL_SIGNED_INT32, "rgba_int32"},
                           {CL_R, CL_UNSIGNED_INT8, "r_uint8"},
                           {CL_RGBA, CL_SNORM_INT8, "rgba_snorm8"},
                           {CL_RG, CL_UNORM_INT16, "rg_unorm16"},
                           {CL_RGBA, CL_SIGNED_INT8, "rgba_int8"},
                           {CL_RG, CL_UNSIGNED_INT16, "rg_uint16"}};

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exponent = (h >> 10) & 31, mantissa = h & 1023;
  float magnitude;
  if (exponent == 0) magnitude = std::ldexp(float(mantissa), -24);
  else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
  else magnitude = std::ldexp(float(mantissa | 1024), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

// Round to nearest even (or, with |toward_zero|, to zero): "Conversions from float to half
// round the mantissa using the round to nearest even or round to zero rounding mode" (§7.4.2).
// Finite inputs in half's range.
uint16_t float_to_half(float f, bool toward_zero = false) {
  auto round = [&](float x) { return toward_zero ? std::trunc(x) : std::nearbyint(x); };
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  float a = std::fabs(f);
  if (a >= 65520.0f) return uint16_t(sign | 0x7c00);
  if (a < std::ldexp(1.0f, -14)) {  // subnormal: units of 2^-24
    float units = round(a * std::ldexp(1.0f, 24));
    return uint16_t(sign | uint16_t(units));
  }
  int e;
  float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  float units = round(m * 2048.0f);  // 11 bits
  if (units == 2048.0f) { units = 1024.0f; ++e; }
  uint32_t exponent = uint32_t(e - 1 + 15);
  return uint16_t(sign | (exponent << 10) | (uint32_t(units) & 1023));
}

// Channels in memory order as (x, y, z, w) of the read: CL_R's missing ones are (0, 0, 1),
// CL_A's (0, 0, 0, A), CL_INTENSITY (I, I, I, I), CL_LUMINANCE (L, L, L, 1), ...
template <typename T>
std::array<T, 4> by_order(cl_channel_order order, const T* c) {
  switch (order) {
    case CL_A: return {0, 0, 0, c[0]};
    case CL_INTENSITY: return {c[0], c[0], c[0], c[0]};
    case CL_LUMINANCE: return {c[0], c[0], c[0], 1};
    case CL_RG: return {c[0], c[1], 0, 1};
    case CL_RA: return {c[0], 0, 0, c[1]};
    case CL_RGBA: return {c[0], c[1], c[2], c[3]};
    case CL_BGRA: return {c[2], c[1], c[0], c[3]};
    case CL_ARGB: return {c[1], c[2], c[3], c[0]};
    case CL_ABGR: return {c[3], c[2], c[1], c[0]};
    default: return {c[0], 0, 0, 1};  // CL_R
  }
}

// The texel at |bytes| as read_imagef (§7.4: normalized integers divided by 2^n - 1) or
// read_image{i,ui} (the integer value).
Float4 decode_float(const Format& f, const uint8_t* bytes) {
  float c[4] = {0, 0, 0, 0};
  for (size_t k = 0; k < f.channels(); ++k) {
    const uint8_t* p = bytes + k * f.channel_size();
    if (f.type == CL_UNORM_INT8) c[k] = float(*p) / 255.0f;
    // "max(-1.0, x / 127)"
    else if (f.type == CL_SNORM_INT8) c[k] = std::max(-1.0f, float(int8_t(*p)) / 127.0f);
    else if (f.type == CL_UNORM_INT16) { uint16_t u; std::memcpy(&u, p, 2); c[k] = float(u) / 65535.0f; }
    else if (f.type == CL_HALF_FLOAT) { uint16_t h; std::memcpy(&h, p, 2); c[k] = half_to_float(h); }
    else std::memcpy(&c[k], p, 4);
  }
  return by_order(f.order, c);
}
Int4 decode_int(const Format& f, const uint8_t* bytes) {
  int32_t c[4] = {0, 0, 0, 0};
  for (size_t k = 0; k < f.channels(); ++k) {
    const uint8_t* p = bytes + k * f.channel_size();
    if (f.type == CL_UNSIGNED_INT8) c[k] = *p;
    else if (f.type == CL_SIGNED_INT8) c[k] = int8_t(*p);  // sign extended (§7.4.4)
    else if (f.type == CL_UNSIGNED_INT16) { uint16_t u; std::memcpy(&u, p, 2); c[k] = u; }
    else std::memcpy(&c[k], p, 4);
  }
  return by_order(f.order, c);
}

// Random texels that are valid values (halves and floats finite, small).
std::vector<uint8_t> random_texels(const Format& f, size_t count, std::mt19937& rng) {
  std::vector<uint8_t> v(count * f.texel_size());
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  for (size_t t = 0; t < count * f.channels(); ++t) {
    uint8_t* p = v.data() + t * f.channel_size();
    if (f.type == CL_FLOAT) { float x = real(rng); std::memcpy(p, &x, 4); }
    else if (f.type == CL_HALF_FLOAT) { uint16_t h = float_to_half(real(rng)); std::memcpy(p, &h, 2); }
    else if (f.type == CL_SIGNED_INT32) { int32_t x = int32_t(rng()); std::memcpy(p, &x, 4); }
    else for (size_t b = 0; b < f.channel_size(); ++b) p[b] = uint8_t(rng());
  }
  return v;
}

struct SamplerModes {
  bool normalized;
  cl_addressing_mode addressing;
  cl_filter_mode filter;
};

std::string describe(const SamplerModes& s) {
  const char* mode = s.addressing == CL_ADDRESS_NONE ? "none"
                     : s.addressing == CL_ADDRESS_CLAMP_TO_EDGE ? "clamp_to_edge"
                     : s.addressing == CL_ADDRESS_CLAMP ? "clamp"
                     : s.addressing == CL_ADDRESS_REPEAT ? "repeat" : "mirrored_repeat";
  return std::string(s.normalized ? "normalized " : "unnormalized ") + mode +
         (s.filter == CL_FILTER_LINEAR ? " linear" : " nearest");
}

// ------------------------------------------------------------ the spec's §7, on the CPU

// address_mode() of Table 8 for CLK_ADDRESS_CLAMP, CLAMP_TO_EDGE and NONE.
int address_mode(cl_addressing_mode m, int coord, int size) {
  auto clamp = [](int a, int b, int c) { return a < b ? b : (a > c ? c : a); };
  if (m == CL_ADDRESS_CLAMP) return clamp(coord, -1, size);
  if (m == CL_ADDRESS_CLAMP_TO_EDGE) return clamp(coord, 0, size - 1);
  return coord;
}

// One dimension of §7.2: the texel index (nearest) or i0, i1 and the weight a (linear).
struct Axis {
  int i0, i1;
  float a;
};
Axis axis(const SamplerModes& s, float coord, int size) {
  Axis r{0, 0, 0.0f};
  float wt = float(size);
  bool linear = s.filter == CL_FILTER_LINEAR;
  if (s.addressing == CL_ADDRESS_REPEAT) {
    // §7.2.2: u = (s - floor(s)) x w_t.
    float u = (coord - std::floor(coord)) * wt;
    if (!linear) {
      int i = int(std::floor(u));
      if (i > size - 1) i = i - size;
      return {i, i, 0.0f};
    }
    r.i0 = int(std::floor(u - 0.5f));
    r.i1 = r.i0 + 1;
    if (r.i0 < 0) r.i0 = size + r.i0;
    if (r.i1 > size - 1) r.i1 = r.i1 - size;
    r.a = (u - 0.5f) - std::floor(u - 0.5f);
    return r;
  }
  if (s.addressing == CL_ADDRESS_MIRRORED_REPEAT) {
    // §7.2.3: s' = 2.0f * rint(0.5f * s); s' = fabs(s - s'); u = s' * w_t.
    float sp = 2.0f * std::nearbyint(0.5f * coord);
    sp = std::fabs(coord - sp);
    float u = sp * wt;
    if (!linear) {
      int i = int(std::floor(u));
      i = std::min(i, size - 1);
      return {i, i, 0.0f};
    }
    r.i0 = int(std::floor(u - 0.5f));
    r.i1 = r.i0 + 1;
    r.i0 = std::max(r.i0, 0);
    r.i1 = std::min(r.i1, size - 1);
    r.a = (u - 0.5f) - std::floor(u - 0.5f);
    return r;
  }
  // §7.1: normalized coordinates are multiplied by w_t; §7.2.1.
  float u = s.normalized ? coord * wt : coord;
  if (!linear) {
    int i = address_mode(s.addressing, int(std::floor(u)), size);
    return {i, i, 0.0f};
  }
  r.i0 = address_mode(s.addressing, int(std::floor(u - 0.5f)), size);
  r.i1 = address_mode(s.addressing, int(std::floor(u - 0.5f)) + 1, size);
  r.a = (u - 0.5f) - std::floor(u - 0.5f);
  return r;
}

struct HostImage {
  Shape shape;
  Format format;
  std::vector<uint8_t> bytes;
  // "If the image channel order is CL_A, CL_INTENSITY, ... CL_RGBA ... the border color is
  // (0.0f, 0.0f, 0.0f, 0.0f). If the image channel order is CL_R, CL_RG, CL_RGB, or
  // CL_LUMINANCE, the border color is (0.0f, 0.0f, 0.0f, 1.0f)." CL_sRGB, in neither list,
  // has no alpha either.
  float border_alpha() const {
    cl_channel_order o = format.order;
    return o == CL_R || o == CL_RG || o == CL_RGB || o == CL_LUMINANCE || o == CL_sRGB ? 1.0f : 0.0f;
  }
  bool inside(const int* ijk) const {
    for (uint32_t d = 0; d < shape.dims(); ++d)
      if (ijk[d] < 0 || ijk[d] >= shape.size(d)) return false;
    return true;
  }
  const uint8_t* at(const int* ijk, int layer) const {
    return bytes.data() + shape.index(ijk[0], ijk[1], ijk[2], layer) * format.texel_size();
  }
  Float4 texel_f(const int* ijk, int layer) const {
    if (!inside(ijk)) return {0, 0, 0, border_alpha()};
    return decode_float(format, at(ijk, layer));
  }
  Int4 texel_i(const int* ijk, int layer) const {
    if (!inside(ijk)) return {0, 0, 0, int32_t(border_alpha())};
    return decode_int(format, at(ijk, layer));
  }
  // "the image array index is computed as clamp(rint(coordinate), 0, size - 1)".
  int layer_of(float c) const {
    if (!shape.arrayed()) return 0;
    float r = std::nearbyint(c);
    return int(std::min(std::max(r, 0.0f), float(shape.layers() - 1)));
  }
  Float4 sample_f(const SamplerModes& s, const float* c) const {
    Axis ax[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (uint32_t d = 0; d < shape.dims(); ++d) ax[d] = axis(s, c[d], shape.size(d));
    int layer = shape.arrayed() ? layer_of(c[shape.dims()]) : 0;  // c holds no layer otherwise
    if (s.filter == CL_FILTER_NEAREST) {
      int ijk[3] = {ax[0].i0, ax[1].i0, ax[2].i0};
      return texel_f(ijk, layer);
    }
    // T = sum of the 2, 4 or 8 taps weighted (1 - a) or a per dimension, in the spec's order.
    Float4 sum = {0, 0, 0, 0};
    for (uint32_t t = 0; t < (1u << shape.dims()); ++t) {
      int ijk[3] = {0, 0, 0};
      float w = 1.0f;
      for (uint32_t d = 0; d < shape.dims(); ++d) {
        bool second = (t >> d) & 1;
        ijk[d] = second ? ax[d].i1 : ax[d].i0;
        w *= second ? ax[d].a : 1.0f - ax[d].a;
      }
      Float4 v = texel_f(ijk, layer);
      for (int k = 0; k < 4; ++k) sum[size_t(k)] += w * v[size_t(k)];
    }
    return sum;
  }
  Int4 sample_i(const SamplerModes& s, const float* c) const {
    Axis ax[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (uint32_t d = 0; d < shape.dims(); ++d) ax[d] = axis(s, c[d], shape.size(d));
    int ijk[3] = {ax[0].i0, ax[1].i0, ax[2].i0};
    return texel_i(ijk, shape.arrayed() ? layer_of(c[shape.dims()]) : 0);
  }
};

// Random coordinates (x, y, z, layer) for |s| on |shape| where the result is defined and does
// not hang on the last bit of a float operation: away from texel boundaries for nearest
// filtering, inside the image (the whole 2x2 square for linear) with CLK_ADDRESS_NONE.
std::vector<float> random_coordinates(const Shape& shape, const SamplerModes& s, size_t count,
                                      std::mt19937& rng) {
  std::vector<float> v;
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  while (v.size() < count * 4) {
    float c[4] = {0, 0, 0, 0};
    bool ok = true;
    for (uint32_t d = 0; d < shape.dims(); ++d) {
      float size = float(shape.size(d));
      float u;  // unnormalized
      if (s.addressing == CL_ADDRESS_NONE) {
        float margin = s.filter == CL_FILTER_LINEAR ? 0.5f : 0.0f;
        u = margin + unit(rng) * (size - 2 * margin);
      } else if (s.addressing == CL_ADDRESS_REPEAT || s.addressing == CL_ADDRESS_MIRRORED_REPEAT) {
        u = (unit(rng) * 5.0f - 2.5f) * size;
      } else {
        u = unit(rng) * (size + 4.0f) - 2.0f;
      }
      c[d] = s.normalized ? u / size : u;
      // The unnormalized coordinate the read computes, away from integers (nearest) and
      // from the integer seams of the repeat modes.
      float check = s.normalized ? c[d] * size : c[d];
      if (s.addressing == CL_ADDRESS_REPEAT || s.addressing == CL_ADDRESS_MIRRORED_REPEAT)
        check = c[d] * size;
      float frac = check - std::floor(check);
      if (s.filter == CL_FILTER_NEAREST && (frac < 0.01f || frac > 0.99f)) ok = false;
      if (s.normalized && std::fabs(c[d] - std::nearbyint(c[d])) < 0.01f) ok = false;
      if (s.normalized && s.addressing == CL_ADDRESS_MIRRORED_REPEAT &&
          std::fabs(0.5f * c[d] - std::floor(0.5f * c[d]) - 0.5f) < 0.01f)
        ok = false;
    }
    if (shape.arrayed()) {
      float l = unit(rng) * float(shape.layers() + 2) - 1.0f;
      if (std::fabs(l - std::floor(l) - 0.5f) < 0.01f) ok = false;  // no rint ties
      c[shape.dims()] = l;
    }
    if (ok) v.insert(v.end(), c, c + 4);
  }
  return v;
}

const SamplerModes* all_sampler_modes(size_t* count) {
  static std::vector<SamplerModes> modes;
  if (modes.empty())
    for (bool normalized : {false, true})
      for (cl_addressing_mode m : {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
                                   CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT})
        for (cl_filter_mode f : {CL_FILTER_NEAREST, CL_FILTER_LINEAR}) {
          // "CLK_ADDRESS_REPEAT / MIRRORED_REPEAT ... can only be used with normalized
          // coordinates" (otherwise undefined).
          if (!normalized && (m == CL_ADDRESS_REPEAT || m == CL_ADDRESS_MIRRORED_REPEAT)) continue;
          modes.push_back({normalized, m, f});
        }
  *count = modes.size();
  return modes.data();
}

// ------------------------------------------------------------ the fixture

class ImageKernels : public KernelTest {
 protected:
  bool supported(const Format& f, cl_mem_flags flags, cl_mem_object_type type) {
    cl_uint n = 0;
    EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, type, 0, nullptr, &n));
    std::vector<cl_image_format> list(n);
    if (n) {
      EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(context_, flags, type, n, list.data(), nullptr));
    }
    for (const auto& l : list)
      if (l.image_channel_order == f.order && l.image_channel_data_type == f.type) return true;
    return false;
  }
  Mem image(const Shape& s, const Format& f, cl_mem_flags flags, const void* data = nullptr) {
    cl_image_desc d{};
    d.image_type = s.type;
    d.image_width = s.width;
    d.image_height = s.type == CL_MEM_OBJECT_IMAGE1D || s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : s.height;
    d.image_depth = s.type == CL_MEM_OBJECT_IMAGE3D ? s.depth : 0;
    d.image_array_size = s.arrayed() ? s.array_size : 0;
    cl_image_format format{f.order, f.type};
    cl_int err = CL_SUCCESS;
    Mem m(clCreateImage(context_, flags | (data ? CL_MEM_COPY_HOST_PTR : 0), &format, &d,
                        const_cast<void*>(data), &err));
    EXPECT_EQ(CL_SUCCESS, err) << s.cl_type << " " << f.name;
    return m;
  }
  std::vector<uint8_t> read_image(const Mem& m, const Shape& s, const Format& f) {
    std::vector<uint8_t> out(s.texels() * f.texel_size());
    size_t origin[3] = {0, 0, 0};
    auto region = s.region();
    EXPECT_EQ(CL_SUCCESS, clEnqueueReadImage(queue_, m, CL_TRUE, origin, region.data(), 0, 0,
                                             out.data(), 0, nullptr, nullptr));
    return out;
  }
  // Runs |k|(img, c, out) over |n| work-items.
  void run_reads(const Kernel& k, const Mem& img, const Mem& c, const Mem& out, size_t n) {
    cl_mem img_h = img.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &img_h));
    set_mem_arg(k, 1, c);
    set_mem_arg(k, 2, out);
    run(k, 1, &n, nullptr);
  }
  // Runs |k|(img, a sampler of |modes|, c, out) over |n| work-items.
  void run_sampled(const Kernel& k, const Mem& img, const SamplerModes& modes, const Mem& c, const Mem& out,
                   size_t n) {
    Sampler s = sampler(modes);
    cl_mem img_h = img.get();
    cl_sampler s_h = s.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &img_h));
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_sampler), &s_h));
    set_mem_arg(k, 2, c);
    set_mem_arg(k, 3, out);
    run(k, 1, &n, nullptr);
  }
  Sampler sampler(const SamplerModes& m) {
    cl_int err = CL_SUCCESS;
    Sampler s(clCreateSampler(context_, m.normalized ? CL_TRUE : CL_FALSE, m.addressing, m.filter, &err));
    EXPECT_EQ(CL_SUCCESS, err);
    return s;
  }
};

const char* result_type(Kind k) { return k == Kind::Float ? "float4" : k == Kind::Int ? "int4" : "uint4"; }
const char* read_function(Kind k) { return k == Kind::Float ? "read_imagef" : k == Kind::Int ? "read_imagei" : "read_imageui"; }
const char* write_function(Kind k) { return k == Kind::Float ? "write_imagef" : k == Kind::Int ? "write_imagei" : "write_imageui"; }

// The coordinate expression of image type |s| from a float4 or int4 |p|.
std::string coordinate(const Shape& s, const char* p) {
  std::string v(p);
  switch (s.type) {
    case CL_MEM_OBJECT_IMAGE1D: return v + ".x";
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: case CL_MEM_OBJECT_IMAGE2D: return v + ".xy";
    default: return v;
  }
}

bool close(float a, float b, float tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(1.0f, std::fabs(b));
}

// A float read of |format|: normalized integers converted "≤ 1.5 ulp" off x / 255 (x / 127,
// x / 65535) except that 0 and the largest give exactly 0.0 and 1.0 (and -1.0) (§7.4.1); halves and floats exactly; linear
// filtering (whose precision §7.3 leaves open) within |tolerance|.
bool read_matches(float got, float want, const Format& format, float tolerance) {
  if (tolerance > 0) return close(got, want, tolerance);
  bool normalized = format.type == CL_UNORM_INT8 || format.type == CL_SNORM_INT8 ||
                    format.type == CL_UNORM_INT16;
  if (!normalized || want == 0.0f || want == 1.0f || want == -1.0f) return got == want;
  return std::fabs(got - want) <= 1.5f * std::ldexp(1.0f, std::ilogb(want) - 23);
}

// read_image with a sampler argument, every combination of the sampler's modes, float
// coordinates; integer formats with nearest filtering only ("read_imagei ... support a nearest
// filter only").
TEST_P(ImageKernels, SamplerReadsFollowTheSpecFormulas) {
  size_t mode_count = 0;
  const SamplerModes* modes = all_sampler_modes(&mode_count);
  const size_t n = 64;
  int checked = 0;
  for (const Shape& shape : kShapes)
    for (const Format& format : kFormats) {
      if (!supported(format, CL_MEM_READ_ONLY, shape.type)) continue;
      Kind kind = format.kind();
      std::string source = std::string("__kernel void k(read_only ") + shape.cl_type +
                           " img, sampler_t s, __global const float4* c, __global " +
                           result_type(kind) + "* out) {\n  size_t i = get_global_id(0);\n  float4 p = c[i];\n"
                           "  out[i] = " + read_function(kind) + "(img, s, " + coordinate(shape, "p") + ");\n}\n";
      Program program = build(source, "-cl-std=CL3.0");
      Kernel k = kernel(program, "k");
      HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
      Mem img = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
      for (size_t m = 0; m < mode_count; ++m) {
        const SamplerModes& modes_m = modes[m];
        if (kind != Kind::Float && modes_m.filter == CL_FILTER_LINEAR) continue;
        SCOPED_TRACE(std::string(shape.cl_type) + " " + format.name + " " + describe(modes_m));
        std::vector<float> coords = random_coordinates(shape, modes_m, n, rng_);
        Mem c = buffer(coords.size() * 4, coords.data());
        Mem out = poisoned(n * 16);
        run_sampled(k, img, modes_m, c, out, n);
        if (kind == Kind::Float) {
          auto got = read<float>(out, n * 4);
          // Linear filtering's precision is not defined (§7.3); a few float roundings apart.
          float tolerance = modes_m.filter == CL_FILTER_LINEAR ? 1e-4f : 0.0f;
          for (size_t i = 0; i < n; ++i) {
            Float4 want = host.sample_f(modes_m, &coords[i * 4]);
            for (size_t ch = 0; ch < 4; ++ch)
              ASSERT_TRUE(read_matches(got[i * 4 + ch], want[ch], format, tolerance))
                  << "item " << i << " channel " << ch << " at (" << coords[i * 4] << ", " << coords[i * 4 + 1]
                  << ", " << coords[i * 4 + 2] << ", " << coords[i * 4 + 3] << "): got " << got[i * 4 + ch]
                  << " want " << want[ch];
          }
        } else {
          auto got = read<int32_t>(out, n * 4);
          for (size_t i = 0; i < n; ++i) {
            Int4 want = host.sample_i(modes_m, &coords[i * 4]);
            for (size_t ch = 0; ch < 4; ++ch)
              ASSERT_EQ(got[i * 4 + ch], want[ch]) << "item " << i << " channel " << ch << " at (" << coords[i * 4]
                                                   << ", " << coords[i * 4 + 1] << ", " << coords[i * 4 + 2] << ")";
          }
        }
        ++checked;
      }
    }
  EXPECT_GT(checked, 100);
}

// Every 8-bit channel order a kernel reads: swizzled views (CL_A, CL_INTENSITY, CL_LUMINANCE,
// CL_RA, CL_ARGB, CL_ABGR), CL_BGRA, CL_RG, and CLK_ADDRESS_CLAMP's border colour per order.
TEST_P(ImageKernels, ChannelOrders) {
  const Shape& shape = kShapes[2];
  const char* source = R"(
__kernel void k(read_only image2d_t img, sampler_t s, __global const float4* c, __global float4* out) {
  size_t i = get_global_id(0);
  out[2 * i] = read_imagef(img, s, c[i].xy);
  out[2 * i + 1] = read_imagef(img, convert_int2(c[i].zw));
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel k = kernel(program, "k");
  const Format orders[] = {{CL_A, CL_UNORM_INT8, "a"},       {CL_INTENSITY, CL_UNORM_INT8, "intensity"},
                           {CL_LUMINANCE, CL_UNORM_INT8, "luminance"}, {CL_RG, CL_UNORM_INT8, "rg"},
                           {CL_RA, CL_UNORM_INT8, "ra"},     {CL_BGRA, CL_UNORM_INT8, "bgra"},
                           {CL_ARGB, CL_UNORM_INT8, "argb"}, {CL_ABGR, CL_UNORM_INT8, "abgr"}};
  const size_t n = 64;
  int checked = 0;
  for (const Format& format : orders) {
    if (!supported(format, CL_MEM_READ_ONLY, shape.type)) continue;
    for (const SamplerModes& modes : {SamplerModes{false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST},
                                      SamplerModes{true, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR}}) {
      SCOPED_TRACE(std::string(format.name) + " " + describe(modes));
      HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
      Mem img = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
      std::vector<float> sampled = random_coordinates(shape, modes, n, rng_);
      std::vector<float> coords(n * 4);
      for (size_t i = 0; i < n; ++i) {
        coords[i * 4] = sampled[i * 4];
        coords[i * 4 + 1] = sampled[i * 4 + 1];
        coords[i * 4 + 2] = float(rng_() % shape.width);
        coords[i * 4 + 3] = float(rng_() % shape.height);
      }
      Mem c = buffer(coords.size() * 4, coords.data());
      Mem out = poisoned(n * 32);
      run_sampled(k, img, modes, c, out, n);
      auto got = read<float>(out, n * 8);
      for (size_t i = 0; i < n; ++i) {
        Float4 want = host.sample_f(modes, &coords[i * 4]);
        int ij[3] = {int(coords[i * 4 + 2]), int(coords[i * 4 + 3]), 0};
        Float4 texel = host.texel_f(ij, 0);
        float tolerance = modes.filter == CL_FILTER_LINEAR ? 1e-4f : 0.0f;
        for (size_t ch = 0; ch < 4; ++ch) {
          ASSERT_TRUE(read_matches(got[i * 8 + ch], want[ch], format, tolerance))
              << "item " << i << " channel " << ch << ": got " << got[i * 8 + ch] << " want " << want[ch];
          ASSERT_TRUE(read_matches(got[i * 8 + 4 + ch], texel[ch], format, 0.0f))
              << "item " << i << " channel " << ch << " (sampler-less)";
        }
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 12) << "channel orders the device can sample";
}

// Integer coordinates with a sampler: unnormalized, nearest, CLK_ADDRESS_CLAMP,
// CLAMP_TO_EDGE and NONE ("integer coordinates ... must use a sampler with ... nearest").
TEST_P(ImageKernels, SamplerReadsAtIntegerCoordinates) {
  const size_t n = 64;
  for (const Shape& shape : kShapes) {
    const Format& format = kFormats[0];
    std::string source = std::string("__kernel void k(read_only ") + shape.cl_type +
                         " img, sampler_t s, __global const int4* c, __global float4* out) {\n"
                         "  size_t i = get_global_id(0);\n  int4 p = c[i];\n"
                         "  out[i] = read_imagef(img, s, " + coordinate(shape, "p") + ");\n}\n";
    Program program = build(source, "-cl-std=CL3.0");
    Kernel k = kernel(program, "k");
    HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
    Mem img = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
    for (cl_addressing_mode m : {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP}) {
      SamplerModes modes{false, m, CL_FILTER_NEAREST};
      SCOPED_TRACE(std::string(shape.cl_type) + " " + describe(modes));
      std::vector<int32_t> coords(n * 4, 0);
      for (size_t i = 0; i < n; ++i) {
        for (uint32_t d = 0; d < shape.dims(); ++d) {
          int size = shape.size(d);
          int lo = m == CL_ADDRESS_NONE ? 0 : -3, hi = m == CL_ADDRESS_NONE ? size - 1 : size + 2;
          coords[i * 4 + d] = lo + int(rng_() % uint32_t(hi - lo + 1));
        }
        if (shape.arrayed()) coords[i * 4 + shape.dims()] = -1 + int(rng_() % uint32_t(shape.layers() + 2));
      }
      Mem c = buffer(coords.size() * 4, coords.data());
      Mem out = poisoned(n * 16);
      run_sampled(k, img, modes, c, out, n);
      auto got = read<float>(out, n * 4);
      for (size_t i = 0; i < n; ++i) {
        float fc[4];
        for (int d = 0; d < 4; ++d) fc[d] = float(coords[i * 4 + size_t(d)]);
        Float4 want = host.sample_f(modes, fc);
        for (size_t ch = 0; ch < 4; ++ch)
          ASSERT_TRUE(read_matches(got[i * 4 + ch], want[ch], format, 0.0f))
              << "item " << i << " channel " << ch << ": got " << got[i * 4 + ch] << " want " << want[ch];
      }
    }
  }
}

// Literal samplers (OpConstantSampler) at program scope and in the kernel.
TEST_P(ImageKernels, LiteralSamplers) {
  const Shape& shape = kShapes[2];
  const Format& format = kFormats[0];
  const char* source = R"(
const sampler_t repeat_linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
__kernel void k(read_only image2d_t img, __global const float4* c, __global float4* out) {
  size_t i = get_global_id(0);
  const sampler_t clamp_nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
  out[2 * i] = read_imagef(img, repeat_linear, c[i].xy);
  out[2 * i + 1] = read_imagef(img, clamp_nearest, c[i].zw);
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel k = kernel(program, "k");
  HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
  Mem img = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
  const size_t n = 64;
  SamplerModes a{true, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR}, b{false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST};
  std::vector<float> ca = random_coordinates(shape, a, n, rng_), cb = random_coordinates(shape, b, n, rng_);
  std::vector<float> coords(n * 4);
  for (size_t i = 0; i < n; ++i) {
    coords[i * 4] = ca[i * 4];
    coords[i * 4 + 1] = ca[i * 4 + 1];
    coords[i * 4 + 2] = cb[i * 4];
    coords[i * 4 + 3] = cb[i * 4 + 1];
  }
  Mem c = buffer(coords.size() * 4, coords.data());
  Mem out = poisoned(n * 32);
  run_reads(k, img, c, out, n);
  auto got = read<float>(out, n * 8);
  for (size_t i = 0; i < n; ++i) {
    Float4 wa = host.sample_f(a, &coords[i * 4]);
    Float4 wb = host.sample_f(b, &coords[i * 4 + 2]);
    for (size_t ch = 0; ch < 4; ++ch) {
      ASSERT_TRUE(close(got[i * 8 + ch], wa[ch], 1e-4f)) << "item " << i << " channel " << ch;
      ASSERT_TRUE(read_matches(got[i * 8 + 4 + ch], wb[ch], format, 0.0f)) << "item " << i << " channel " << ch;
    }
  }
}

// The sampler expression of |m| in OpenCL C.
std::string literal(const SamplerModes& m) {
  const char* mode = m.addressing == CL_ADDRESS_NONE            ? "CLK_ADDRESS_NONE"
                     : m.addressing == CL_ADDRESS_CLAMP_TO_EDGE ? "CLK_ADDRESS_CLAMP_TO_EDGE"
                     : m.addressing == CL_ADDRESS_CLAMP         ? "CLK_ADDRESS_CLAMP"
                     : m.addressing == CL_ADDRESS_REPEAT        ? "CLK_ADDRESS_REPEAT"
                                                                : "CLK_ADDRESS_MIRRORED_REPEAT";
  return std::string(m.normalized ? "CLK_NORMALIZED_COORDS_TRUE | " : "CLK_NORMALIZED_COORDS_FALSE | ") + mode +
         (m.filter == CL_FILTER_LINEAR ? " | CLK_FILTER_LINEAR" : " | CLK_FILTER_NEAREST");
}

// Literal samplers of every combination of modes, at float coordinates and (unnormalized,
// nearest) at integer ones: the translator emits only the known modes' code for them.
TEST_P(ImageKernels, LiteralSamplersOfEveryMode) {
  size_t mode_count = 0;
  const SamplerModes* modes = all_sampler_modes(&mode_count);
  const size_t n = 64;
  for (const Format& format : {kFormats[0], kFormats[3]})
    for (const Shape& shape : kShapes) {
      if (!supported(format, CL_MEM_READ_ONLY, shape.type)) continue;
      Kind kind = format.kind();
      // One kernel per sampler: k<m> at float coordinates, i<m> at integer ones.
      std::string source;
      std::vector<size_t> used;
      auto kernel_source = [&](const std::string& name, size_t m, const char* coordinates) {
        return "__kernel void " + name + "(read_only " + shape.cl_type + " img, __global const float4* c, __global " +
               result_type(kind) + "* out) {\n  const sampler_t s = " + literal(modes[m]) + ";\n  " + coordinates +
               " p = " + (coordinates[0] == 'i' ? "convert_int4(c[get_global_id(0)])" : "c[get_global_id(0)]") +
               ";\n  out[get_global_id(0)] = " + read_function(kind) + "(img, s, " + coordinate(shape, "p") + ");\n}\n";
      };
      for (size_t m = 0; m < mode_count; ++m) {
        if (kind != Kind::Float && modes[m].filter == CL_FILTER_LINEAR) continue;
        used.push_back(m);
        source += kernel_source("k" + std::to_string(m), m, "float4");
        if (!modes[m].normalized && modes[m].filter == CL_FILTER_NEAREST)
          source += kernel_source("i" + std::to_string(m), m, "int4");
      }
      Program program = build(source, "-cl-std=CL3.0");
      HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
      Mem img = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
      for (size_t m : used)
        for (bool integer : {false, true}) {
          if (integer && (modes[m].normalized || modes[m].filter != CL_FILTER_NEAREST)) continue;
          SCOPED_TRACE(std::string(shape.cl_type) + " " + format.name + " " + describe(modes[m]) +
                       (integer ? " integer coordinates" : ""));
          Kernel k = kernel(program, ((integer ? "i" : "k") + std::to_string(m)).c_str());
          std::vector<float> coords = random_coordinates(shape, modes[m], n, rng_);
          if (integer)
            for (float& c : coords) c = std::floor(c);
          Mem c = buffer(coords.size() * 4, coords.data());
          Mem out = poisoned(n * 16);
          run_reads(k, img, c, out, n);
          if (kind == Kind::Float) {
            auto got = read<float>(out, n * 4);
            float tolerance = modes[m].filter == CL_FILTER_LINEAR ? 1e-4f : 0.0f;
            for (size_t i = 0; i < n; ++i) {
              Float4 want = host.sample_f(modes[m], &coords[i * 4]);
              for (size_t ch = 0; ch < 4; ++ch)
                ASSERT_TRUE(read_matches(got[i * 4 + ch], want[ch], format, tolerance))
                    << "item " << i << " channel " << ch << ": got " << got[i * 4 + ch] << " want " << want[ch];
            }
          } else {
            auto got = read<int32_t>(out, n * 4);
            for (size_t i = 0; i < n; ++i) {
              Int4 want = host.sample_i(modes[m], &coords[i * 4]);
              for (size_t ch = 0; ch < 4; ++ch) ASSERT_EQ(got[i * 4 + ch], want[ch]) << "item " << i << " channel " << ch;
            }
          }
        }
    }
}

// sRGB and packed formats read in kernels (read_imagef, no sampler), against the SPIR-V
// environment spec's §7.4: 5-6-5 as x / 31 and x / 63 (alpha 1, channels from bit 15 down),
// sRGB through c_linear, which must come back to within 0.5 of the stored byte through
// c_sRGB (§7.4.5), its alpha linear. Formats the device does not list are skipped.
TEST_P(ImageKernels, PackedAndSrgbReads) {
  const size_t w = 37, h = 11;
  Program program = build(R"(
    __kernel void k(read_only image2d_t img, __global float4* out) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      out[p.y * get_global_size(0) + p.x] = read_imagef(img, p);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(program, "k");
  const Format formats[] = {{CL_RGB, CL_UNORM_SHORT_565, "rgb_565"}, {CL_RGBx, CL_UNORM_SHORT_565, "rgbx_565"},
                            {CL_sRGBA, CL_UNORM_INT8, "srgba"},      {CL_sBGRA, CL_UNORM_INT8, "sbgra"},
                            {CL_sRGBx, CL_UNORM_INT8, "srgbx"}};
  auto c_linear = [](double r) { return r <= 0.04045 ? r / 12.92 : std::pow((r + 0.055) / 1.055, 2.4); };
  auto c_srgb = [](double y) { return y < 0.0031308 ? 12.92 * y : 1.055 * std::pow(y, 1 / 2.4) - 0.055; };
  // (The spec's c_sRGB reads 1.055 y^(1/2.4) without the - 0.055 of IEC 61966-2-1 and of its
  // own inverse, c_linear; the standard's is used here.)
  int checked = 0;
  for (const Format& format : formats) {
    if (!supported(format, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D)) continue;
    SCOPED_TRACE(format.name);
    const bool packed = format.type == CL_UNORM_SHORT_565;
    std::vector<uint8_t> bytes(w * h * (packed ? 2 : 4));
    for (auto& b : bytes) b = uint8_t(rng_());
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = w;
    d.image_height = h;
    cl_image_format f{format.order, format.type};
    cl_int err = CL_SUCCESS;
    Mem img(clCreateImage(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &f, &d, bytes.data(), &err));
    ASSERT_EQ(CL_SUCCESS, err);
    Mem out = poisoned(w * h * 16);
    cl_mem img_h = img.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &img_h));
    set_mem_arg(k, 1, out);
    size_t global[2] = {w, h};
    run(k, 2, global, nullptr);
    auto got = read<float>(out, w * h * 4);
    for (size_t t = 0; t < w * h; ++t) {
      const float* g = &got[t * 4];
      if (packed) {
        uint16_t v = uint16_t(bytes[t * 2] | bytes[t * 2 + 1] << 8);
        float want[4] = {float((v >> 11) & 31) / 31.0f, float((v >> 5) & 63) / 63.0f, float(v & 31) / 31.0f, 1.0f};
        for (size_t ch = 0; ch < 4; ++ch)
          ASSERT_TRUE(read_matches(g[ch], want[ch], Format{CL_RGBA, CL_UNORM_INT16, ""}, 0.0f))
              << "texel " << t << " channel " << ch << ": got " << g[ch] << " want " << want[ch];
      } else {
        const uint8_t* b = &bytes[t * 4];
        // The stored bytes in the kernel's R, G, B order.
        uint8_t rgb[3] = {b[0], b[1], b[2]};
        if (format.order == CL_sBGRA) std::swap(rgb[0], rgb[2]);
        for (size_t ch = 0; ch < 3; ++ch)
          ASSERT_NEAR(255.0 * c_srgb(g[ch]), rgb[ch], 0.5)
              << "texel " << t << " channel " << ch << ": got " << g[ch] << ", exact " << c_linear(rgb[ch] / 255.0);
        float alpha = format.order == CL_sRGBx ? 1.0f : b[3] / 255.0f;
        ASSERT_TRUE(read_matches(g[3], alpha, kFormats[0], 0.0f)) << "texel " << t << " alpha: got " << g[3];
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 1) << "none of the formats is listed";
}

// write_image{f,i,ui} of every texel, read back with clEnqueueReadImage; then sampler-less
// reads of the written image in a second kernel.
TEST_P(ImageKernels, WriteThenReadBack) {
  // And the swizzled orders whose one channel takes the colour's first component, written
  // through a view without the swizzle: "CL_INTENSITY (I, I, I, I)", "CL_LUMINANCE (L, L, L,
  // 1.0)" (OpenCL C 6.15.15.7). Every Vulkan device stores R32_SFLOAT images; reading them
  // through storage would lose the swizzle, so they are not read_write.
  const Format intensity{CL_INTENSITY, CL_FLOAT, "intensity_float"};
  EXPECT_TRUE(supported(intensity, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D));
  EXPECT_FALSE(supported(intensity, CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D));
  std::vector<Format> formats(std::begin(kFormats), std::end(kFormats));
  formats.push_back(intensity);
  formats.push_back({CL_LUMINANCE, CL_UNORM_INT8, "luminance_unorm8"});
  for (const Shape& shape : kShapes)
    for (const Format& format : formats) {
      if (!supported(format, CL_MEM_WRITE_ONLY, shape.type) || !supported(format, CL_MEM_READ_ONLY, shape.type))
        continue;
      SCOPED_TRACE(std::string(shape.cl_type) + " " + format.name);
      Kind kind = format.kind();
      const char* index = "(int)(get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0)";
      std::string coord;
      switch (shape.type) {
        case CL_MEM_OBJECT_IMAGE1D: coord = "(int)get_global_id(0)"; break;
        case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        case CL_MEM_OBJECT_IMAGE2D: coord = "(int2)(get_global_id(0), get_global_id(1))"; break;
        default: coord = "(int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0)";
      }
      std::string source = std::string("__kernel void w(write_only ") + shape.cl_type + " img, __global const " +
                           result_type(kind) + "* v) {\n  " + write_function(kind) + "(img, " + coord + ", v[" +
                           index + "]);\n}\n" + "__kernel void r(read_only " + shape.cl_type + " img, __global " +
                           result_type(kind) + "* out) {\n  out[" + index + "] = " + read_function(kind) + "(img, " +
                           coord + ");\n}\n";
      Program program = build(source, "-cl-std=CL3.0");
      Kernel w = kernel(program, "w"), r = kernel(program, "r");
      // Values every format represents exactly after conversion: unorm8 multiples of 1/255,
      // halves, in-range integers.
      size_t count = shape.texels();
      std::vector<uint8_t> texels = random_texels(format, count, rng_);
      // -128 reads as -1.0, which writes as -127 ("max(-1.0, x / 127)" has two encodings).
      if (format.type == CL_SNORM_INT8)
        for (uint8_t& b : texels) b = b == 0x80 ? 0x81 : b;
      std::vector<uint8_t> values(count * 16);
      std::vector<uint8_t> expect(count * format.texel_size());
      for (size_t t = 0; t < count; ++t) {
        const uint8_t* texel = texels.data() + t * format.texel_size();
        if (kind == Kind::Float) {
          Float4 f = decode_float(format, texel);
          std::memcpy(&values[t * 16], f.data(), 16);
        } else {
          Int4 v = decode_int(format, texel);
          std::memcpy(&values[t * 16], v.data(), 16);
        }
        std::memcpy(&expect[t * format.texel_size()], texel, format.texel_size());
      }
      Mem v = buffer(values.size(), values.data());
      // Poisoned: every texel the kernel does not write fails.
      std::vector<uint8_t> poison(count * format.texel_size(), 0xAB);
      Mem img = image(shape, format, CL_MEM_READ_WRITE, poison.data());
      cl_mem img_h = img.get();
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(w, 0, sizeof(cl_mem), &img_h));
      set_mem_arg(w, 1, v);
      auto region = shape.region();
      run(w, 3, region.data(), nullptr);
      std::vector<uint8_t> got = read_image(img, shape, format);
      for (size_t t = 0; t < count; ++t)
        ASSERT_EQ(0, std::memcmp(&got[t * format.texel_size()], &expect[t * format.texel_size()], format.texel_size()))
            << "texel " << t;
      // Sampler-less reads give the values back (CL_R's missing channels as (0, 0, 1)).
      Mem out = poisoned(count * 16);
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(r, 0, sizeof(cl_mem), &img_h));
      set_mem_arg(r, 1, out);
      run(r, 3, region.data(), nullptr);
      auto back = read<uint8_t>(out, count * 16);
      for (size_t t = 0; t < count; ++t) {
        if (kind != Kind::Float) {
          ASSERT_EQ(0, std::memcmp(&back[t * 16], &values[t * 16], 16)) << "texel " << t;
          continue;
        }
        float got[4], want[4];
        std::memcpy(got, &back[t * 16], 16);
        std::memcpy(want, &values[t * 16], 16);
        for (int ch = 0; ch < 4; ++ch)
          ASSERT_TRUE(read_matches(got[ch], want[ch], format, 0.0f)) << "texel " << t << " channel " << ch;
      }
    }
}

// write_imagef's conversions to CL_UNORM_INT8 (round to nearest, saturated) and CL_HALF_FLOAT
// (round to nearest even) of arbitrary floats.
TEST_P(ImageKernels, WriteConversions) {
  const Shape& shape = kShapes[2];
  const char* source = R"(
__kernel void w(write_only image2d_t img, __global const float4* v) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(img, p, v[p.y * get_global_size(0) + p.x]);
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel w = kernel(program, "w");
  for (const Format& format : {kFormats[0], kFormats[2]}) {
    if (!supported(format, CL_MEM_WRITE_ONLY, shape.type)) continue;
    SCOPED_TRACE(format.name);
    size_t count = shape.texels();
    std::vector<float> values(count * 4);
    std::uniform_real_distribution<float> d(-0.25f, 1.25f);
    for (float& x : values) x = format.type == CL_HALF_FLOAT ? d(rng_) * 1000.0f : d(rng_);
    Mem v = buffer(values.size() * 4, values.data());
    std::vector<uint8_t> poison(count * format.texel_size(), 0xAB);
    Mem img = image(shape, format, CL_MEM_READ_WRITE, poison.data());
    cl_mem img_h = img.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(w, 0, sizeof(cl_mem), &img_h));
    set_mem_arg(w, 1, v);
    auto region = shape.region();
    run(w, 2, region.data(), nullptr);
    std::vector<uint8_t> got = read_image(img, shape, format);
    for (size_t t = 0; t < count * 4; ++t) {
      if (format.type == CL_UNORM_INT8) {
        // OpenCL C 8.3.1.1: convert_uchar_sat_rte(f * 255.0f); the CTS accepts 0.6 off the
        // exact value.
        float exact = std::min(std::max(values[t] * 255.0f, 0.0f), 255.0f);
        ASSERT_LE(std::fabs(float(got[t]) - exact), 0.6f) << "channel value " << values[t];
      } else {
        uint16_t h;
        std::memcpy(&h, &got[t * 2], 2);
        ASSERT_TRUE(h == float_to_half(values[t]) || h == float_to_half(values[t], true))
            << "value " << values[t] << " gave half bits " << h;
      }
    }
  }
}

// read_imageh and write_imageh (cl_khr_fp16): halves in and out of a CL_HALF_FLOAT image,
// through a linear sampler.
TEST_P(ImageKernels, HalfReadsAndWrites) {
  size_t size = 0;
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string extensions(size, '\0');
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr));
  if (extensions.find("cl_khr_fp16") == std::string::npos) GTEST_SKIP() << "no cl_khr_fp16";
  const char* source = R"(
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void h(read_only image2d_t a, sampler_t s, write_only image2d_t b, __global const float4* c) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  half4 v = read_imageh(a, s, c[p.y * get_global_size(0) + p.x].xy);
  write_imageh(b, p, v);
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel k = kernel(program, "h");
  const Shape& shape = kShapes[2];
  const Format& format = kFormats[2];  // CL_RGBA, CL_HALF_FLOAT
  HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
  Mem a = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
  std::vector<uint8_t> poison(shape.texels() * format.texel_size(), 0xAB);
  Mem b = image(shape, format, CL_MEM_WRITE_ONLY, poison.data());
  SamplerModes modes{true, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST};
  Sampler s = sampler(modes);
  std::vector<float> coords = random_coordinates(shape, modes, shape.texels(), rng_);
  Mem c = buffer(coords.size() * 4, coords.data());
  cl_mem ah = a.get(), bh = b.get();
  cl_sampler sh = s.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &ah));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_sampler), &sh));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(cl_mem), &bh));
  set_mem_arg(k, 3, c);
  auto region = shape.region();
  run(k, 2, region.data(), nullptr);
  std::vector<uint8_t> got = read_image(b, shape, format);
  for (size_t t = 0; t < shape.texels(); ++t) {
    Float4 want = host.sample_f(modes, &coords[t * 4]);  // halves: exact through float
    for (size_t ch = 0; ch < 4; ++ch) {
      uint16_t h;
      std::memcpy(&h, &got[(t * 4 + ch) * 2], 2);
      ASSERT_EQ(want[ch], half_to_float(h)) << "texel " << t << " channel " << ch;
    }
  }
}

// §7.4.4: write_imagei and write_imageui saturate to 8- and 16-bit channels.
TEST_P(ImageKernels, IntegerWritesSaturate) {
  const Shape& shape = kShapes[0];  // 1D, 13 texels
  const char* source = R"(
__kernel void wi(write_only image1d_t img, __global const int4* v) {
  int i = get_global_id(0);
  write_imagei(img, i, v[i]);
}
__kernel void wu(write_only image1d_t img, __global const uint4* v) {
  int i = get_global_id(0);
  write_imageui(img, i, v[i]);
})";
  Program program = build(source, "-cl-std=CL3.0");
  struct Case {
    cl_channel_type type;
    int64_t lo, hi;
    size_t bytes;
  };
  const Case cases[] = {{CL_SIGNED_INT8, -128, 127, 1},     {CL_SIGNED_INT16, -32768, 32767, 2},
                        {CL_SIGNED_INT32, INT32_MIN, INT32_MAX, 4}, {CL_UNSIGNED_INT8, 0, 255, 1},
                        {CL_UNSIGNED_INT16, 0, 65535, 2},   {CL_UNSIGNED_INT32, 0, UINT32_MAX, 4}};
  int checked = 0;
  for (const Case& c : cases) {
    Format format{CL_RGBA, c.type, "rgba_int"};
    if (!supported(format, CL_MEM_WRITE_ONLY, shape.type)) continue;
    SCOPED_TRACE(std::to_string(c.type));
    bool is_signed = c.lo < 0;
    Kernel k = kernel(program, is_signed ? "wi" : "wu");
    std::vector<uint32_t> values(shape.texels() * 4);
    for (size_t t = 0; t < values.size(); ++t) {
      // Edges, just past them and anything.
      const uint32_t special[] = {uint32_t(c.lo), uint32_t(c.hi), uint32_t(c.lo - 1), uint32_t(c.hi + 1), 0, 1};
      values[t] = t < 6 ? special[t] : uint32_t(rng_());
    }
    Mem v = buffer(values.size() * 4, values.data());
    std::vector<uint8_t> poison(shape.texels() * 4 * c.bytes, 0xAB);
    Mem img = image(shape, format, CL_MEM_READ_WRITE, poison.data());
    cl_mem h = img.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
    set_mem_arg(k, 1, v);
    size_t global = shape.width;
    run(k, 1, &global, nullptr);
    std::vector<uint8_t> got = read_image(img, shape, format);
    for (size_t t = 0; t < values.size(); ++t) {
      int64_t x = is_signed ? int64_t(int32_t(values[t])) : int64_t(values[t]);
      int64_t want = std::min(std::max(x, c.lo), c.hi);
      int64_t g = 0;
      if (c.bytes == 1) g = is_signed ? int64_t(int8_t(got[t])) : int64_t(got[t]);
      else if (c.bytes == 2) {
        uint16_t u;
        std::memcpy(&u, &got[t * 2], 2);
        g = is_signed ? int64_t(int16_t(u)) : int64_t(u);
      } else {
        uint32_t u;
        std::memcpy(&u, &got[t * 4], 4);
        g = is_signed ? int64_t(int32_t(u)) : int64_t(u);
      }
      ASSERT_EQ(want, g) << "channel " << t << " wrote " << x;
    }
    ++checked;
  }
  EXPECT_EQ(6, checked) << "integer formats the device can write";
}

// get_image_width/height/depth/array_size/dim and get_image_channel_data_type/order.
TEST_P(ImageKernels, Queries) {
  for (const Shape& shape : kShapes)
    for (const Format& format : {kFormats[0], kFormats[1], kFormats[3]}) {
      if (!supported(format, CL_MEM_READ_ONLY, shape.type)) continue;
      SCOPED_TRACE(std::string(shape.cl_type) + " " + format.name);
      std::string q = "  out[0] = get_image_width(img);\n"
                      "  out[1] = get_image_channel_data_type(img);\n"
                      "  out[2] = get_image_channel_order(img);\n";
      if (shape.dims() >= 2) q += "  out[3] = get_image_height(img);\n";
      if (shape.dims() == 3) q += "  out[4] = get_image_depth(img);\n  int4 d = get_image_dim(img);\n  out[5] = d.x; out[6] = d.y; out[7] = d.z; out[8] = d.w;\n";
      if (shape.type == CL_MEM_OBJECT_IMAGE2D || shape.type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
        q += "  int2 d = get_image_dim(img);\n  out[5] = d.x; out[6] = d.y;\n";
      if (shape.arrayed()) q += "  out[9] = (int)get_image_array_size(img);\n";
      std::string source = std::string("__kernel void q(read_only ") + shape.cl_type + " img, __global int* out) {\n" + q + "}\n";
      Program program = build(source, "-cl-std=CL3.0");
      Kernel k = kernel(program, "q");
      Mem img = image(shape, format, CL_MEM_READ_ONLY);
      Mem out = buffer(10 * 4, std::vector<int32_t>(10, -7).data());
      cl_mem img_h = img.get();
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &img_h));
      set_mem_arg(k, 1, out);
      size_t one = 1;
      run(k, 1, &one, nullptr);
      auto got = read<int32_t>(out, 10);
      EXPECT_EQ(int(shape.width), got[0]);
      EXPECT_EQ(int(format.type), got[1]);
      EXPECT_EQ(int(format.order), got[2]);
      EXPECT_EQ(shape.dims() >= 2 ? int(shape.height) : -7, got[3]);
      EXPECT_EQ(shape.dims() == 3 ? int(shape.depth) : -7, got[4]);
      if (shape.dims() == 3) {
        EXPECT_EQ((std::vector<int32_t>{int(shape.width), int(shape.height), int(shape.depth), 0}),
                  std::vector<int32_t>(got.begin() + 5, got.begin() + 9));
      } else if (shape.dims() == 2) {
        EXPECT_EQ(int(shape.width), got[5]);
        EXPECT_EQ(int(shape.height), got[6]);
      }
      EXPECT_EQ(shape.arrayed() ? int(shape.array_size) : -7, got[9]);
    }
}

// Images passed to functions (kept at -cl-opt-disable), a helper called with two different
// images (darktable's blend helpers; it cannot stay a function when an image is a binding),
// several images in one kernel, and a kernel writing an image that a later kernel samples
// (the barrier between them).
TEST_P(ImageKernels, ImagesThroughFunctionsAndKernels) {
  const char* source = R"(
float4 fetch(read_only image2d_t img, sampler_t s, float2 c) { return read_imagef(img, s, c); }
void store(write_only image2d_t img, int2 p, float4 v) { write_imagef(img, p, v); }
__attribute__((noinline)) float4 at(read_only image2d_t img, int2 p) { return read_imagef(img, p); }
__kernel void copy_scaled(read_only image2d_t a, sampler_t s, write_only image2d_t b) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  store(b, p, fetch(a, s, (float2)(p.x + 0.5f, p.y + 0.5f)) * 0.5f);
}
__kernel void sum(read_only image2d_t a, read_only image2d_t b, __global float4* out) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  out[p.y * get_global_size(0) + p.x] = at(a, p) + at(b, p);
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel copy = kernel(program, "copy_scaled"), sum = kernel(program, "sum");
  const Shape& shape = kShapes[2];
  const Format& format = kFormats[1];  // CL_R, CL_FLOAT: exact
  HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
  Mem a = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
  std::vector<uint8_t> poison(shape.texels() * format.texel_size(), 0xAB);
  Mem b = image(shape, format, CL_MEM_READ_WRITE, poison.data());
  Sampler s = sampler({false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST});
  cl_mem ah = a.get(), bh = b.get();
  cl_sampler sh = s.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(copy, 0, sizeof(cl_mem), &ah));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(copy, 1, sizeof(cl_sampler), &sh));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(copy, 2, sizeof(cl_mem), &bh));
  Mem out = poisoned(shape.texels() * 16);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(sum, 0, sizeof(cl_mem), &ah));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(sum, 1, sizeof(cl_mem), &bh));
  set_mem_arg(sum, 2, out);
  size_t global[2] = {shape.width, shape.height};
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, copy, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, sum, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  auto got = read<float>(out, shape.texels() * 4);
  for (size_t t = 0; t < shape.texels(); ++t) {
    float x;
    std::memcpy(&x, &host.bytes[t * 4], 4);
    float want[4] = {x + x * 0.5f, 0.0f, 0.0f, 2.0f};
    for (size_t ch = 0; ch < 4; ++ch) ASSERT_EQ(want[ch], got[t * 4 + ch]) << "texel " << t << " channel " << ch;
  }
}

// A box blur: image reads in loops, long enough that on lavapipe the kernel stops and resumes
// in later dispatches (VKCL_RESUMABLE_LOOPS) with its images and sampler still bound.
TEST_P(ImageKernels, ReadsInLongLoops) {
  const char* source = R"(
__kernel void blur(read_only image2d_t src, write_only image2d_t dst, sampler_t s, int radius) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  float4 acc = (float4)(0.0f);
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx)
      acc += read_imagef(src, s, p + (int2)(dx, dy));
  write_imagef(dst, p, acc);
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel k = kernel(program, "blur");
  Shape shape{CL_MEM_OBJECT_IMAGE2D, "image2d_t", 8, 4, 1, 1};
  const Format& format = kFormats[1];  // CL_R, CL_FLOAT
  // Small integers: every sum is exact in any order.
  std::vector<float> texels(shape.texels());
  for (float& t : texels) t = float(rng_() % 16);
  Mem src = image(shape, format, CL_MEM_READ_ONLY, texels.data());
  for (int radius : {2, 130}) {
    SCOPED_TRACE("radius " + std::to_string(radius));
    std::vector<uint8_t> poison(shape.texels() * 4, 0xAB);
    Mem dst = image(shape, format, CL_MEM_WRITE_ONLY, poison.data());
    Sampler s = sampler({false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST});
    cl_mem sh = src.get(), dh = dst.get();
    cl_sampler smp = s.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &sh));
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_mem), &dh));
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(cl_sampler), &smp));
    set_arg(k, 3, cl_int(radius));
    auto region = shape.region();
    run(k, 2, region.data(), nullptr);
    std::vector<uint8_t> got = read_image(dst, shape, format);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 8; ++x) {
        double want = 0;
        for (int dy = -radius; dy <= radius; ++dy)
          for (int dx = -radius; dx <= radius; ++dx)
            want += texels[size_t(std::min(std::max(y + dy, 0), 3) * 8 + std::min(std::max(x + dx, 0), 7))];
        float g;
        std::memcpy(&g, &got[size_t(y * 8 + x) * 4], 4);
        ASSERT_EQ(float(want), g) << "(" << x << ", " << y << ")";
      }
  }
}

// Host writes before a kernel and copies after it see the kernel's order: a non-blocking
// clEnqueueWriteImage, a kernel that reads it and writes another image, clEnqueueCopyImage of
// that, then a read.
TEST_P(ImageKernels, OrderedWithImageCommands) {
  const char* source = R"(
__kernel void twice(read_only image2d_t a, write_only image2d_t b) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imageui(b, p, read_imageui(a, p) * 2u);
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel k = kernel(program, "twice");
  Shape shape{CL_MEM_OBJECT_IMAGE2D, "image2d_t", 16, 8, 1, 1};
  const Format& format = kFormats[4];  // CL_R, CL_UNSIGNED_INT8
  std::vector<uint8_t> data(shape.texels());
  for (auto& d : data) d = uint8_t(rng_() % 128);
  std::vector<uint8_t> poison(shape.texels(), 0xAB);
  Mem a = image(shape, format, CL_MEM_READ_ONLY, poison.data());
  Mem b = image(shape, format, CL_MEM_READ_WRITE, poison.data());
  Mem c = image(shape, format, CL_MEM_READ_WRITE, poison.data());
  size_t origin[3] = {0, 0, 0};
  auto region = shape.region();
  ASSERT_EQ(CL_SUCCESS, clEnqueueWriteImage(queue_, a, CL_FALSE, origin, region.data(), 0, 0, data.data(), 0,
                                            nullptr, nullptr));
  cl_mem ah = a.get(), bh = b.get();
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &ah));
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_mem), &bh));
  ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(queue_, k, 2, nullptr, region.data(), nullptr, 0, nullptr, nullptr));
  ASSERT_EQ(CL_SUCCESS, clEnqueueCopyImage(queue_, b, c, origin, origin, region.data(), 0, nullptr, nullptr));
  std::vector<uint8_t> got = read_image(c, shape, format);
  for (size_t t = 0; t < shape.texels(); ++t) ASSERT_EQ(uint8_t(data[t] * 2), got[t]) << "texel " << t;
}

// Coordinates where the spec leaves the result undefined (NaN, infinities, huge values, writes
// outside the image) run without harm: no crash, no validation message, and texels inside
// the image that no work-item targets keep their values.
TEST_P(ImageKernels, UndefinedCoordinatesAreHarmless) {
  const char* source = R"(
__kernel void k(read_only image2d_t a, sampler_t s, write_only image2d_t b, __global const float2* c,
                __global float4* out) {
  size_t i = get_global_id(0);
  out[i] = read_imagef(a, s, c[i]);
  write_imagef(b, convert_int2_sat(c[i]), (float4)(1.0f));
})";
  Program program = build(source, "-cl-std=CL3.0");
  Kernel k = kernel(program, "k");
  const Shape& shape = kShapes[2];
  const Format& format = kFormats[1];
  HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
  Mem a = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
  const float inf = INFINITY;
  std::vector<float> coords = {NAN, 0.5f, 0.5f, NAN, inf, -inf, -inf, inf, 3e9f, -3e9f, -1e30f, 1e30f,
                               -5.0f, -5.0f, 1000.0f, 3.0f, 3.0f, 1000.0f, 9.0f, 7.0f};
  const size_t n = coords.size() / 2;
  Mem c = buffer(coords.size() * 4, coords.data());
  size_t mode_count = 0;
  const SamplerModes* modes = all_sampler_modes(&mode_count);
  for (size_t m = 0; m < mode_count; ++m) {
    SCOPED_TRACE(describe(modes[m]));
    std::vector<uint8_t> poison(shape.texels() * 4, 0xAB);
    Mem b = image(shape, format, CL_MEM_WRITE_ONLY, poison.data());
    Mem out = poisoned(n * 16);
    Sampler s = sampler(modes[m]);
    cl_mem ah = a.get(), bh = b.get();
    cl_sampler sh = s.get();
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &ah));
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_sampler), &sh));
    ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(cl_mem), &bh));
    set_mem_arg(k, 3, c);
    set_mem_arg(k, 4, out);
    run(k, 1, &n, nullptr);
    std::vector<uint8_t> got = read_image(b, shape, format);
    // No work-item writes inside the image but (0, 0) from -inf/NaN/... converted
    // (convert_int2_sat(NaN) is 0) and the clamped huge values: texel (4, 3) is untouched.
    EXPECT_EQ(0, std::memcmp(&got[(3 * shape.width + 4) * 4], poison.data(), 4));
  }
}

// clSetKernelArg's errors for image and sampler arguments.
TEST_P(ImageKernels, SetKernelArgErrors) {
  const char* source = R"(
__kernel void k(read_only image2d_t r, write_only image2d_t w, sampler_t s, __global float4* out) {
  int2 p = (int2)(0, 0);
  out[0] = read_imagef(r, s, p);
  write_imagef(w, p, out[1]);
})";
  Program program = build(source, "-cl-std=CL3.0 -cl-kernel-arg-info");
  Kernel k = kernel(program, "k");
  const Format& format = kFormats[0];
  Mem ro = image(kShapes[2], format, CL_MEM_READ_ONLY);
  Mem wo = image(kShapes[2], format, CL_MEM_WRITE_ONLY);
  Mem rw = image(kShapes[2], format, CL_MEM_READ_WRITE);
  Mem three_d = image(kShapes[4], format, CL_MEM_READ_WRITE);
  Mem buf = buffer(64);
  Sampler s = sampler({false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST});
  cl_mem h;
  // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified
  // arg_value is not a valid memory object (or not an image of the argument's type).
  h = buf.get();
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  h = three_d.get();
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  h = reinterpret_cast<cl_mem>(context_.get());
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  h = nullptr;
  EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  // CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only qualifier
  // and arg_value refers to an image object created with CL_MEM_WRITE_ONLY, or write_only
  // and CL_MEM_READ_ONLY.
  h = wo.get();
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  h = ro.get();
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, sizeof(cl_mem), &h));
  // CL_INVALID_ARG_VALUE if arg_value specified is NULL for an argument that is not declared
  // with the local qualifier.
  EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 0, sizeof(cl_mem), nullptr));
  // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type.
  h = ro.get();
  EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 4, &h));
  cl_sampler sh = s.get();
  EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 2, 4, &sh));
  // CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the specified
  // arg_value is not a valid sampler object.
  cl_sampler bad = reinterpret_cast<cl_sampler>(buf.get());
  EXPECT_EQ(CL_INVALID_SAMPLER, clSetKernelArg(k, 2, sizeof(cl_sampler), &bad));
  bad = nullptr;
  EXPECT_EQ(CL_INVALID_SAMPLER, clSetKernelArg(k, 2, sizeof(cl_sampler), &bad));
  EXPECT_EQ(CL_INVALID_SAMPLER, clSetKernelArg(k, 2, sizeof(cl_sampler), nullptr));
  // And what works.
  h = ro.get();
  EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  h = rw.get();
  EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(cl_mem), &h));
  EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_mem), &h));
  EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(cl_sampler), &sh));
  // An image argument's type: CL_KERNEL_ARG_TYPE_NAME and access qualifier.
  char name[64] = {};
  ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, nullptr));
  EXPECT_STREQ("image2d_t", name);
  cl_kernel_arg_access_qualifier access = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(access), &access, nullptr));
  EXPECT_EQ(cl_kernel_arg_access_qualifier(CL_KERNEL_ARG_ACCESS_WRITE_ONLY), access);
}

// cl_khr_depth_images: image2d_depth_t and image2d_array_depth_t of CL_DEPTH (CL_FLOAT,
// CL_UNORM_INT16), read with every sampler (the border value is 0.0f), read without one,
// written with a float and queried; reported with the extension, for 2D images and 2D arrays
// only.
TEST_P(ImageKernels, DepthImages) {
  char extensions[8192] = {};
  ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, nullptr));
  const Format depth_formats[] = {{CL_DEPTH, CL_FLOAT, "depth_float"}, {CL_DEPTH, CL_UNORM_INT16, "depth_unorm16"}};
  const bool reported = std::string(extensions).find("cl_khr_depth_images") != std::string::npos;
  for (const Format& format : depth_formats) {
    for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY}) {
      EXPECT_EQ(reported, supported(format, flags, CL_MEM_OBJECT_IMAGE2D)) << format.name;
      EXPECT_EQ(reported, supported(format, flags, CL_MEM_OBJECT_IMAGE2D_ARRAY)) << format.name;
      EXPECT_FALSE(supported(format, flags, CL_MEM_OBJECT_IMAGE3D)) << format.name;
      EXPECT_FALSE(supported(format, flags, CL_MEM_OBJECT_IMAGE1D)) << format.name;
    }
  }
  if (!reported) GTEST_SKIP() << "no cl_khr_depth_images";
  {
    cl_image_format f{CL_DEPTH, CL_FLOAT};
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE3D;
    d.image_width = d.image_height = d.image_depth = 4;
    cl_int err = CL_SUCCESS;
    Mem m(clCreateImage(context_, CL_MEM_READ_ONLY, &f, &d, nullptr, &err));
    EXPECT_EQ(CL_IMAGE_FORMAT_NOT_SUPPORTED, err);
  }
  size_t mode_count = 0;
  const SamplerModes* modes = all_sampler_modes(&mode_count);
  const size_t n = 64;
  const Shape shapes[] = {{CL_MEM_OBJECT_IMAGE2D, "image2d_depth_t", 9, 7, 1, 1},
                          {CL_MEM_OBJECT_IMAGE2D_ARRAY, "image2d_array_depth_t", 7, 5, 1, 3}};
  for (const Shape& shape : shapes)
    for (const Format& format : depth_formats) {
      SCOPED_TRACE(std::string(shape.cl_type) + " " + format.name);
      std::string coord = shape.arrayed() ? "p" : "p.xy";
      std::string icoord = shape.arrayed() ? "(int4)(x, y, l, 0)" : "(int2)(x, y)";
      std::string source =
          "__kernel void sampled(read_only " + std::string(shape.cl_type) +
          " img, sampler_t s, __global const float4* c, __global float* out) {\n"
          "  size_t i = get_global_id(0);\n  float4 p = c[i];\n  out[i] = read_imagef(img, s, " + coord + ");\n}\n"
          "__kernel void plain(read_only " + shape.cl_type + " img, __global float* out, __global int* q) {\n"
          "  int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
          "  out[(l * get_image_height(img) + y) * get_image_width(img) + x] = read_imagef(img, " + icoord + ");\n"
          "  if (x + y + l == 0) { q[0] = get_image_channel_order(img); q[1] = get_image_channel_data_type(img);\n"
          "    q[2] = get_image_width(img); q[3] = get_image_height(img); }\n}\n"
          "__kernel void store(write_only " + shape.cl_type + " img, __global const float* v) {\n"
          "  int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
          "  write_imagef(img, " + icoord + ", v[(l * get_global_size(1) + y) * get_global_size(0) + x]);\n}\n";
      Program program = build(source, "-cl-std=CL3.0");
      // Depth values: floats anywhere, unorm16 in [0, 1].
      HostImage host{shape, format, random_texels(format, shape.texels(), rng_)};
      Mem img = image(shape, format, CL_MEM_READ_ONLY, host.bytes.data());
      Kernel sampled = kernel(program, "sampled");
      for (size_t m = 0; m < mode_count; ++m) {
        SCOPED_TRACE(describe(modes[m]));
        std::vector<float> coords = random_coordinates(shape, modes[m], n, rng_);
        Mem c = buffer(coords.size() * 4, coords.data());
        Mem out = poisoned(n * 4);
        run_sampled(sampled, img, modes[m], c, out, n);
        auto got = read<float>(out, n);
        float tolerance = modes[m].filter == CL_FILTER_LINEAR ? 1e-4f : 0.0f;
        for (size_t i = 0; i < n; ++i) {
          float want = host.sample_f(modes[m], &coords[i * 4])[0];  // outside: the border value 0
          ASSERT_TRUE(read_matches(got[i], want, format, tolerance))
              << "item " << i << " at (" << coords[i * 4] << ", " << coords[i * 4 + 1] << ", "
              << coords[i * 4 + 3] << "): got " << got[i] << " want " << want;
        }
      }
      // Sampler-less reads of every texel, and the queries.
      Kernel plain = kernel(program, "plain");
      Mem out = poisoned(shape.texels() * 4);
      Mem q = poisoned(16);
      cl_mem img_h = img.get();
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(plain, 0, sizeof(cl_mem), &img_h));
      set_mem_arg(plain, 1, out);
      set_mem_arg(plain, 2, q);
      auto region = shape.region();
      run(plain, 3, region.data(), nullptr);
      auto got = read<float>(out, shape.texels());
      for (size_t t = 0; t < shape.texels(); ++t)
        ASSERT_TRUE(read_matches(got[t], decode_float(format, host.bytes.data() + t * format.texel_size())[0],
                                 format, 0.0f))
            << "texel " << t << ": " << got[t];
      auto queried = read<int32_t>(q, 4);
      EXPECT_EQ(CL_DEPTH, queried[0]);
      EXPECT_EQ(int(format.type), queried[1]);
      EXPECT_EQ(int(shape.width), queried[2]);
      EXPECT_EQ(int(shape.height), queried[3]);
      // Writes: floats as they are, unorm16 values a quarter step above k / 65535 (rounded
      // to k, however ties go).
      std::vector<float> values(shape.texels());
      std::vector<uint8_t> want(shape.texels() * format.texel_size());
      for (size_t t = 0; t < values.size(); ++t) {
        if (format.type == CL_FLOAT) {
          values[t] = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng_);
          std::memcpy(&want[t * 4], &values[t], 4);
        } else {
          uint16_t k = uint16_t(rng_());
          values[t] = (float(k) + (k == 65535 ? 0.0f : 0.25f)) / 65535.0f;
          std::memcpy(&want[t * 2], &k, 2);
        }
      }
      Kernel store = kernel(program, "store");
      Mem dst = image(shape, format, CL_MEM_WRITE_ONLY);
      Mem v = buffer(values.size() * 4, values.data());
      cl_mem dst_h = dst.get();
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(store, 0, sizeof(cl_mem), &dst_h));
      set_mem_arg(store, 1, v);
      run(store, 3, region.data(), nullptr);
      EXPECT_EQ(want, read_image(dst, shape, format));
    }
}

INSTANTIATE_TEST_SUITE_P(Options, ImageKernels, ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
