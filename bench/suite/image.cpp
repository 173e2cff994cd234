// Images against buffers of the same data: a kernel that reads each texel of a 2D image once,
// and a 3x3 box filter (the shape of ffmpeg's OpenCL blur filters), each beside the same work
// on a buffer. The issue on images asks that reading an image cost no more than reading a
// buffer on the same device.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "suite.h"

namespace vkcl_bench {
namespace {

enum class Work { kCopy, kBox };

// Copy: RGBA float texels to a float4 buffer. Box: RGBA unorm8 texels averaged over their 3x3
// neighbourhood (clamped to the edge), written as float4.
std::string Source(Work work, bool image) {
  if (image && work == Work::kCopy)
    return "__kernel void k(read_only image2d_t in, __global float4* out) {\n"
           "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
           "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
           "  out[p.y * get_global_size(0) + p.x] = read_imagef(in, s, p);\n}\n";
  if (!image && work == Work::kCopy)
    return "__kernel void k(__global const float4* in, __global float4* out) {\n"
           "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
           "  out[i] = in[i];\n}\n";
  if (image)
    return "__kernel void k(read_only image2d_t in, __global float4* out) {\n"
           "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
           "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
           "  float4 acc = 0.0f;\n"
           "  for (int dy = -1; dy <= 1; ++dy)\n"
           "    for (int dx = -1; dx <= 1; ++dx) acc += read_imagef(in, s, p + (int2)(dx, dy));\n"
           "  out[p.y * get_global_size(0) + p.x] = acc / 9.0f;\n}\n";
  return "__kernel void k(__global const uchar4* in, __global float4* out) {\n"
         "  int w = get_global_size(0), h = get_global_size(1);\n"
         "  int x = get_global_id(0), y = get_global_id(1);\n"
         "  float4 acc = 0.0f;\n"
         "  for (int dy = -1; dy <= 1; ++dy)\n"
         "    for (int dx = -1; dx <= 1; ++dx) {\n"
         "      int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);\n"
         "      acc += convert_float4(in[yy * w + xx]) / 255.0f;\n"
         "    }\n"
         "  out[y * w + x] = acc / 9.0f;\n}\n";
}

std::unique_ptr<Trial> Prepare(Platform& platform, Outcome& outcome, Work work, bool image,
                               size_t width, size_t height) {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(platform.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, nullptr);
  if (image && !images) return NotAvailable(outcome, platform.label + " reports no image support");

  const size_t texels = width * height;
  auto trial = std::make_unique<KernelTrial>(platform);
  if (!trial->Prepare(Source(work, image), "k", "", outcome)) return nullptr;

  // Small integers (copy) or bytes (box), so the references are exact or nearly so.
  std::vector<float> floats(texels * 4);
  std::vector<uint8_t> bytes(texels * 4);
  for (size_t i = 0; i < texels * 4; ++i) {
    floats[i] = static_cast<float>(i % 251);
    bytes[i] = static_cast<uint8_t>((i * 7) % 256);
  }
  const void* data = work == Work::kCopy ? static_cast<const void*>(floats.data()) : bytes.data();
  const size_t texel_size = work == Work::kCopy ? 16 : 4;
  trial->buffers.resize(2);
  cl_int error = CL_SUCCESS;
  if (image) {
    const cl_image_format format = {CL_RGBA, cl_channel_type(work == Work::kCopy ? CL_FLOAT : CL_UNORM_INT8)};
    cl_image_desc desc = {};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = height;
    trial->buffers[0] = Buffer(clCreateImage(platform.context.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                             &format, &desc, const_cast<void*>(data), &error));
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateImage");
  } else {
    error = CreateBuffer(platform, CL_MEM_READ_ONLY, texels * texel_size, data, trial->buffers[0]);
    if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  }
  error = CreateBuffer(platform, CL_MEM_WRITE_ONLY, texels * 16, nullptr, trial->buffers[1]);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  cl_mem in = trial->buffers[0].get(), out = trial->buffers[1].get();
  error = SetArgs(trial->kernel.get(), {{sizeof(in), &in}, {sizeof(out), &out}});
  if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
  trial->dimensions = 2;
  trial->global[0] = width;
  trial->global[1] = height;
  // Copy: GB/s of texels read and written; box: millions of pixels filtered per second.
  trial->work = work == Work::kCopy ? 2.0 * texels * 16 * 1e-9 : texels * 1e-6;

  std::vector<float> expected(texels * 4);
  if (work == Work::kCopy) {
    expected = floats;
  } else {
    for (size_t y = 0; y < height; ++y)
      for (size_t x = 0; x < width; ++x)
        for (size_t c = 0; c < 4; ++c) {
          float sum = 0;
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              size_t xx = size_t(std::clamp<long>(long(x) + dx, 0, long(width) - 1));
              size_t yy = size_t(std::clamp<long>(long(y) + dy, 0, long(height) - 1));
              sum += bytes[(yy * width + xx) * 4 + c] / 255.0f;
            }
          expected[(y * width + x) * 4 + c] = sum / 9.0f;
        }
  }
  KernelTrial* raw = trial.get();
  trial->check = [raw, &platform, expected = std::move(expected)]() -> std::string {
    std::vector<float> got(expected.size());
    const cl_int error = ReadBuffer(platform, raw->buffers[1], got.size() * sizeof(float), got.data());
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    // unorm8 reads are within 1.5 ulp of x / 255 (§7.4.1): a relative 1e-5 after nine of them.
    for (size_t i = 0; i < expected.size(); ++i)
      if (!(std::fabs(got[i] - expected[i]) <= 1e-5f * std::max(1.0f, std::fabs(expected[i]))))
        return "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
               std::to_string(expected[i]);
    return "";
  };
  return trial;
}

}  // namespace

void AddImageMeasures(std::vector<Measure>& measures, const Options& options) {
  const size_t width = options.quick ? 1024 : 2048, height = options.quick ? 512 : 1024;
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  const struct {
    Work work;
    bool image;
    const char* name;
  } rows[] = {{Work::kCopy, true, "image read RGBA float, texel per item"},
              {Work::kCopy, false, "buffer read float4, same data"},
              {Work::kBox, true, "image 3x3 box RGBA unorm8"},
              {Work::kBox, false, "buffer 3x3 box uchar4, same data"}};
  for (const auto& row : rows) {
    Measure measure;
    const char* unit = row.work == Work::kCopy ? " (GB/s)" : " (Mpixel/s)";
    measure.rows = {{std::string(row.name) + " " + size + unit, true}};
    measure.prepare = [row, width, height](Platform& platform, Outcome& outcome) {
      return Prepare(platform, outcome, row.work, row.image, width, height);
    };
    measures.push_back(std::move(measure));
  }
}

}  // namespace vkcl_bench
