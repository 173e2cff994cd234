// Work-groups smaller than the device's SIMD width, packed side by side into Vulkan
// workgroups (KernelInterface::packable): every id and size the kernel reads must still be
// OpenCL's, for any local size, offset, work dimension and non-uniform last group, and a
// kernel that resumes (lavapipe's loop limit) must still finish each work-item exactly.
#include <array>
#include <cstdint>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

class PackedGroups : public KernelTest {};

// Every work-item writes what it sees: 3 x (global id, local id, group id, local size,
// enqueued local size, number of groups, global size, offset), then its local linear id,
// global linear id and work dimension.
constexpr size_t kFields = 27;
const char* kIds = R"(
  __kernel void ids(__global uint* out) {
    size_t linear = get_global_linear_id();
    __global uint* o = out + 27 * linear;
    for (uint d = 0; d < 3; ++d) {
      o[8 * d + 0] = get_global_id(d);
      o[8 * d + 1] = get_local_id(d);
      o[8 * d + 2] = get_group_id(d);
      o[8 * d + 3] = get_local_size(d);
      o[8 * d + 4] = get_enqueued_local_size(d);
      o[8 * d + 5] = get_num_groups(d);
      o[8 * d + 6] = get_global_size(d);
      o[8 * d + 7] = get_global_offset(d);
    }
    o[24] = get_local_linear_id();
    o[25] = linear;
    o[26] = get_work_dim();
  }
)";

struct Launch {
  cl_uint dims;
  std::array<size_t, 3> global, local, offset;
};

// What OpenCL says work-item |item| (its ids per dimension, from 0) of |l| sees.
std::array<uint32_t, kFields> expected(const Launch& l, const std::array<size_t, 3>& item) {
  std::array<uint32_t, kFields> want{};
  size_t local_linear = 0, global_linear = 0;
  for (int d = 2; d >= 0; --d) {
    const bool in = cl_uint(d) < l.dims;
    const size_t g = in ? l.global[d] : 1, e = in ? l.local[d] : 1, o = in ? l.offset[d] : 0;
    const size_t groups = (g + e - 1) / e, group = item[d] / e;
    const size_t size = group == groups - 1 && g % e ? g % e : e;
    const uint32_t fields[8] = {uint32_t(item[d] + o), uint32_t(item[d] % e), uint32_t(group), uint32_t(size),
                                uint32_t(e), uint32_t(groups), uint32_t(g), uint32_t(o)};
    for (int f = 0; f < 8; ++f) want[8 * d + f] = fields[f];
    local_linear = local_linear * size + item[d] % e;
    global_linear = global_linear * g + item[d];
  }
  want[24] = uint32_t(local_linear);
  want[25] = uint32_t(global_linear);
  want[26] = l.dims;
  return want;
}

TEST_P(PackedGroups, IdsAndSizesAreOpenCLs) {
  // (-cl-std=CL3.0: work-groups that do not divide the NDRange.)
  Program p = build(kIds, "-cl-std=CL3.0");
  Kernel k = kernel(p, "ids");
  const Launch launches[] = {
      {1, {1009, 1, 1}, {1, 1, 1}, {5, 0, 0}},     // hashcat's groups of one, a prime count
      {1, {64, 1, 1}, {1, 1, 1}, {0, 0, 0}},
      {1, {7, 1, 1}, {1, 1, 1}, {0, 0, 0}},        // fewer groups than a Vulkan workgroup holds
      {1, {1000, 1, 1}, {3, 1, 1}, {0, 0, 0}},     // a smaller last group
      {1, {100, 1, 1}, {5, 1, 1}, {7, 0, 0}},
      {2, {37, 6, 1}, {1, 1, 1}, {2, 3, 0}},
      {2, {10, 6, 1}, {3, 2, 1}, {0, 0, 0}},       // smaller last groups in x and y
      {3, {12, 5, 3}, {2, 1, 1}, {1, 2, 3}},
      {3, {9, 4, 4}, {1, 2, 2}, {0, 0, 0}},
      {1, {256, 1, 1}, {32, 1, 1}, {0, 0, 0}},     // groups of 32: two to a workgroup of 64
      {1, {300, 1, 1}, {100, 1, 1}, {0, 0, 0}},    // large groups: not packed
  };
  for (const Launch& l : launches) {
    SCOPED_TRACE(std::to_string(l.global[0]) + "x" + std::to_string(l.global[1]) + "x" + std::to_string(l.global[2]) +
                 " in " + std::to_string(l.local[0]) + "x" + std::to_string(l.local[1]) + "x" +
                 std::to_string(l.local[2]));
    const size_t items = l.global[0] * l.global[1] * l.global[2];
    // Room past the last work-item's fields: a place of a packed Vulkan workgroup that runs no
    // group would write there.
    const size_t room = 64 * kFields;
    Mem out = poisoned((items * kFields + room) * 4);
    set_mem_arg(k, 0, out);
    run(k, l.dims, l.global.data(), l.local.data(), l.offset.data());
    std::vector<uint32_t> got = read<uint32_t>(out, items * kFields + room);
    for (size_t w = items * kFields; w < got.size(); ++w)
      ASSERT_EQ(got[w], 0xABABABABu) << "word " << w << " past the last work-item's";
    size_t wrong = 0;
    for (size_t z = 0; z < l.global[2]; ++z)
      for (size_t y = 0; y < l.global[1]; ++y)
        for (size_t x = 0; x < l.global[0]; ++x) {
          const size_t linear = (z * l.global[1] + y) * l.global[0] + x;
          const std::array<uint32_t, kFields> want = expected(l, {x, y, z});
          for (size_t f = 0; f < kFields; ++f)
            if (got[linear * kFields + f] != want[f] && ++wrong <= 5)
              ADD_FAILURE() << "work-item (" << x << ", " << y << ", " << z << ") field " << f << ": got "
                            << got[linear * kFields + f] << ", want " << want[f];
        }
    EXPECT_EQ(wrong, 0u);
  }
}

// Groups of one work-item whose loops run as long as a buffer says (here past lavapipe's
// 65535 passes for some, so the launch resumes in rounds): each work-item's sum is exact, and
// one that ends early leaves its neighbours in the same Vulkan workgroup going.
TEST_P(PackedGroups, LongLoopsInGroupsOfOneFinish) {
  Program p = build(R"(
    __kernel void sums(__global const uint* n, __global uint* out) {
      size_t i = get_global_id(0);
      uint s = (uint)get_group_id(0) * 7u + (uint)get_local_id(0);
      for (uint k = 0; k < n[i]; ++k) s = s * 3u + (k ^ (uint)i);
      out[i] = s;
    }
  )");
  Kernel k = kernel(p, "sums");
  const size_t items = 37;
  std::vector<uint32_t> n(items);
  for (size_t i = 0; i < items; ++i) n[i] = i % 5 == 0 ? 70000 + uint32_t(i) : uint32_t(i * 13 % 40);
  Mem dn = buffer(items * 4, n.data());
  Mem out = poisoned(items * 4);
  set_mem_arg(k, 0, dn);
  set_mem_arg(k, 1, out);
  const size_t local = 1;
  run(k, 1, &items, &local);
  std::vector<uint32_t> got = read<uint32_t>(out, items);
  for (size_t i = 0; i < items; ++i) {
    uint32_t s = uint32_t(i) * 7u;
    for (uint32_t j = 0; j < n[i]; ++j) s = s * 3u + (j ^ uint32_t(i));
    ASSERT_EQ(got[i], s) << "work-item " << i << " (" << n[i] << " passes)";
  }
}

// A kernel with __local memory keeps one work-group per Vulkan workgroup: each group's
// __local memory is its own (here every work-item of groups of one writes and reads back the
// first word; packed groups sharing one arena would read each other's).
TEST_P(PackedGroups, LocalMemoryStaysEachGroupsOwn) {
  Program p = build(R"(
    __kernel void own_word(__global const uint* in, __global uint* out, __local uint* word) {
      size_t i = get_global_id(0);
      word[get_local_id(0)] = in[i] * 3u;
      out[i] = word[get_local_id(0)] + 1u;
    }
  )");
  Kernel k = kernel(p, "own_word");
  const size_t items = 99, local = 1;
  std::vector<uint32_t> in(items);
  for (size_t i = 0; i < items; ++i) in[i] = uint32_t(rng_());
  Mem din = buffer(items * 4, in.data());
  Mem out = poisoned(items * 4);
  set_mem_arg(k, 0, din);
  set_mem_arg(k, 1, out);
  ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, 4, nullptr));
  run(k, 1, &items, &local);
  std::vector<uint32_t> got = read<uint32_t>(out, items);
  for (size_t i = 0; i < items; ++i) ASSERT_EQ(got[i], in[i] * 3u + 1u) << "work-item " << i;
}

INSTANTIATE_TEST_SUITE_P(Options, PackedGroups, ::testing::Values("", "-cl-opt-disable"), options_name);

}  // namespace
}  // namespace vkcl::test
