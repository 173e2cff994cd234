#include "vkcl/common/host_allocation.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace vkcl::host_allocation {
namespace {

// Constant-initialised and trivially destructible: safe to touch from operator new at any
// time, static initialisation and thread exit included.
struct ThreadState {
  unsigned entry_depth = 0;
  unsigned foreign_depth = 0;
  unsigned long every = 0;  // the variable's value when the outermost entry point began
};
thread_local ThreadState t_state;

std::atomic<unsigned long> g_count{0};
std::atomic<unsigned long> g_failed{0};
std::atomic<bool> g_available{false};

// At exit, how many were failed, so that a run of a whole test suite under the variable
// shows that failures did happen.
struct Report {
  ~Report() {
    if (unsigned long n = g_failed.load())
      std::fprintf(stderr, "vkcl: %lu host allocation(s) failed (VKCL_FAIL_HOST_ALLOCATIONS)\n", n);
  }
} g_report;

}  // namespace

EntryPoint::EntryPoint() noexcept {
  ThreadState& s = t_state;
  if (s.entry_depth++ == 0) {
    const char* v = std::getenv("VKCL_FAIL_HOST_ALLOCATIONS");
    s.every = v ? std::strtoul(v, nullptr, 10) : 0ul;
  }
}
EntryPoint::~EntryPoint() { --t_state.entry_depth; }

ForeignCode::ForeignCode() noexcept { ++t_state.foreign_depth; }
ForeignCode::~ForeignCode() { --t_state.foreign_depth; }

bool fail_this_allocation() noexcept {
  const ThreadState& s = t_state;
  if (!s.entry_depth || s.foreign_depth || !s.every) return false;
  if (++g_count % s.every != 0) return false;
  g_failed.fetch_add(1);
  return true;
}

unsigned long failures() noexcept { return g_failed.load(); }
bool available() noexcept { return g_available.load(); }
void set_available() noexcept { g_available.store(true); }

}  // namespace vkcl::host_allocation
