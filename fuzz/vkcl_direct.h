// vkcl linked into the fuzz targets (so its code is instrumented and seen by libFuzzer), its
// entry points called through the ICD dispatch table the loader would use.
#pragma once

#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <cstdio>
#include <cstdlib>

#include "api/api.h"
#include "core/object.h"

namespace vkcl::fuzz {

inline const cl_icd_dispatch& cl() { return cl::g_dispatch_table; }

// The first vkcl device and a context on it, made once and kept for the process (an
// application's objects outlive each input; vkcl's teardown at exit is tested elsewhere).
struct Session {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
};

inline const Session& session() {
  static const Session s = [] {
    Session s;
    cl_platform_id platform = nullptr;
    cl_uint count = 0;
    if (api::icd_get_platform_ids(1, &platform, &count) != CL_SUCCESS || count == 0 ||
        cl().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &s.device, nullptr) != CL_SUCCESS) {
      std::fprintf(stderr, "no vkcl device (VK_ICD_FILENAMES?)\n");
      std::abort();
    }
    cl_int err = CL_SUCCESS;
    s.context = cl().clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      std::fprintf(stderr, "clCreateContext: %d\n", err);
      std::abort();
    }
    return s;
  }();
  return s;
}

}  // namespace vkcl::fuzz
