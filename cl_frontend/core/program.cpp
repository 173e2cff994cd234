#include "core/program.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace vkcl;

namespace {

constexpr size_t kHeaderWords = 7;

// FNV-1a over the SPIR-V bytes: catches a binary corrupted in storage or transit before the
// translator sees it.
uint32_t checksum(const uint32_t* words, size_t count) {
  uint32_t h = 2166136261u;
  const auto* bytes = reinterpret_cast<const uint8_t*>(words);
  for (size_t i = 0; i < count * 4; ++i) h = (h ^ bytes[i]) * 16777619u;
  return h;
}

// A SPIR-V header and an instruction stream whose word counts tile the module exactly.
bool well_formed_spirv(const std::vector<uint32_t>& spirv) {
  if (spirv.size() < 5 || spirv[0] != 0x07230203) return false;
  size_t i = 5;
  while (i < spirv.size()) {
    uint32_t count = spirv[i] >> 16;
    if (count == 0 || count > spirv.size() - i) return false;
    i += count;
  }
  return true;
}

}  // namespace

std::vector<uint8_t> _cl_program::make_binary(const Build& b) {
  if (b.spirv.empty() || b.binary_type == CL_PROGRAM_BINARY_TYPE_NONE) return {};
  std::vector<uint32_t> words = {kBinaryMagic,
                                 kBinaryVersion,
                                 uint32_t(b.binary_type),
                                 uint32_t(b.language_version),
                                 b.uniform_work_group_size ? kBinaryUniformWorkGroups : 0u,
                                 checksum(b.spirv.data(), b.spirv.size()),
                                 uint32_t(b.spirv.size())};
  words.insert(words.end(), b.spirv.begin(), b.spirv.end());
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

bool _cl_program::parse_binary(const uint8_t* binary, size_t size, BinaryContents* out) {
  if (!binary || size < kHeaderWords * 4 || size % 4) return false;
  uint32_t header[kHeaderWords];
  std::memcpy(header, binary, sizeof header);
  if (header[0] != kBinaryMagic || header[1] != kBinaryVersion) return false;
  cl_program_binary_type type = header[2];
  if (type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT && type != CL_PROGRAM_BINARY_TYPE_LIBRARY &&
      type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
    return false;
  if (header[3] != 100 && header[3] != 110 && header[3] != 120 && header[3] != 200 &&
      header[3] != 300)
    return false;
  if (header[4] & ~kBinaryUniformWorkGroups) return false;
  if (size_t(header[6]) != size / 4 - kHeaderWords) return false;
  // A module has at least SPIR-V's 5-word header (found by fuzzing: a binary of the header
  // alone copied its 0 words into a vector without storage).
  if (header[6] < 5) return false;
  std::vector<uint32_t> spirv(header[6]);
  std::memcpy(spirv.data(), binary + sizeof header, spirv.size() * 4);
  if (checksum(spirv.data(), spirv.size()) != header[5] || !well_formed_spirv(spirv)) return false;
  out->type = type;
  out->language_version = int(header[3]);
  out->uniform_work_group_size = header[4] & kBinaryUniformWorkGroups;
  out->spirv = std::move(spirv);
  return true;
}

cl::Result<void> _cl_program::build(const std::vector<_cl_device_id*>& on,
                                    const std::string& options) {
  cl_int failure = CL_SUCCESS;
  for (_cl_device_id* device : on) {
    Build b;
    b.options = options;
    b.status = CL_BUILD_IN_PROGRESS;
    cl_program_binary_type loaded_type = CL_PROGRAM_BINARY_TYPE_NONE;
    {
      std::lock_guard<std::mutex> lock(mutex);
      Build& existing = builds[device];
      // A binary program keeps its SPIR-V (and what its binary recorded) across builds.
      b.spirv = existing.spirv;
      b.language_version = existing.language_version;
      b.uniform_work_group_size = existing.uniform_work_group_size;
      loaded_type = existing.binary_type;
      if (origin == Origin::Binary) b.binary_type = loaded_type;
      existing.status = CL_BUILD_IN_PROGRESS;
    }
    if (origin == Origin::Source) {
      bool invalid_options = false;
      compiler::CompileResult c = compiler::compile(source, options, device->compiler_features(),
                                                    &invalid_options, {}, /*whole_program=*/true);
      b.log = c.log;
      if (!c.ok) {
        b.status = CL_BUILD_ERROR;
        failure = invalid_options ? CL_INVALID_BUILD_OPTIONS : CL_BUILD_PROGRAM_FAILURE;
        std::lock_guard<std::mutex> lock(mutex);
        builds[device] = std::move(b);
        continue;
      }
      b.spirv = std::move(c.spirv);
      b.kernel_info = std::move(c.kernels);
      b.language_version = c.language_version;
      b.uniform_work_group_size = c.uniform_work_group_size;
    } else if (origin == Origin::IL) {
      b.spirv.resize(il.size() / 4);
      std::memcpy(b.spirv.data(), il.data(), b.spirv.size() * 4);
      // IL programs are OpenCL C 2.0+-style: non-uniform work-groups are allowed.
      b.language_version = 300;
    } else if (loaded_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
      // A compiled object or library binary becomes an executable the way clLinkProgram
      // would make one of it alone: its imports must all be resolved.
      std::vector<uint32_t> linked;
      std::string error;
      if (!k2s::link_modules({b.spirv}, false, &linked, &error)) {
        b.log = error;
        b.status = CL_BUILD_ERROR;
        failure = CL_BUILD_PROGRAM_FAILURE;
        std::lock_guard<std::mutex> lock(mutex);
        builds[device] = std::move(b);
        continue;
      }
      b.spirv = std::move(linked);
    }
    const k2s::InputOrigin from = origin == Origin::Source ? k2s::InputOrigin::OwnCompiler
                                                           : k2s::InputOrigin::Application;
    if (!make_executable(b, device, from)) failure = CL_BUILD_PROGRAM_FAILURE;
    std::lock_guard<std::mutex> lock(mutex);
    builds[device] = std::move(b);
  }
  if (failure != CL_SUCCESS) return cl::Error{failure};
  return {};
}

bool _cl_program::make_executable(Build& b, _cl_device_id* device, k2s::InputOrigin origin) {
  std::map<uint32_t, std::vector<uint8_t>> spec;
  {
    std::lock_guard<std::mutex> lock(mutex);
    spec = spec_values;
  }
  k2s::TranslateResult t = *device->translate(k2s::specialize(b.spirv, spec), origin);
  b.log += t.log;
  if (t.ok && t.global_variable_size > cl::kMaxGlobalVariableSize) {
    t.ok = false;
    b.log += "error: the program's __global variables take " +
             std::to_string(t.global_variable_size) + " bytes; the device allows " +
             std::to_string(cl::kMaxGlobalVariableSize) + " (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE)\n";
  }
  if (!t.ok) {
    b.status = CL_BUILD_ERROR;
    return false;
  }
  // VKCL_DUMP_SHADERS=<folder>: each kernel's Vulkan SPIR-V as the driver gets it, for
  // spirv-dis (vkcl-translate shows the same for a file, with caps of its own).
  if (const char* dump = std::getenv("VKCL_DUMP_SHADERS"))
    for (const k2s::TranslatedKernel& k : t.kernels)
      if (FILE* f = std::fopen((std::string(dump) + "/" + k.interface.name + ".spv").c_str(), "wb")) {
        std::fwrite(k.shader.data(), 4, k.shader.size(), f);
        std::fclose(f);
      }
  // VKCL_REPLACE_SHADERS=<folder>: a <kernel>.spv there is used instead of the translation
  // (same interface), to try what a different shader would do on the driver.
  if (const char* replace = std::getenv("VKCL_REPLACE_SHADERS"))
    for (k2s::TranslatedKernel& k : t.kernels)
      if (FILE* f = std::fopen((std::string(replace) + "/" + k.interface.name + ".spv").c_str(), "rb")) {
        std::vector<uint32_t> words;
        uint32_t w;
        while (std::fread(&w, 4, 1, f) == 1) words.push_back(w);
        std::fclose(f);
        k.shader = std::move(words);
      }
  // Kernels that resume get a plain form too (same module, same program data) where it can
  // run instead: rerunnable ones, for a first attempt, and those whose loops a launch counts,
  // for launches whose arguments keep the loops short (the resuming form runs several times
  // slower on lavapipe: x264's motion search 5x).
  auto has_plain_form = [](const k2s::KernelInterface& k) {
    return (k.rerunnable || k.rerunnable_restoring_buffers || !k.counted_loops.empty()) &&
           k.resume_area_offset != UINT32_MAX;
  };
  bool wanted = false;
  for (const k2s::TranslatedKernel& k : t.kernels) wanted = wanted || has_plain_form(k.interface);
  b.plain_kernels.clear();
  if (wanted) {
    std::shared_ptr<const k2s::TranslateResult> plain = device->translate(k2s::specialize(b.spirv, spec), origin, true);
    if (plain->ok && plain->program_data == t.program_data && plain->program_relocations == t.program_relocations)
      for (size_t i = 0; i < plain->kernels.size() && i < t.kernels.size(); ++i)
        if (has_plain_form(t.kernels[i].interface) &&
            plain->kernels[i].interface.name == t.kernels[i].interface.name &&
            plain->kernels[i].interface.resume_area_offset == UINT32_MAX)
          b.plain_kernels.push_back(plain->kernels[i]);
  }
  b.kernels = std::move(t.kernels);
  b.program_data = std::move(t.program_data);
  b.program_relocations = std::move(t.program_relocations);
  b.global_variable_size = t.global_variable_size;
  b.status = CL_BUILD_SUCCESS;
  b.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  return true;
}

cl::Result<void> _cl_program::compile(const std::vector<_cl_device_id*>& on,
                                      const std::string& options,
                                      const compiler::Headers& headers) {
  cl_int failure = CL_SUCCESS;
  for (_cl_device_id* device : on) {
    Build b;
    b.options = options;
    if (origin == Origin::Source) {
      bool invalid_options = false;
      compiler::CompileResult c = compiler::compile(source, options, device->compiler_features(),
                                                    &invalid_options, headers);
      b.log = c.log;
      if (!c.ok) {
        b.status = CL_BUILD_ERROR;
        failure = invalid_options ? CL_INVALID_COMPILER_OPTIONS : CL_COMPILE_PROGRAM_FAILURE;
      } else {
        b.spirv = std::move(c.spirv);
        b.kernel_info = std::move(c.kernels);
        b.language_version = c.language_version;
        b.uniform_work_group_size = c.uniform_work_group_size;
      }
    } else {  // IL: the module is already compiled
      b.spirv.resize(il.size() / 4);
      std::memcpy(b.spirv.data(), il.data(), b.spirv.size() * 4);
      b.language_version = 300;
    }
    if (b.status != CL_BUILD_ERROR) {
      b.status = CL_BUILD_SUCCESS;
      b.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
    }
    std::lock_guard<std::mutex> lock(mutex);
    builds[device] = std::move(b);
  }
  if (failure != CL_SUCCESS) return cl::Error{failure};
  return {};
}

cl::Result<void> _cl_program::link(const std::vector<_cl_device_id*>& on, bool library,
                                   const std::vector<_cl_program*>& inputs) {
  cl_int failure = CL_SUCCESS;
  for (_cl_device_id* device : on) {
    Build b;
    b.language_version = 300;
    std::vector<std::vector<uint32_t>> modules;
    for (_cl_program* in : inputs) {
      std::lock_guard<std::mutex> lock(in->mutex);
      const Build* ib = in->build_for(device);
      modules.push_back(ib->spirv);
      b.kernel_info.insert(b.kernel_info.end(), ib->kernel_info.begin(), ib->kernel_info.end());
      b.language_version = std::min(b.language_version, ib->language_version);
      b.uniform_work_group_size = b.uniform_work_group_size || ib->uniform_work_group_size;
    }
    std::string error;
    if (!k2s::link_modules(modules, library, &b.spirv, &error)) {
      b.log = error;
      b.status = CL_BUILD_ERROR;
      failure = CL_LINK_PROGRAM_FAILURE;
    } else if (library) {
      b.status = CL_BUILD_SUCCESS;
      b.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
    } else if (!make_executable(b, device, k2s::InputOrigin::Application)) {
      failure = CL_LINK_PROGRAM_FAILURE;
    }
    std::lock_guard<std::mutex> lock(mutex);
    builds[device] = std::move(b);
  }
  if (failure != CL_SUCCESS) return cl::Error{failure};
  return {};
}

bool _cl_program::built_for_any() const {
  for (const auto& [d, b] : builds)
    if (b.status == CL_BUILD_SUCCESS && b.binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE) return true;
  return false;
}

const _cl_program::Build* _cl_program::build_for(_cl_device_id* d) const {
  auto it = builds.find(d);
  return it == builds.end() ? nullptr : &it->second;
}

std::vector<std::string> _cl_program::kernel_names() const {
  std::vector<std::string> names;
  for (_cl_device_id* d : devices) {
    const Build* b = build_for(d);
    if (!b || b->status != CL_BUILD_SUCCESS || b->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      continue;
    for (const auto& k : b->kernels) names.push_back(k.interface.name);
    break;
  }
  return names;
}

namespace {

// A buffer of |size| bytes on |context|'s Vulkan device for |d|.
cl::Result<std::shared_ptr<vk::Buffer>> new_buffer(_cl_context& context, _cl_device_id* d, size_t size,
                                                   vk::MemoryPlacement placement) {
  auto device = context.vk_device(d);
  if (!device) return cl::Error{device.error()};
  std::unique_ptr<vk::Buffer> buffer;
  VkResult r = vk::Buffer::create(*device, size, placement, &buffer);
  if (r != VK_SUCCESS) return cl::Error{cl::cl_error_from(r)};
  return std::shared_ptr<vk::Buffer>(std::move(buffer));
}

}  // namespace

cl::Result<std::shared_ptr<vk::Buffer>> _cl_program::unused_uniforms(_cl_device_id* d) {
  std::lock_guard<std::mutex> lock(mutex);
  Build& b = builds[d];
  if (b.unused_uniforms) return b.unused_uniforms;
  auto buffer = new_buffer(*context, d, 16, vk::MemoryPlacement::DeviceLocal);
  if (buffer) b.unused_uniforms = *buffer;
  return buffer;
}

cl::Result<std::shared_ptr<vk::Buffer>> _cl_program::data_buffer(_cl_device_id* d) {
  std::lock_guard<std::mutex> lock(mutex);
  Build& b = builds[d];
  if (b.data_buffer) return b.data_buffer;
  auto made = new_buffer(*context, d, std::max<size_t>(b.program_data.size(), 16), vk::MemoryPlacement::HostVisible);
  if (!made) return made;
  std::shared_ptr<vk::Buffer> buffer = *made;
  std::memcpy(buffer->mapped(), b.program_data.data(), b.program_data.size());
  // Pointers between program-scope variables were written as offsets into this buffer.
  for (uint32_t at : b.program_relocations) {
    uint64_t pointer = 0;
    auto* word = static_cast<uint8_t*>(buffer->mapped()) + at;
    std::memcpy(&pointer, word, 8);
    pointer += buffer->address();
    std::memcpy(word, &pointer, 8);
  }
  b.data_buffer = std::move(buffer);
  return b.data_buffer;
}
