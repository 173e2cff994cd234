// Program entry points.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "api/api.h"
#include "core/info.h"
#include "core/program.h"

namespace vkcl::api {
namespace {

using Notify = void(CL_CALLBACK*)(cl_program, void*);

cl_program CL_API_CALL CreateProgramWithSource(cl_context context, cl_uint count,
                                               const char** strings, const size_t* lengths,
                                               cl_int* errcode_ret) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL.
  if (count == 0 || !strings) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  std::string source;
  for (cl_uint i = 0; i < count; ++i) {
    if (!strings[i]) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
    if (lengths && lengths[i]) source.append(strings[i], lengths[i]);
    else source.append(strings[i]);
  }
  auto p = cl::Ref<_cl_program>::adopt(new _cl_program());
  p->context = cl::Ref<_cl_context>(context);
  p->origin = _cl_program::Origin::Source;
  p->source = std::move(source);
  p->devices = context->devices;
  set_error(errcode_ret, CL_SUCCESS);
  return p.release_to_api();
}

cl_program CL_API_CALL CreateProgramWithIL(cl_context context, const void* il, size_t length,
                                           cl_int* errcode_ret) {
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_VALUE if il is NULL or if length is zero, or if the length-byte memory
  // pointed to by il does not contain well-formed intermediate language input.
  if (!il || length < 20 || length % 4) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  uint32_t magic;
  std::memcpy(&magic, il, 4);
  if (magic != 0x07230203) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  auto p = cl::Ref<_cl_program>::adopt(new _cl_program());
  p->context = cl::Ref<_cl_context>(context);
  p->origin = _cl_program::Origin::IL;
  p->il.assign(static_cast<const uint8_t*>(il), static_cast<const uint8_t*>(il) + length);
  p->devices = context->devices;
  set_error(errcode_ret, CL_SUCCESS);
  return p.release_to_api();
}

cl_program CL_API_CALL CreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                               const cl_device_id* devices, const size_t* lengths,
                                               const unsigned char** binaries,
                                               cl_int* binary_status, cl_int* errcode_ret) {
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_VALUE if device_list is NULL or num_devices is zero.
  if (!devices || num_devices == 0) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_VALUE if lengths or binaries is NULL or if any entry in lengths[i] is zero or
  // binaries[i] is NULL.
  if (!lengths || !binaries) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  auto p = cl::Ref<_cl_program>::adopt(new _cl_program());
  p->context = cl::Ref<_cl_context>(context);
  p->origin = _cl_program::Origin::Binary;
  cl_int result = CL_SUCCESS;
  for (cl_uint i = 0; i < num_devices; ++i) {
    // CL_INVALID_DEVICE if any device in device_list is not in the list of devices
    // associated with context.
    if (!cl::validate(devices[i]) || !context->has_device(devices[i])) {
      return set_error(errcode_ret, CL_INVALID_DEVICE), nullptr;
    }
    if (lengths[i] == 0 || !binaries[i]) {
      if (binary_status) binary_status[i] = CL_INVALID_VALUE;
      result = CL_INVALID_VALUE;
      continue;
    }
    _cl_program::BinaryContents contents;
    // CL_INVALID_BINARY if an invalid program binary was encountered for any device.
    if (!_cl_program::parse_binary(binaries[i], lengths[i], &contents)) {
      if (binary_status) binary_status[i] = CL_INVALID_BINARY;
      result = CL_INVALID_BINARY;
      continue;
    }
    // The binary's type answers CL_PROGRAM_BINARY_TYPE until the program is built or linked;
    // the build status stays CL_BUILD_NONE.
    _cl_program::Build b;
    b.binary_type = contents.type;
    b.language_version = contents.language_version;
    b.uniform_work_group_size = contents.uniform_work_group_size;
    b.spirv = std::move(contents.spirv);
    p->builds[devices[i]] = std::move(b);
    p->devices.push_back(devices[i]);
    if (binary_status) binary_status[i] = CL_SUCCESS;
  }
  if (result != CL_SUCCESS) {
    return set_error(errcode_ret, result), nullptr;
  }
  set_error(errcode_ret, CL_SUCCESS);
  return p.release_to_api();
}

cl_int check_devices(cl_program program, cl_uint num_devices, const cl_device_id* list,
                     std::vector<_cl_device_id*>* out) {
  // CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
  // device_list is not NULL and num_devices is zero.
  if ((!list && num_devices) || (list && !num_devices)) return CL_INVALID_VALUE;
  if (!list) {
    *out = program->devices;
    return CL_SUCCESS;
  }
  for (cl_uint i = 0; i < num_devices; ++i) {
    // CL_INVALID_DEVICE if OpenCL devices listed in device_list are not in the list of
    // devices associated with program.
    bool found = false;
    for (auto* d : program->devices) found |= d == list[i];
    if (!found) return CL_INVALID_DEVICE;
    out->push_back(list[i]);
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL BuildProgram(cl_program program, cl_uint num_devices,
                                const cl_device_id* device_list, const char* options,
                                Notify notify, void* user_data) {
  // CL_INVALID_PROGRAM if program is not a valid program object.
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  std::vector<_cl_device_id*> devices;
  cl_int e = check_devices(program, num_devices, device_list, &devices);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
  if (!notify && user_data) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if there are kernel objects attached to program.
  if (program->kernels_attached > 0) return CL_INVALID_OPERATION;
  // CL_INVALID_BINARY if program is created with clCreateProgramWithBinary and devices
  // listed in device_list do not have a valid program binary loaded.
  if (program->origin == _cl_program::Origin::Binary)
    for (auto* d : devices)
      if (!program->build_for(d) || program->build_for(d)->spirv.empty()) return CL_INVALID_BINARY;
  auto r = program->build(devices, options ? options : "");
  if (notify) notify(program, user_data);
  return r.error();
}

cl_int CL_API_CALL CompileProgram(cl_program program, cl_uint num_devices,
                                  const cl_device_id* device_list, const char* options,
                                  cl_uint num_input_headers, const cl_program* input_headers,
                                  const char** header_include_names, Notify notify,
                                  void* user_data) {
  // CL_INVALID_PROGRAM if program is not a valid program object.
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  std::vector<_cl_device_id*> devices;
  cl_int e = check_devices(program, num_devices, device_list, &devices);
  if (e != CL_SUCCESS) return e;
  // CL_INVALID_VALUE if num_input_headers is zero and header_include_names or input_headers
  // are not NULL, or if num_input_headers is not zero and header_include_names or
  // input_headers are NULL.
  if ((num_input_headers == 0) != (!input_headers && !header_include_names) ||
      (num_input_headers && (!input_headers || !header_include_names)))
    return CL_INVALID_VALUE;
  // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
  if (!notify && user_data) return CL_INVALID_VALUE;
  // CL_INVALID_OPERATION if there are kernel objects attached to program, or if program
  // was not created with clCreateProgramWithSource or clCreateProgramWithIL.
  if (program->kernels_attached > 0 || program->origin == _cl_program::Origin::Binary)
    return CL_INVALID_OPERATION;
  compiler::Headers headers;
  for (cl_uint i = 0; i < num_input_headers; ++i) {
    if (!cl::validate(input_headers[i]) || !header_include_names[i]) return CL_INVALID_VALUE;
    headers.emplace_back(header_include_names[i], input_headers[i]->source);
  }
  auto r = program->compile(devices, options ? options : "", headers);
  if (notify) notify(program, user_data);
  return r.error();
}

// Link options (OpenCL 5.8.5.1, "Linker Options"): -create-library, -enable-link-options
// and the math options clBuildProgram also takes, which do not change linking here.
bool parse_link_options(const std::string& options, bool* library) {
  std::istringstream in(options);
  for (std::string o; in >> o;) {
    if (o == "-create-library") *library = true;
    else if (o == "-enable-link-options" || o == "-cl-denorms-are-zero" ||
             o == "-cl-no-signed-zeros" || o == "-cl-unsafe-math-optimizations" ||
             o == "-cl-finite-math-only" || o == "-cl-fast-relaxed-math" ||
             o == "-cl-no-subgroup-ifp" || o == "-cl-mad-enable")
      continue;
    else return false;
  }
  return true;
}

cl_program CL_API_CALL LinkProgram(cl_context context, cl_uint num_devices,
                                   const cl_device_id* device_list, const char* options,
                                   cl_uint num_input_programs, const cl_program* input_programs,
                                   Notify notify, void* user_data, cl_int* errcode_ret) {
  // CL_INVALID_CONTEXT if context is not a valid context.
  if (!cl::validate(context)) return set_error(errcode_ret, CL_INVALID_CONTEXT), nullptr;
  // CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
  // device_list is not NULL and num_devices is zero.
  if ((!device_list && num_devices) || (device_list && !num_devices))
    return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_VALUE if num_input_programs is zero or input_programs is NULL.
  if (num_input_programs == 0 || !input_programs) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
  if (!notify && user_data) return set_error(errcode_ret, CL_INVALID_VALUE), nullptr;
  std::vector<_cl_device_id*> devices;
  for (cl_uint i = 0; i < num_devices; ++i) {
    // CL_INVALID_DEVICE if any device in device_list is not in the list of devices
    // associated with context.
    if (std::find(context->devices.begin(), context->devices.end(), device_list[i]) ==
        context->devices.end())
      return set_error(errcode_ret, CL_INVALID_DEVICE), nullptr;
    devices.push_back(device_list[i]);
  }
  if (devices.empty()) devices = context->devices;
  std::vector<_cl_program*> inputs;
  for (cl_uint i = 0; i < num_input_programs; ++i) {
    // CL_INVALID_PROGRAM if programs specified in input_programs are not valid program
    // objects.
    if (!cl::validate(input_programs[i])) return set_error(errcode_ret, CL_INVALID_PROGRAM), nullptr;
    // CL_INVALID_OPERATION if the compilation or build of a program executable for any of
    // the devices listed in device_list by a previous call to clCompileProgram or
    // clBuildProgram for program has not completed / is not a compiled object or library.
    for (auto* d : devices) {
      // A compiled object or library loaded from a binary has not been built (CL_BUILD_NONE)
      // but is ready to link.
      const _cl_program::Build* b = input_programs[i]->build_for(d);
      bool loaded = input_programs[i]->origin == _cl_program::Origin::Binary &&
                    b && b->status == CL_BUILD_NONE && !b->spirv.empty();
      if (!b || (b->status != CL_BUILD_SUCCESS && !loaded) ||
          (b->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
           b->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY))
        return set_error(errcode_ret, CL_INVALID_OPERATION), nullptr;
    }
    inputs.push_back(input_programs[i]);
  }
  bool library = false;
  // CL_INVALID_LINKER_OPTIONS if the linker options specified by options are invalid.
  if (!parse_link_options(options ? options : "", &library))
    return set_error(errcode_ret, CL_INVALID_LINKER_OPTIONS), nullptr;
  auto p = cl::Ref<_cl_program>::adopt(new _cl_program());
  p->context = cl::Ref<_cl_context>(context);
  p->origin = _cl_program::Origin::Binary;
  p->devices = devices;
  auto r = p->link(devices, library, inputs);
  if (notify) notify(p.get(), user_data);
  // CL_LINK_PROGRAM_FAILURE if there is a failure to link; the program object is returned
  // so its log can be queried.
  set_error(errcode_ret, r ? CL_SUCCESS : r.error());
  return p.release_to_api();
}

cl_int CL_API_CALL RetainProgram(cl_program program) {
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  program->retain();
  return CL_SUCCESS;
}

cl_int CL_API_CALL ReleaseProgram(cl_program program) {
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  program->release();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetProgramInfo(cl_program program, cl_program_info param, size_t size,
                                  void* value, size_t* size_ret) {
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  cl::InfoOut out{size, value, size_ret};
  std::lock_guard<std::mutex> lock(program->mutex);
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: return out(cl_uint(program->reference_count()));
    case CL_PROGRAM_CONTEXT: return out(static_cast<cl_context>(program->context.get()));
    case CL_PROGRAM_NUM_DEVICES: return out(cl_uint(program->devices.size()));
    case CL_PROGRAM_DEVICES: {
      std::vector<cl_device_id> d(program->devices.begin(), program->devices.end());
      return out(d);
    }
    case CL_PROGRAM_SOURCE:
      return out(program->origin == _cl_program::Origin::Source ? program->source : std::string());
    case CL_PROGRAM_IL: return out(program->il);
    case CL_PROGRAM_BINARY_SIZES: {
      std::vector<size_t> sizes;
      for (auto* d : program->devices) {
        const auto* b = program->build_for(d);
        sizes.push_back(b ? _cl_program::make_binary(*b).size() : 0);
      }
      return out(sizes);
    }
    case CL_PROGRAM_BINARIES: {
      size_t needed = program->devices.size() * sizeof(unsigned char*);
      if (value && size < needed) return CL_INVALID_VALUE;
      if (size_ret) *size_ret = needed;
      if (!value) return CL_SUCCESS;
      auto** dst = static_cast<unsigned char**>(value);
      for (size_t i = 0; i < program->devices.size(); ++i) {
        const auto* b = program->build_for(program->devices[i]);
        if (!dst[i] || !b) continue;
        std::vector<uint8_t> bin = _cl_program::make_binary(*b);
        if (!bin.empty()) std::memcpy(dst[i], bin.data(), bin.size());
      }
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
    case CL_PROGRAM_KERNEL_NAMES: {
      // CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS or
      // CL_PROGRAM_KERNEL_NAMES and a successful program executable has not been built.
      if (!program->built_for_any()) return CL_INVALID_PROGRAM_EXECUTABLE;
      std::vector<std::string> names = program->kernel_names();
      if (param == CL_PROGRAM_NUM_KERNELS) return out(size_t(names.size()));
      std::string joined;
      for (const auto& n : names) joined += (joined.empty() ? "" : ";") + n;
      return out(joined);
    }
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT: return out(cl_bool(CL_FALSE));
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetProgramBuildInfo(cl_program program, cl_device_id device,
                                       cl_program_build_info param, size_t size, void* value,
                                       size_t* size_ret) {
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  // CL_INVALID_DEVICE if device is not in the list of devices associated with program.
  bool found = false;
  for (auto* d : program->devices) found |= d == device;
  if (!cl::validate(device) || !found) return CL_INVALID_DEVICE;
  cl::InfoOut out{size, value, size_ret};
  std::lock_guard<std::mutex> lock(program->mutex);
  const _cl_program::Build* b = program->build_for(device);
  _cl_program::Build none;
  if (!b) b = &none;
  switch (param) {
    case CL_PROGRAM_BUILD_STATUS: return out(b->status);
    case CL_PROGRAM_BUILD_OPTIONS: return out(b->options);
    case CL_PROGRAM_BUILD_LOG: return out(b->log);
    case CL_PROGRAM_BINARY_TYPE: return out(b->binary_type);
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: return out(size_t(b->global_variable_size));
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetProgramReleaseCallback(cl_program program, Notify, void*) {
  if (!cl::validate(program)) return CL_INVALID_PROGRAM;
  return CL_INVALID_OPERATION;  // allowed by OpenCL 3.0 without global destructors
}

cl_int CL_API_CALL SetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
                                                    size_t spec_size, const void* spec_value) {
  // CL_INVALID_PROGRAM if program is not a valid program object created from an intermediate
  // language (e.g. SPIR-V).
  if (!cl::validate(program) || program->origin != _cl_program::Origin::IL) return CL_INVALID_PROGRAM;
  std::vector<uint32_t> words(program->il.size() / 4);
  std::memcpy(words.data(), program->il.data(), words.size() * 4);
  auto sizes = k2s::spec_constant_sizes(words);
  // CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant identifier.
  auto it = sizes.find(spec_id);
  if (it == sizes.end()) return CL_INVALID_SPEC_ID;
  // CL_INVALID_VALUE if spec_size does not match the size of the specialization constant in
  // the module, or if spec_value is NULL.
  if (spec_size != it->second || !spec_value) return CL_INVALID_VALUE;
  const auto* bytes = static_cast<const uint8_t*>(spec_value);
  std::lock_guard<std::mutex> lock(program->mutex);
  program->spec_values[spec_id].assign(bytes, bytes + spec_size);
  return CL_SUCCESS;
}

}  // namespace

void register_program(cl_icd_dispatch& t) {
  t.clCreateProgramWithSource = guard<CreateProgramWithSource>;
  t.clCreateProgramWithIL = guard<CreateProgramWithIL>;
  t.clCreateProgramWithBinary = guard<CreateProgramWithBinary>;
  t.clBuildProgram = guard<BuildProgram>;
  t.clCompileProgram = guard<CompileProgram>;
  t.clLinkProgram = guard<LinkProgram>;
  t.clRetainProgram = guard<RetainProgram>;
  t.clReleaseProgram = guard<ReleaseProgram>;
  t.clGetProgramInfo = guard<GetProgramInfo>;
  t.clGetProgramBuildInfo = guard<GetProgramBuildInfo>;
  t.clSetProgramReleaseCallback = guard<SetProgramReleaseCallback>;
  t.clSetProgramSpecializationConstant = guard<SetProgramSpecializationConstant>;
}

}  // namespace vkcl::api
