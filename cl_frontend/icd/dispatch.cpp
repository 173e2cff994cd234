// The ICD dispatch table: every slot points at an implementation or, for entry points not
// implemented yet, at a stub that returns CL_INVALID_OPERATION (docs/not-implemented.md).
#include <type_traits>

#include "api/api.h"

namespace vkcl {
namespace {

template <typename F>
struct Unimplemented;

template <typename R, typename... A>
struct Unimplemented<R(CL_API_CALL*)(A...)> {
  static R CL_API_CALL call(A... args) {
    if constexpr (std::is_same_v<R, cl_int>) {
      ((void)args, ...);
      return CL_INVALID_OPERATION;
    } else {
      // Object-returning entry points report through their errcode_ret (the last argument).
      cl_int* errcode = nullptr;
      ((errcode = last_errcode(args, errcode)), ...);
      if (errcode) *errcode = CL_INVALID_OPERATION;
      if constexpr (!std::is_void_v<R>) return R{};  // void{} is an error in clang
    }
  }
  template <typename T>
  static cl_int* last_errcode(T value, cl_int* previous) {
    if constexpr (std::is_same_v<T, cl_int*>) return value;
    else return previous;
  }
};

template <typename F>
void stub(F& slot) {
  if constexpr (std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>)
    slot = &Unimplemented<F>::call;
  else
    slot = nullptr;
}

cl_icd_dispatch make_table() {
  cl_icd_dispatch t{};
#define VKCL_SLOT(name) stub(t.name);
#include "icd/dispatch_slots.inc"
#undef VKCL_SLOT
  api::register_platform(t);
  api::register_context(t);
  api::register_queue(t);
  api::register_memory(t);
  api::register_event(t);
  api::register_enqueue(t);
  api::register_program(t);
  api::register_kernel(t);
  api::register_image(t);
  api::register_sampler(t);
  api::register_svm(t);
  return t;
}

}  // namespace

namespace cl {
cl_icd_dispatch g_dispatch_table = make_table();
}

}  // namespace vkcl
