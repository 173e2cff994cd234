// Host allocations that fail (VKCL_FAIL_HOST_ALLOCATIONS=N: every Nth operator new vkcl makes
// inside an entry point throws std::bad_alloc): every step of a whole application (context,
// queue, buffers, a build from source, arguments, a launch behind a user event, a write, a
// read, a map, events and their callbacks, releases) either succeeds with the right result or
// returns an OpenCL error, never crashes, leaks no object, and once the failures stop the
// same objects work. N goes over small primes and then grows until a run sees no failure.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

constexpr size_t kCount = 1024;
constexpr cl_uint kAdd = 7;
const char* const kSource =
    "__kernel void k(__global const uint* in, __global uint* out, uint v) {"
    "  size_t i = get_global_id(0); out[i] = in[i] * 3u + v + SALT; }";

bool clean_failure(cl_int r) { return r == CL_OUT_OF_HOST_MEMORY || r == CL_OUT_OF_RESOURCES; }

std::atomic<int> g_callbacks{0};
void CL_CALLBACK on_complete(cl_event, cl_int, void*) { g_callbacks.fetch_add(1); }

// One application's objects, kept from the run under failures to the run after.
struct App {
  Context context;
  Queue queue;
  Mem in, out;
  Program program;
  bool built = false;
  Kernel kernel;
};

// What one pass over the steps saw.
struct Pass {
  int failed = 0;            // steps that returned an error
  int callbacks_set = 0;     // event callbacks registered
  bool checked = false;      // the results were read back and compared
  std::vector<std::string> unclean;  // steps that returned an error other than running out
};

class HostAllocationFailures : public KernelTest {
 protected:
  // Records |r| of |step|: success, or a failure that says memory ran out.
  bool ok(Pass& pass, cl_int r, const char* step) {
    if (r == CL_SUCCESS) return true;
    ++pass.failed;
    if (!clean_failure(r)) pass.unclean.push_back(std::string(step) + " = " + std::to_string(r));
    return false;
  }

  // From step |first_failing_| on, allocations fail (the variable is set to current_).
  void step(int k) {
    if (k == first_failing_) setenv("VKCL_FAIL_HOST_ALLOCATIONS", current_.c_str(), 1);
  }

  // Runs the application's steps on |app|, making the objects it lacks. |input| and the
  // kernel's constant |v| give the expected output (a CPU reference).
  Pass run_steps(App& app, cl_uint salt, const std::vector<cl_uint>& input, cl_uint v) {
    Pass pass;
    cl_int err = CL_SUCCESS;
    step(0);
    if (!app.context) {
      app.context = Context(clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err));
      if (!ok(pass, app.context ? CL_SUCCESS : err, "clCreateContext")) return pass;
    }
    step(1);
    if (!app.queue) {
      app.queue = Queue(clCreateCommandQueueWithProperties(app.context, device_, nullptr, &err));
      ok(pass, app.queue ? CL_SUCCESS : err, "clCreateCommandQueueWithProperties");
    }
    step(2);
    for (Mem* m : {&app.in, &app.out}) {
      if (*m) continue;
      *m = Mem(clCreateBuffer(app.context, CL_MEM_READ_WRITE, kCount * 4, nullptr, &err));
      ok(pass, *m ? CL_SUCCESS : err, "clCreateBuffer");
    }
    {
      // A buffer made from host memory and released at once.
      Mem scratch(clCreateBuffer(app.context, CL_MEM_COPY_HOST_PTR, kCount * 4,
                                 const_cast<cl_uint*>(input.data()), &err));
      ok(pass, scratch ? CL_SUCCESS : err, "clCreateBuffer(COPY_HOST_PTR)");
    }
    step(3);
    if (!app.program) {
      const char* text = kSource;
      app.program = Program(clCreateProgramWithSource(app.context, 1, &text, nullptr, &err));
      ok(pass, app.program ? CL_SUCCESS : err, "clCreateProgramWithSource");
    }
    step(4);
    if (app.program && !app.built) {
      // A new define each round: the build compiles and translates anew (no cache hit).
      std::string options = GetParam() + " -DSALT=" + std::to_string(salt) + "u";
      app.built = ok(pass, clBuildProgram(app.program, 1, &device_, options.c_str(), nullptr, nullptr),
                     "clBuildProgram");
    }
    step(5);
    if (app.built && !app.kernel) {
      app.kernel = Kernel(clCreateKernel(app.program, "k", &err));
      ok(pass, app.kernel ? CL_SUCCESS : err, "clCreateKernel");
    }
    step(6);
    if (!app.queue || !app.in || !app.out) return pass;

    Event written, user, launched, read_done;
    cl_event e = nullptr;
    bool all = ok(pass, clEnqueueWriteBuffer(app.queue, app.in, CL_FALSE, 0, kCount * 4, input.data(),
                                             0, nullptr, &e), "clEnqueueWriteBuffer");
    written = Event(e);
    bool arguments = false;
    step(7);
    if (app.kernel) {
      cl_mem in = app.in.get(), out = app.out.get();
      arguments = ok(pass, clSetKernelArg(app.kernel, 0, sizeof in, &in), "clSetKernelArg(0)");
      arguments = ok(pass, clSetKernelArg(app.kernel, 1, sizeof out, &out), "clSetKernelArg(1)") && arguments;
      arguments = ok(pass, clSetKernelArg(app.kernel, 2, sizeof v, &v), "clSetKernelArg(2)") && arguments;
    }
    all = all && arguments;
    if (arguments) {
      // Held back by a user event until the launch is enqueued.
      user = Event(clCreateUserEvent(app.context, &err));
      ok(pass, user ? CL_SUCCESS : err, "clCreateUserEvent");
      std::vector<cl_event> waits;
      for (const Event* w : {&written, &user})
        if (*w) waits.push_back(w->get());
      e = nullptr;
      const size_t global = kCount, local = 64;
      all = ok(pass, clEnqueueNDRangeKernel(app.queue, app.kernel, 1, nullptr, &global, &local,
                                            cl_uint(waits.size()), waits.data(), &e),
               "clEnqueueNDRangeKernel") && all;
      launched = Event(e);
      if (launched && ok(pass, clSetEventCallback(launched, CL_COMPLETE, on_complete, nullptr),
                         "clSetEventCallback"))
        ++pass.callbacks_set;
      if (user && !ok(pass, clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus")) {
        // The launch is still held; the application tries again (here once failures stop).
        all = false;
        without_failures([&] { EXPECT_EQ(CL_SUCCESS, clSetUserEventStatus(user, CL_COMPLETE)); });
      }
    }
    std::vector<cl_uint> got(kCount, 0xdeadbeef);
    e = nullptr;
    all = ok(pass, clEnqueueReadBuffer(app.queue, app.out, CL_TRUE, 0, kCount * 4, got.data(), 0,
                                       nullptr, &e), "clEnqueueReadBuffer") && all;
    read_done = Event(e);
    void* mapped = clEnqueueMapBuffer(app.queue, app.out, CL_TRUE, CL_MAP_READ, 0, kCount * 4, 0,
                                      nullptr, nullptr, &err);
    std::vector<cl_uint> seen(kCount, 0xdeadbeef);
    if (ok(pass, mapped ? CL_SUCCESS : err, "clEnqueueMapBuffer")) {
      std::memcpy(seen.data(), mapped, kCount * 4);
      cl_int unmapped = clEnqueueUnmapMemObject(app.queue, app.out, mapped, 0, nullptr, nullptr);
      if (!ok(pass, unmapped, "clEnqueueUnmapMemObject")) {
        // The mapping stays; the application undoes it again (here once failures stop).
        without_failures([&] {
          EXPECT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(app.queue, app.out, mapped, 0, nullptr, nullptr));
        });
      }
    } else {
      all = false;
    }
    all = ok(pass, clFinish(app.queue), "clFinish") && all;
    // Every command whose enqueue succeeded ended: complete, or failed with an error.
    for (const Event* ev : {&written, &launched, &read_done}) {
      if (!*ev) continue;
      cl_int status = CL_QUEUED;
      if (!ok(pass, clGetEventInfo(*ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                   nullptr), "clGetEventInfo"))
        continue;
      EXPECT_TRUE(status == CL_COMPLETE || status < 0) << "an event never ended: " << status;
      if (status != CL_COMPLETE) {
        all = false;
        ok(pass, status, "event status");
      }
    }
    if (all) {
      // Everything said it worked: the results must be right.
      pass.checked = true;
      for (size_t i = 0; i < kCount; ++i) {
        const cl_uint want = input[i] * 3u + v + salt;
        EXPECT_EQ(got[i], want) << "read, element " << i;
        EXPECT_EQ(seen[i], want) << "map, element " << i;
        if (got[i] != want || seen[i] != want) break;
      }
    }
    return pass;
  }

  // Runs |f| with the variable unset, then sets it back as it was.
  template <typename F>
  void without_failures(F f) {
    unsetenv("VKCL_FAIL_HOST_ALLOCATIONS");
    f();
    if (!current_.empty()) setenv("VKCL_FAIL_HOST_ALLOCATIONS", current_.c_str(), 1);
  }

  // Runs the whole application with every nth allocation failing from step |first| on, then
  // again with none failing; returns how many failed.
  cl_ulong round(unsigned long n, int first, cl_uint salt);

  static constexpr int kSteps = 8;
  int first_failing_ = -1;
  std::string current_;  // the variable's value while a round runs, empty after
};

using FailureCount = cl_ulong(CL_API_CALL*)();

FailureCount failure_count(cl_platform_id platform) {
  return reinterpret_cast<FailureCount>(
      clGetExtensionFunctionAddressForPlatform(platform, "clGetHostAllocationFailureCountVKCL"));
}

cl_ulong HostAllocationFailures::round(unsigned long n, int first, cl_uint salt) {
  const cl_uint v = cl_uint(n % 1000);
  std::vector<cl_uint> input(kCount);
  for (auto& x : input) x = cl_uint(rng_());
  const int callbacks_before = g_callbacks.load();
  const FailureCount failures = failure_count(platform_);
  const cl_ulong before = failures();

  App app;
  current_ = std::to_string(n);
  first_failing_ = first;
  Pass failing = run_steps(app, salt, input, v);
  unsetenv("VKCL_FAIL_HOST_ALLOCATIONS");
  current_.clear();
  first_failing_ = -1;
  const cl_ulong injected = failures() - before;
  EXPECT_TRUE(failing.unclean.empty()) << "not a clean failure: " << failing.unclean.front();
  if (n == 1 && first == 0) {
    // Every allocation failing: not even the context can be made.
    EXPECT_EQ(app.context.get(), nullptr);
    EXPECT_GT(injected, 0u);
  }
  if (injected == 0) {
    // Nothing failed on purpose: nothing failed, and the results were right.
    EXPECT_EQ(failing.failed, 0);
    EXPECT_TRUE(failing.checked);
  } else if (failing.failed == 0) {
    // Failures that vkcl absorbed (a drain left to the next wait, say): whatever no step
    // reported must not show in the results.
    EXPECT_TRUE(failing.checked);
  }

  // Once the failures stop, the same objects (and new ones for those that could not be
  // made) do everything right.
  Pass after = run_steps(app, salt, input, v);
  EXPECT_EQ(after.failed, 0);
  EXPECT_TRUE(after.checked);
  for (const auto& u : after.unclean) ADD_FAILURE() << u;

  // Each callback registered was called once its command ended.
  const int expected = failing.callbacks_set + after.callbacks_set;
  for (int i = 0; i < 500 && g_callbacks.load() - callbacks_before < expected; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(g_callbacks.load() - callbacks_before, expected);

  // No object left behind: once the others are gone the context holds only the
  // application's reference (each object holds one on its context).
  cl_context context = app.context.get();
  EXPECT_EQ(CL_SUCCESS, clRetainContext(context));
  app = App();
  cl_uint refs = 0;
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(CL_SUCCESS, clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs,
                                           nullptr));
    if (refs == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(refs, 1u) << "objects of the context were leaked";
  clReleaseContext(context);
  return injected;
}

TEST_P(HostAllocationFailures, EveryStepFailsCleanlyAndTheObjectsRecover) {
  if (!failure_count(platform_)) GTEST_SKIP() << "this build has no operator new of its own (a sanitizer build)";
  std::vector<unsigned long> every = {1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47,
                                      53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 127, 151, 211, 307,
                                      401, 499, 701, 1009, 1511, 2003};
  bool quiet = false;
  cl_ulong total = 0;
  cl_uint salt = 0;
  for (size_t r = 0; r < every.size() && !quiet; ++r) {
    const unsigned long n = every[r];
    cl_ulong injected = 0;
    // Failures start at each step in turn, so that every step meets them with every N (an
    // early step that fails ends the application's run).
    for (int first = 0; first < kSteps; ++first) {
      SCOPED_TRACE("VKCL_FAIL_HOST_ALLOCATIONS=" + std::to_string(n) + " from step " +
                   std::to_string(first));
      injected += round(n, first, ++salt);
      if (HasFatalFailure()) return;
    }
    std::printf("VKCL_FAIL_HOST_ALLOCATIONS=%lu: %llu allocation(s) failed\n", n,
                static_cast<unsigned long long>(injected));
    total += injected;
    // N grows until a whole run of the application goes by without a failure.
    if (injected == 0 && n >= 97) quiet = true;
    else if (r + 1 == every.size() && n < (1ul << 30)) every.push_back(n * 2);
  }
  EXPECT_TRUE(quiet) << "no run went without failures";
  EXPECT_GT(total, 100u);
}

INSTANTIATE_TEST_SUITE_P(Options, HostAllocationFailures, ::testing::Values(std::string("")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
