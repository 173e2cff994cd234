// Checked mode (VKCL_CHECKED=1, issue 18): a kernel's out-of-bounds accesses through global,
// local and private pointers do not happen, the command fails with CL_OUT_OF_RESOURCES and
// stderr names the kernel, the argument, the offset and the size; in-bounds kernels run as
// without it. The out-of-bounds stores aim at memory the kernel could really reach (the rest
// of a sub-buffer's parent, the __local variable beside an argument, the next work-item's
// words), so a check that let them through would show in the data.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

// VKCL_CHECKED=1 while alive (kernels are translated checked when built).
class Checked {
 public:
  Checked() { setenv("VKCL_CHECKED", "1", 1); }
  ~Checked() { unsetenv("VKCL_CHECKED"); }
  Checked(const Checked&) = delete;
  Checked& operator=(const Checked&) = delete;
};

class CheckedMode : public KernelTest {
 protected:
  // Runs |k| over |global| work-items in groups of |local| and returns the command's status
  // with what vkcl wrote to stderr meanwhile.
  cl_int launch(const Kernel& k, size_t global, size_t local, std::string* err) {
    cl_event e = nullptr;
    testing::internal::CaptureStderr();
    cl_int r = clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0, nullptr, &e);
    cl_int wait = r == CL_SUCCESS ? clWaitForEvents(1, &e) : r;
    cl_int status = r;
    if (e) {
      clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
      clReleaseEvent(e);
    }
    *err = testing::internal::GetCapturedStderr();
    if (status < 0) {
      EXPECT_EQ(wait, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    return status;
  }
};

// A kernel handed the first 4 KiB of an 8 KiB buffer writes 64 ints |past| elements on: past
// the sub-buffer's end they would land in the parent's second half.
TEST_P(CheckedMode, GlobalStorePastASubBufferIsStoppedAndNamed) {
  Checked checked;
  Program p = build("__kernel void store_past(__global int* a, int past) { a[get_global_id(0) + past] = 7; }");
  Kernel k = kernel(p, "store_past");
  std::vector<uint8_t> pattern(8192, 0x5a);
  Mem parent = buffer(pattern.size(), pattern.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  cl_buffer_region first{0, 4096};
  cl_int err;
  Mem sub(clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &first, &err));
  ASSERT_EQ(CL_SUCCESS, err);
  set_mem_arg(k, 0, sub);
  set_arg(k, 1, cl_int(1024));
  std::string log;
  EXPECT_EQ(CL_OUT_OF_RESOURCES, launch(k, 64, 64, &log));
  EXPECT_NE(log.find("kernel store_past"), std::string::npos) << log;
  EXPECT_NE(log.find("argument 0 'a'"), std::string::npos) << log;
  EXPECT_NE(log.find("offset 4096"), std::string::npos) << log;
  EXPECT_NE(log.find("of 4096 bytes"), std::string::npos) << log;
  EXPECT_NE(log.find("64 access(es) failed"), std::string::npos) << log;
  EXPECT_EQ(read<uint8_t>(parent, pattern.size()), pattern);

  // In bounds: runs, writes, succeeds, says nothing.
  set_arg(k, 1, cl_int(960));
  EXPECT_EQ(CL_COMPLETE, launch(k, 64, 64, &log));
  EXPECT_EQ(log, "");
  std::vector<uint8_t> want = pattern;
  for (size_t i = 960; i < 1024; ++i) std::memcpy(&want[4 * i], "\x07\0\0\0", 4);
  EXPECT_EQ(read<uint8_t>(parent, pattern.size()), want);
}

// A __local argument written one element before its start would land in the kernel's own
// __local array, which the work-group then copies out.
TEST_P(CheckedMode, LocalStoreOutsideItsArgumentIsStoppedAndNamed) {
  Checked checked;
  Program p = build(R"(
    __kernel void local_past(__global int* out, __local int* tmp, int at) {
      __local int mine[64];
      int l = get_local_id(0);
      mine[l] = l;
      tmp[l] = -l;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l == 0) tmp[at] = 99;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[l] = mine[l];
      out[64 + l] = tmp[l];
    })");
  Kernel k = kernel(p, "local_past");
  Mem out = poisoned(128 * 4);
  set_mem_arg(k, 0, out);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, 64 * 4, nullptr));
  for (int at : {-1, 64, 1 << 20}) {
    SCOPED_TRACE(at);
    set_arg(k, 2, cl_int(at));
    std::string log;
    EXPECT_EQ(CL_OUT_OF_RESOURCES, launch(k, 64, 64, &log));
    EXPECT_NE(log.find("kernel local_past"), std::string::npos) << log;
    EXPECT_NE(log.find("local memory offset"), std::string::npos) << log;
    EXPECT_NE(log.find("argument 1 'tmp' (__local) of 256 bytes"), std::string::npos) << log;
    std::vector<int> got = read<int>(out, 128);
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(got[i], i);
      EXPECT_EQ(got[64 + i], -i);
    }
  }
  set_arg(k, 2, cl_int(63));
  std::string log;
  EXPECT_EQ(CL_COMPLETE, launch(k, 64, 64, &log));
  EXPECT_EQ(read<int>(out, 128)[127], 99);
}

// A private array indexed past its end: the store does not happen, whatever lies there.
TEST_P(CheckedMode, PrivateStorePastTheWorkItemsMemoryIsStopped) {
  Checked checked;
  Program p = build(R"(
    __kernel void private_past(__global int* out, int at) {
      int p[4] = {1, 2, 3, 4};
      p[at] = 9;
      int l = get_global_id(0);
      out[l] = p[0] + p[1] + p[2] + p[3];
    })");
  Kernel k = kernel(p, "private_past");
  Mem out = poisoned(64 * 4);
  set_mem_arg(k, 0, out);
  set_arg(k, 1, cl_int(1 << 16));
  std::string log;
  EXPECT_EQ(CL_OUT_OF_RESOURCES, launch(k, 64, 64, &log));
  EXPECT_NE(log.find("kernel private_past"), std::string::npos) << log;
  EXPECT_NE(log.find("private memory offset"), std::string::npos) << log;
  for (int v : read<int>(out, 64)) EXPECT_EQ(v, 10);
  set_arg(k, 1, cl_int(2));
  EXPECT_EQ(CL_COMPLETE, launch(k, 64, 64, &log));
  for (int v : read<int>(out, 64)) EXPECT_EQ(v, 16);
}

// In-bounds accesses of every kind pass: vectors, structs, atomics, vload/vstore, generic
// pointers into each space, copies between spaces, program-scope variables; the results are
// what the CPU computes.
TEST_P(CheckedMode, InBoundsAccessesOfEveryKindRunAsWithout) {
  Checked checked;
  Program p = build(R"(
    typedef struct { int a; float b; long c; } S;
    __global int counter;
    __constant int table[4] = {10, 20, 30, 40};
    int via_generic(int* q) { return *q; }
    __kernel void every(__global int4* v, __global S* s, __global int* sums, __global float* f,
                        __local int* scratch) {
      size_t i = get_global_id(0), l = get_local_id(0);
      __local int own[64];
      int priv[3] = {(int)i, 1, 2};
      v[i] = v[i] * 2;
      S t = s[i];
      t.c += t.a;
      s[i] = t;
      atomic_add(&sums[0], 1);
      atomic_inc(&counter);
      float4 x = vload4(i, f);
      vstore4(x + 1.0f, i, f);
      own[l] = (int)i;
      scratch[l] = table[i % 4];
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      sums[1 + i] = via_generic(&own[63 - l]) + via_generic(&scratch[l]) + via_generic(&priv[0]) +
                    via_generic(&sums[0]) * 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      event_t e = async_work_group_copy(own, (__global const int*)(v + get_group_id(0) * 16), 64, 0);
      wait_group_events(1, &e);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i == 0) sums[129] = own[5] + counter * 0;
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "every");
  const size_t n = 128;
  std::vector<cl_int> v(4 * n), sums(130, 0);
  std::vector<float> f(4 * n);
  struct S { cl_int a; cl_float b; cl_long c; };
  std::vector<S> s(n);
  for (size_t i = 0; i < 4 * n; ++i) v[i] = int(i), f[i] = float(i) / 2;
  for (size_t i = 0; i < n; ++i) s[i] = {int(i), 0.5f, cl_long(1) << 40};
  Mem mv = buffer(v.size() * 4, v.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  Mem ms = buffer(s.size() * sizeof(S), s.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  Mem msum = buffer(sums.size() * 4, sums.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  Mem mf = buffer(f.size() * 4, f.data(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR);
  set_mem_arg(k, 0, mv);
  set_mem_arg(k, 1, ms);
  set_mem_arg(k, 2, msum);
  set_mem_arg(k, 3, mf);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 4, 64 * 4, nullptr));
  std::string log;
  ASSERT_EQ(CL_COMPLETE, launch(k, n, 64, &log));
  EXPECT_EQ(log, "");
  std::vector<cl_int> gv = read<cl_int>(mv, v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(gv[i], 2 * int(i)) << i;
  std::vector<S> gs = read<S>(ms, n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(gs[i].c, (cl_long(1) << 40) + cl_long(i)) << i;
  std::vector<float> gf = read<float>(mf, f.size());
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(gf[i], float(i) / 2 + 1) << i;
  std::vector<cl_int> gsum = read<cl_int>(msum, sums.size());
  EXPECT_EQ(gsum[0], int(n));
  const int table[4] = {10, 20, 30, 40};
  for (size_t i = 0; i < n; ++i) {
    size_t group = i / 64 * 64, l = i % 64;
    EXPECT_EQ(gsum[1 + i], int(group + 63 - l) + table[i % 4] + int(i)) << i;
  }
  EXPECT_EQ(gsum[129], 2 * 5);  // own[5] = v's int 5 after doubling (group 0 copies v[0..15])
}

INSTANTIATE_TEST_SUITE_P(Options, CheckedMode,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
