// Programs: OpenCL C source (compiled in-process), SPIR-V IL, or vkcl binaries (a header plus
// the Kernel SPIR-V). A build translates the Kernel SPIR-V for each device.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "core/device.h"
#include "core/context.h"
#include "core/object.h"
#include "core/result.h"
#include "vkcl/kernel_to_shader/translate.h"

struct _cl_program : vkcl::cl::Object<_cl_program, vkcl::cl::ObjectKind::Program> {
  enum class Origin { Source, IL, Binary };
  struct Build {
    cl_build_status status = CL_BUILD_NONE;
    std::string options;
    std::string log;
    std::vector<uint32_t> spirv;  // Kernel SPIR-V
    cl_program_binary_type binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
    std::vector<vkcl::k2s::TranslatedKernel> kernels;
    // Where the driver cuts loops short: the rerunnable kernels that resume, translated without
    // resuming, for a first attempt that runs again resumable only if its loops were cut.
    std::vector<vkcl::k2s::TranslatedKernel> plain_kernels;
    std::vector<vkcl::compiler::KernelInfo> kernel_info;  // source programs only
    int language_version = 120;
    bool uniform_work_group_size = false;
    std::vector<uint8_t> program_data;  // initial program-scope variable contents
    std::vector<uint32_t> program_relocations;  // where the buffer's address is added
    uint32_t global_variable_size = 0;
    std::shared_ptr<vkcl::vk::Buffer> data_buffer;  // created on first launch
    std::shared_ptr<vkcl::vk::Buffer> unused_uniforms;  // likewise (unused_uniforms())
    // The pipelines of this build's kernels, shared by every kernel object made from it
    // (clients that create a kernel object per launch would build one each time).
    struct Pipelines {
      std::mutex mutex;
      // (name, Vulkan local size, work-groups packed, local memory words, zeroed, first round
      // only, plain, read_write images' formats, what the regions run have in common, which
      // __constant arguments are uniform buffers: _cl_kernel::plan_launch)
      std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, bool, bool, bool,
                          std::map<uint32_t, uint32_t>, std::tuple<bool, bool, bool>, uint64_t>,
               std::unique_ptr<vkcl::vk::ComputePipeline>>
          by_kernel;
    };
    std::shared_ptr<Pipelines> pipelines = std::make_shared<Pipelines>();
  };

  vkcl::cl::Ref<_cl_context> context;
  Origin origin = Origin::Source;
  std::string source;
  std::vector<uint8_t> il;
  // clSetProgramSpecializationConstant values (SpecId -> bytes), applied at the next build.
  std::map<uint32_t, std::vector<uint8_t>> spec_values;
  std::vector<_cl_device_id*> devices;
  std::map<_cl_device_id*, Build> builds;
  std::atomic<uint32_t> kernels_attached{0};
  std::mutex mutex;

  // Binary layout (32-bit words): magic, format version, binary type (compiled object,
  // library or executable), OpenCL C version, flags, checksum of the SPIR-V, SPIR-V word count,
  // then the Kernel SPIR-V (with Linkage for objects and libraries, so they can be linked).
  static constexpr uint32_t kBinaryMagic = 0x4c434b56;  // "VKCL"
  static constexpr uint32_t kBinaryVersion = 2;
  static constexpr uint32_t kBinaryUniformWorkGroups = 1;  // flags: -cl-uniform-work-group-size
  struct BinaryContents {
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    int language_version = 300;
    bool uniform_work_group_size = false;
    std::vector<uint32_t> spirv;
  };
  // The binary of |b|, or an empty vector when it holds no SPIR-V.
  static std::vector<uint8_t> make_binary(const Build& b);
  // The contents of |binary|, or false when it is not a whole, intact vkcl binary (wrong magic
  // or version, truncated, checksum mismatch, malformed SPIR-V instruction stream).
  static bool parse_binary(const uint8_t* binary, size_t size, BinaryContents* out);

  vkcl::cl::Result<void> build(const std::vector<_cl_device_id*>& on, const std::string& options);
  // clCompileProgram: a compiled object (Kernel SPIR-V with Linkage) per device.
  vkcl::cl::Result<void> compile(const std::vector<_cl_device_id*>& on, const std::string& options,
                                 const vkcl::compiler::Headers& headers);
  // clLinkProgram into this (new) program: a library, or an executable translated per device.
  vkcl::cl::Result<void> link(const std::vector<_cl_device_id*>& on, bool library,
                              const std::vector<_cl_program*>& inputs);
  bool built_for_any() const;
  // Kernel names of the first successful build, in module order.
  std::vector<std::string> kernel_names() const;
  const Build* build_for(_cl_device_id* d) const;
  // Translates b.spirv (from |origin|) for |device|; false (with b.log and b.status set) on
  // failure.
  bool make_executable(Build& b, _cl_device_id* device, vkcl::k2s::InputOrigin origin);
  // The device buffer holding the program-scope variables for |d|, created and filled with
  // their initial values on first use (they then persist across launches).
  vkcl::cl::Result<std::shared_ptr<vkcl::vk::Buffer>> data_buffer(_cl_device_id* d);
  // 16 bytes a launch binds as a __constant argument's uniform buffer where the argument's
  // own buffer cannot be (too large, NULL, SVM): its loads then read device addresses.
  vkcl::cl::Result<std::shared_ptr<vkcl::vk::Buffer>> unused_uniforms(_cl_device_id* d);
};

namespace vkcl::cl {
using Program = _cl_program;
}
