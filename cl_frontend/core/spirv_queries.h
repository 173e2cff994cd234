// cl_khr_spirv_queries (CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR, _EXTENSIONS_KHR,
// _CAPABILITIES_KHR) from what the device reports.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

namespace vkcl::cl {

struct SpirvQueries {
  std::vector<const char*> instruction_sets;  // static strings
  std::vector<const char*> extensions;        // static strings
  std::vector<cl_uint> capabilities;          // SPIR-V Capability values
};

SpirvQueries spirv_queries(const std::vector<std::string>& extensions,
                           const std::vector<std::string>& features, bool subgroups);

}  // namespace vkcl::cl
