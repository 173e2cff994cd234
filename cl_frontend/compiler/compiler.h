// The in-process OpenCL C compiler: clang's libraries compile OpenCL C to LLVM IR for spir64,
// SPIRV-LLVM-Translator writes Kernel SPIR-V. No subprocess, no shell.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vkcl::compiler {

// What the target device supports; decides -cl-ext and the __opencl_c_* feature macros.
struct DeviceFeatures {
  bool fp64 = false;
  bool fp16 = false;
  bool int64 = true;
  bool images = false;
  bool subgroups = false;
  bool generic_address_space = false;
  bool program_scope_global_variables = false;
  // Extensions to define (e.g. "cl_khr_global_int32_base_atomics"); everything else is off.
  std::vector<std::string> extensions;
  // OpenCL C 3.0 optional features to define (e.g. "__opencl_c_int64").
  std::vector<std::string> features;
};

struct KernelArgInfo {
  std::string name;       // CL_KERNEL_ARG_NAME
  std::string type_name;  // CL_KERNEL_ARG_TYPE_NAME (e.g. "float*", "int4", "struct S")
  cl_kernel_arg_address_qualifier address_qualifier = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier access_qualifier = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier type_qualifier = CL_KERNEL_ARG_TYPE_NONE;
};

struct KernelInfo {
  std::string name;
  std::vector<KernelArgInfo> args;
  std::string attributes;  // CL_KERNEL_ATTRIBUTES, e.g. "reqd_work_group_size(16,1,1)"
  // Built with -cl-kernel-arg-info: only then does clGetKernelArgInfo report |args| (they are
  // kept either way, for vkcl's own messages). Not part of the cached compile result.
  bool args_reported = false;
};

struct CompileResult {
  bool ok = false;
  // OpenCL C version the program was compiled for (100, 110, 120 or 300) and whether
  // -cl-uniform-work-group-size was given: together they decide whether non-uniform
  // work-groups may be enqueued.
  int language_version = 120;
  bool uniform_work_group_size = false;
  std::string log;                // clang's diagnostics (and the translator's, on failure)
  std::vector<uint32_t> spirv;    // Kernel SPIR-V
  std::vector<KernelInfo> kernels;
  bool from_cache = false;  // read from the on-disk cache (cache.h), not compiled
  bool from_precompiled_header = false;  // clang started from the default header's (pch.h)
};

// Compiles |source| with the application's build |options| (-cl-std, -D, -I, -w, -Werror,
// -cl-opt-disable, -cl-mad-enable, -cl-fast-relaxed-math, ...). Unknown options fail with
// a log naming them (the caller maps that to CL_INVALID_BUILD_OPTIONS via |invalid_options|).
// Thread-safe.
// |headers| (name, text) are files `#include "name"` finds (clCompileProgram's
// input_headers).
// |whole_program|: nothing will be linked to the result (clBuildProgram), so functions no
// kernel calls are dropped and the others are the program's own (clCompileProgram keeps them
// for clLinkProgram).
using Headers = std::vector<std::pair<std::string, std::string>>;
CompileResult compile(const std::string& source, const std::string& options,
                      const DeviceFeatures& features, bool* invalid_options = nullptr,
                      const Headers& headers = {}, bool whole_program = false);

}  // namespace vkcl::compiler
