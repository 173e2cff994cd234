// The clGet*Info copy-out rules in one place: CL_INVALID_VALUE when the caller's buffer is too
// small, the size written to |size_ret| when asked.
#pragma once

#include <CL/cl.h>

#include <cstring>
#include <string>
#include <vector>

namespace vkcl::cl {

inline cl_int write_info(size_t param_size, void* param, size_t* size_ret, const void* data,
                         size_t size) {
  // CL_INVALID_VALUE if the size in bytes specified by param_value_size is < size of return
  // type and param_value is not a NULL value.
  if (param && param_size < size) return CL_INVALID_VALUE;
  if (param && size) std::memcpy(param, data, size);
  if (size_ret) *size_ret = size;
  return CL_SUCCESS;
}

struct InfoOut {
  size_t size;
  void* value;
  size_t* size_ret;

  template <typename T>
  cl_int operator()(const T& v) const { return write_info(size, value, size_ret, &v, sizeof(T)); }
  cl_int operator()(const std::string& s) const {
    return write_info(size, value, size_ret, s.c_str(), s.size() + 1);
  }
  cl_int operator()(const char* s) const { return (*this)(std::string(s)); }
  template <typename T>
  cl_int operator()(const std::vector<T>& v) const {
    return write_info(size, value, size_ret, v.data(), v.size() * sizeof(T));
  }
};

}  // namespace vkcl::cl
