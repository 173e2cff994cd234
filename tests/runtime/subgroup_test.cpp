// OpenCL 3.0 sub-groups on Vulkan subgroups: sizes and ids, reduce/scan/broadcast/all/any and
// clGetKernelSubGroupInfo, checked against a CPU model of sub-groups as consecutive local
// linear ids of the size the device reports. Skipped where the device has no sub-groups.
#include <algorithm>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class SubGroups : public KernelTest {};

TEST_P(SubGroups, FunctionsMatchTheCpuModel) {
  // OpenCL 3.0 sub-groups (__opencl_c_subgroups); cl_khr_subgroups is not reported because
  // it also asks for independent forward progress.
  cl_uint max_sub_groups = 0;
  clGetDeviceInfo(device_, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof max_sub_groups, &max_sub_groups, nullptr);
  if (max_sub_groups == 0) GTEST_SKIP() << "no sub-groups";
  Program p = build(R"(
    __kernel void k(__global const int* x, __global int* out) {
      size_t i = get_global_id(0);
      int v = x[i];
      __global int* o = out + 12 * i;
      o[0] = get_sub_group_size();
      o[1] = get_max_sub_group_size();
      o[2] = get_num_sub_groups();
      o[3] = get_enqueued_num_sub_groups();
      o[4] = get_sub_group_id();
      o[5] = get_sub_group_local_id();
      o[6] = sub_group_reduce_add(v);
      o[7] = sub_group_scan_inclusive_max(v);
      o[8] = sub_group_scan_exclusive_add(v);
      o[9] = sub_group_broadcast(v, 1);
      o[10] = sub_group_all(v > -900) + 2 * sub_group_any(v > 900);
      sub_group_barrier(CLK_LOCAL_MEM_FENCE);
      o[11] = (int)sub_group_reduce_min((float)v);
    })", "-cl-std=CL3.0");  // clang offers cl_khr_subgroups from OpenCL C 2.0 on
  Kernel k = kernel(p, "k");
  size_t local = 64, global = 150;  // the last work-group has 22 work-items
  size_t sub = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelSubGroupInfo(k, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                                sizeof local, &local, sizeof sub, &sub, nullptr));
  ASSERT_GT(sub, size_t(1));
  size_t count = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelSubGroupInfo(k, device_, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                                sizeof local, &local, sizeof count, &count, nullptr));
  EXPECT_EQ(count, (local + sub - 1) / sub);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<int> x(global);
  for (auto& v : x) v = dist(rng_);
  Mem dx = buffer(global * 4, x.data()), dout = poisoned(global * 12 * 4);
  set_mem_arg(k, 0, dx); set_mem_arg(k, 1, dout);
  run(k, 1, &global, &local);
  auto out = read<int>(dout, global * 12);
  for (size_t i = 0; i < global; ++i) {
    size_t group_start = i / local * local;
    size_t group_size = std::min(local, global - group_start);
    size_t li = i - group_start, sg = li / sub, lane = li % sub;
    size_t first = group_start + sg * sub, size = std::min(sub, group_size - sg * sub);
    const int* o = &out[12 * i];
    int sum = 0, max_incl = -100000, excl = 0, mn = 100000;
    bool all = true, any = false;
    for (size_t j = 0; j < size; ++j) {
      int v = x[first + j];
      sum += v;
      mn = std::min(mn, v);
      all = all && v > -900;
      any = any || v > 900;
      if (j <= lane) max_incl = std::max(max_incl, v);
      if (j < lane) excl += v;
    }
    ASSERT_EQ(o[0], int(size)) << i;
    ASSERT_EQ(o[1], int(sub)) << i;
    ASSERT_EQ(o[2], int((group_size + sub - 1) / sub)) << i;
    ASSERT_EQ(o[3], int((local + sub - 1) / sub)) << i;
    ASSERT_EQ(o[4], int(sg)) << i;
    ASSERT_EQ(o[5], int(lane)) << i;
    ASSERT_EQ(o[6], sum) << i;
    ASSERT_EQ(o[7], max_incl) << i;
    ASSERT_EQ(o[8], excl) << i;
    if (size > 1) {
      ASSERT_EQ(o[9], x[first + 1]) << i;
    }
    ASSERT_EQ(o[10], int(all) + 2 * int(any)) << i;
    ASSERT_EQ(o[11], mn) << i;
  }
}

// The cl_khr_subgroup_* extensions, each only where the device reports it; work-items split
// by parity inside a branch check that the non-uniform functions see exactly the work-items
// of their side (LLVM would otherwise merge the two calls into one).
TEST_P(SubGroups, NonUniformExtensionsMatchTheCpuModel) {
  char names[4096] = {};
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, sizeof names, names, nullptr);
  std::string ext = names;
  for (const char* e : {"cl_khr_subgroup_ballot", "cl_khr_subgroup_non_uniform_vote",
                        "cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle_relative",
                        "cl_khr_subgroup_non_uniform_arithmetic"})
    if (ext.find(e) == std::string::npos) GTEST_SKIP() << e << " is not reported";
  // Vulkan's clustered operations are optional (lavapipe has none).
  bool clustered = ext.find("cl_khr_subgroup_clustered_reduce") != std::string::npos;
  Program p = build(R"(
    __kernel void k(__global const int* x, __global int* out) {
      size_t i = get_global_id(0);
      int v = x[i];
      __global int* o = out + 10 * i;
      uint4 odd = sub_group_ballot(v & 1);
      o[0] = sub_group_ballot_bit_count(odd);
      o[1] = sub_group_ballot_find_lsb(odd);
      o[2] = sub_group_ballot_inclusive_scan(odd);
      if (v & 1) {
        o[3] = sub_group_elect();
        o[4] = sub_group_non_uniform_reduce_add(v);
        o[5] = sub_group_non_uniform_all(v > 0);
      } else {
        o[3] = sub_group_elect();
        o[4] = sub_group_non_uniform_reduce_add(v);
        o[5] = sub_group_non_uniform_all(v > 0);
      }
      o[6] = sub_group_shuffle_xor(v, 1);
      o[7] = sub_group_shuffle_up(v, 1);
      o[8] = sub_group_shuffle_down(v, 1);
    #ifdef CLUSTERED
      o[9] = sub_group_clustered_reduce_add(v, 4);
    #endif
    })", clustered ? "-cl-std=CL3.0 -DCLUSTERED" : "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  size_t local = 64, global = 128;  // whole sub-groups only: shuffles stay inside them
  size_t sub = 0;
  ASSERT_EQ(CL_SUCCESS, clGetKernelSubGroupInfo(k, device_, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                                sizeof local, &local, sizeof sub, &sub, nullptr));
  if (local % sub || sub % 4) GTEST_SKIP() << "sub-group size " << sub;
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<int> x(global);
  for (auto& v : x) v = dist(rng_);
  Mem dx = buffer(global * 4, x.data()), dout = poisoned(global * 10 * 4);
  set_mem_arg(k, 0, dx); set_mem_arg(k, 1, dout);
  run(k, 1, &global, &local);
  auto out = read<int>(dout, global * 10);
  for (size_t i = 0; i < global; ++i) {
    size_t lane = i % sub, first = i - lane;
    bool mine = x[i] & 1;
    int count = 0, lsb = -1, scan = 0, side_sum = 0, side_first = -1;
    bool side_all = true;
    for (size_t j = 0; j < sub; ++j) {
      int v = x[first + j];
      if (v & 1) {
        ++count;
        if (lsb < 0) lsb = int(j);
        if (j <= lane) ++scan;
      }
      if (bool(v & 1) != mine) continue;
      side_sum += v;
      side_all = side_all && v > 0;
      if (side_first < 0) side_first = int(j);
    }
    const int* o = &out[10 * i];
    ASSERT_EQ(o[0], count) << i;
    if (count) {
      ASSERT_EQ(o[1], lsb) << i;
    }
    ASSERT_EQ(o[2], scan) << i;
    ASSERT_EQ(o[3] != 0, int(lane) == side_first) << i;
    ASSERT_EQ(o[4], side_sum) << i;
    ASSERT_EQ(o[5] != 0, side_all) << i;
    ASSERT_EQ(o[6], x[first + (lane ^ 1)]) << i;
    if (lane > 0) {
      ASSERT_EQ(o[7], x[i - 1]) << i;
    }
    if (lane + 1 < sub) {
      ASSERT_EQ(o[8], x[i + 1]) << i;
    }
    size_t c = i / 4 * 4;
    if (clustered) {
      ASSERT_EQ(o[9], x[c] + x[c + 1] + x[c + 2] + x[c + 3]) << i;
    }
  }
}

// cl_khr_subgroup_extended_types: broadcasts of 8/16-bit values and of vectors up to 16
// components, reductions and scans of char and short, against the same CPU model.
TEST_P(SubGroups, ExtendedTypesMatchTheCpuModel) {
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  if (extensions.find("cl_khr_subgroup_extended_types") == std::string::npos)
    GTEST_SKIP() << "no cl_khr_subgroup_extended_types";
  Program p = build(R"(
    __kernel void k(__global const char* x, __global short* out, __global char16* vec) {
      size_t i = get_global_id(0);
      char c = x[i];
      short s = (short)(c * 100);
      __global short* o = out + 6 * i;
      o[0] = sub_group_broadcast(c, 2);
      o[1] = sub_group_reduce_add(s);
      o[2] = sub_group_scan_inclusive_max(c);
      o[3] = sub_group_scan_exclusive_add((ushort)s);
      o[4] = sub_group_reduce_min(c);
      o[5] = get_sub_group_size();
      char16 v = (char16)(c) + (char16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
      vec[i] = sub_group_broadcast(v, 1);
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  size_t local = 32, global = 128;
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<int8_t> x(global);
  for (auto& v : x) v = int8_t(dist(rng_));
  Mem dx = buffer(global, x.data()), dout = poisoned(global * 6 * 2), dvec = poisoned(global * 16);
  set_mem_arg(k, 0, dx); set_mem_arg(k, 1, dout); set_mem_arg(k, 2, dvec);
  run(k, 1, &global, &local);
  auto out = read<int16_t>(dout, global * 6);
  auto vec = read<int8_t>(dvec, global * 16);
  for (size_t i = 0; i < global; ++i) {
    size_t sub = size_t(out[6 * i + 5]);
    ASSERT_GT(sub, size_t(2));
    ASSERT_LE(sub, local);  // (the poison, where the kernel did not run)
    size_t first = i / sub * sub, lane = i % sub;  // sub-groups do not cross work-groups of 32
    int sum = 0, max = -128, min = 127, before = 0;
    for (size_t j = first; j < first + sub; ++j) {
      sum += x[j] * 100;
      min = std::min<int>(min, x[j]);
      if (j <= i) max = std::max<int>(max, x[j]);
      if (j < i) before += x[j] * 100;
    }
    const int16_t* o = &out[6 * i];
    ASSERT_EQ(o[0], x[first + 2]) << "broadcast at " << i;
    ASSERT_EQ(o[1], int16_t(sum)) << "reduce_add at " << i;
    ASSERT_EQ(o[2], max) << "scan_inclusive_max at " << i;
    ASSERT_EQ(uint16_t(o[3]), uint16_t(before)) << "scan_exclusive_add at " << i << " lane " << lane;
    ASSERT_EQ(o[4], min) << "reduce_min at " << i;
    for (int c = 0; c < 16; ++c)
      ASSERT_EQ(vec[16 * i + c], int8_t(x[first + 1] + c)) << "char16 broadcast at " << i;
  }
}

// cl_khr_subgroup_rotate: the value of the work-item (id + delta) mod the maximum sub-group
// size, or rotated within clusters, for positive, negative and large deltas.
TEST_P(SubGroups, RotateMatchesTheCpuModel) {
  size_t size = 0;
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  if (extensions.find("cl_khr_subgroup_rotate") == std::string::npos) GTEST_SKIP() << "no cl_khr_subgroup_rotate";
  Program p = build(R"(
    #ifdef cl_khr_fp16
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    #endif
    __kernel void k(__global const int* x, __global int* out, int delta) {
      size_t i = get_global_id(0);
      __global int* o = out + 6 * i;
      o[0] = sub_group_rotate(x[i], delta);
      o[1] = (int)sub_group_rotate((float)x[i], -delta);
      o[2] = sub_group_clustered_rotate(x[i], delta, 4);
      o[3] = (uchar)sub_group_clustered_rotate((uchar)x[i], 5, 2);
      o[4] = get_max_sub_group_size();
    #ifdef cl_khr_fp16
      o[5] = (int)sub_group_rotate((half)x[i], delta);  // every value up to 200 is a half
    #else
      o[5] = sub_group_rotate(x[i], delta);
    #endif
    })", "-cl-std=CL3.0");
  Kernel k = kernel(p, "k");
  size_t local = 32, global = 128;
  std::vector<int> x(global);
  for (auto& v : x) v = int(std::uniform_int_distribution<int>(0, 200)(rng_));
  for (int delta : {0, 1, 3, -2, 37}) {
    SCOPED_TRACE(delta);
    Mem dx = buffer(global * 4, x.data()), dout = poisoned(global * 6 * 4);
    set_mem_arg(k, 0, dx);
    set_mem_arg(k, 1, dout);
    set_arg(k, 2, delta);
    run(k, 1, &global, &local);
    auto out = read<int>(dout, global * 6);
    for (size_t i = 0; i < global; ++i) {
      const int* o = &out[6 * i];
      size_t sub = size_t(o[4]);
      ASSERT_TRUE(sub >= 4 && local % sub == 0) << "sub-group size " << sub;
      size_t first = i / sub * sub, lane = i % sub;
      auto rotated = [&](size_t base, size_t n, long d) {
        return x[first + base + size_t(((long(lane - base) + d) % long(n) + long(n)) % long(n))];
      };
      ASSERT_EQ(o[0], rotated(0, sub, delta)) << "rotate at " << i;
      ASSERT_EQ(o[1], rotated(0, sub, -delta)) << "float rotate at " << i;
      ASSERT_EQ(o[2], rotated(lane / 4 * 4, 4, delta)) << "clustered rotate at " << i;
      ASSERT_EQ(o[3], rotated(lane / 2 * 2, 2, 5) & 0xff) << "uchar clustered rotate at " << i;
      ASSERT_EQ(o[5], rotated(0, sub, delta)) << "half rotate at " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Options, SubGroups, ::testing::Values(std::string(""),
                                                               std::string("-cl-opt-disable")));

}  // namespace
}  // namespace vkcl::test
