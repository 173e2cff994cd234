// libvkcl.so's own operator new and delete, every replaceable form, so that
// VKCL_FAIL_HOST_ALLOCATIONS (vkcl/common/host_allocation.h) can fail vkcl's allocations and
// only those. They are hidden (below, and icd/exports.map exports nothing but the ICD's
// entry points): calls from vkcl's code bind to them when libvkcl.so is linked, while the
// application, libstdc++ and the other libraries keep the process's global ones. Every form
// allocates with malloc (posix_memalign when aligned) and frees with free, as libstdc++'s do
// on glibc, so a block may be freed on either side: a std::string grown inside libstdc++.so
// and destroyed in vkcl's code, say. Not built with sanitizers, whose runtimes replace the
// global forms and would see vkcl's blocks freed through theirs as mismatched.
#include <cstdlib>
#include <new>

#include "vkcl/common/host_allocation.h"

namespace {

namespace ha = vkcl::host_allocation;

[[noreturn]] void out_of_memory() { throw std::bad_alloc(); }

// As the standard's: retry after the new_handler, if one is installed, else throw.
void* allocate(std::size_t size) {
  if (ha::fail_this_allocation()) out_of_memory();
  if (size == 0) size = 1;
  for (;;) {
    if (void* p = std::malloc(size)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) out_of_memory();
    handler();
  }
}

void* allocate(std::size_t size, std::align_val_t alignment) {
  if (ha::fail_this_allocation()) out_of_memory();
  std::size_t a = static_cast<std::size_t>(alignment);
  if (a < sizeof(void*)) a = sizeof(void*);  // posix_memalign's least alignment
  if (size == 0) size = 1;
  for (;;) {
    void* p = nullptr;
    if (posix_memalign(&p, a, size) == 0) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) out_of_memory();
    handler();
  }
}

template <typename... A>
void* allocate_or_null(std::size_t size, A... alignment) noexcept {
  try {
    return allocate(size, alignment...);
  } catch (...) {
    return nullptr;
  }
}

// Marks this build as one whose operator new vkcl owns (host_allocation::available).
struct MarkAvailable {
  MarkAvailable() { ha::set_available(); }
} g_mark;

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate_or_null(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate_or_null(n); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, a); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, a);
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

// Hidden in the object file itself (a visibility attribute on a redeclaration of the
// standard's declarations is ignored), so that they stay vkcl's even if exports.map changed.
asm(".hidden _Znwm\n.hidden _Znam\n"
    ".hidden _ZnwmRKSt9nothrow_t\n.hidden _ZnamRKSt9nothrow_t\n"
    ".hidden _ZnwmSt11align_val_t\n.hidden _ZnamSt11align_val_t\n"
    ".hidden _ZnwmSt11align_val_tRKSt9nothrow_t\n.hidden _ZnamSt11align_val_tRKSt9nothrow_t\n"
    ".hidden _ZdlPv\n.hidden _ZdaPv\n.hidden _ZdlPvm\n.hidden _ZdaPvm\n"
    ".hidden _ZdlPvSt11align_val_t\n.hidden _ZdaPvSt11align_val_t\n"
    ".hidden _ZdlPvmSt11align_val_t\n.hidden _ZdaPvmSt11align_val_t\n"
    ".hidden _ZdlPvRKSt9nothrow_t\n.hidden _ZdaPvRKSt9nothrow_t\n"
    ".hidden _ZdlPvSt11align_val_tRKSt9nothrow_t\n.hidden _ZdaPvSt11align_val_tRKSt9nothrow_t\n");
