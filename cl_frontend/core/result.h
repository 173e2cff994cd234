// One error type inside the frontend: Result<T> carries a value or a cl_int error code.
// The API layer turns it into the C return value / errcode_ret at the edge.
#pragma once

#include <CL/cl.h>

#include <utility>
#include <variant>

namespace vkcl::cl {

struct Error {
  cl_int code;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(e) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  cl_int error() const { return ok() ? CL_SUCCESS : std::get<1>(v_).code; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error e) : code_(e.code) {}
  bool ok() const { return code_ == CL_SUCCESS; }
  explicit operator bool() const { return ok(); }
  cl_int error() const { return code_; }

 private:
  cl_int code_ = CL_SUCCESS;
};

// Returns early from the enclosing function with the error of |expr| if it failed.
#define VKCL_TRY(expr)                                      \
  do {                                                      \
    auto vkcl_try_result_ = (expr);                         \
    if (!vkcl_try_result_.ok()) return ::vkcl::cl::Error{vkcl_try_result_.error()}; \
  } while (0)

}  // namespace vkcl::cl
