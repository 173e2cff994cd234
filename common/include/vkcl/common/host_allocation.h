// VKCL_FAIL_HOST_ALLOCATIONS=N (README, Tests): every Nth host allocation vkcl makes with
// operator new while a thread is inside one of its entry points fails (std::bad_alloc, or
// nullptr from the nothrow forms), to test that host memory exhaustion surfaces as OpenCL
// errors. libvkcl.so has its own operator new and delete (cl_frontend/operator_new.cpp), not
// exported, so the application's allocations are never failed; nor are those of vkcl's own
// threads or of its static initialisation, which run outside any entry point.
#pragma once

namespace vkcl::host_allocation {

// Held by each entry point for its whole call (api.h, Guarded): allocations of its thread
// meanwhile may be failed. The outermost one reads the variable (tests set it with setenv).
class EntryPoint {
 public:
  EntryPoint() noexcept;
  ~EntryPoint();
  EntryPoint(const EntryPoint&) = delete;
  EntryPoint& operator=(const EntryPoint&) = delete;
};

// Held while vkcl runs libraries built without exceptions (clang and LLVM, SPIRV-Tools) and
// the callbacks they make into vkcl: a std::bad_alloc thrown there would unwind through their
// frames without running their cleanups (leaks, locks left held). Their allocations are
// theirs, not vkcl's, and are not failed.
class ForeignCode {
 public:
  ForeignCode() noexcept;
  ~ForeignCode();
  ForeignCode(const ForeignCode&) = delete;
  ForeignCode& operator=(const ForeignCode&) = delete;
};

// Asked by vkcl's operator new before each allocation: whether to fail this one.
bool fail_this_allocation() noexcept;
// Allocations failed so far (the extension function clGetHostAllocationFailureCountVKCL).
unsigned long failures() noexcept;
// Whether this build replaces operator new (not in sanitizer builds, whose runtimes replace
// it themselves): only then does the variable do anything.
bool available() noexcept;
void set_available() noexcept;

}  // namespace vkcl::host_allocation
