// Async work-group copies (OpenCL C 6.15.11) and work-group functions (6.15.16) on the vkcl
// device, checked against CPU references: 1D, 2D and 3D work-groups, with a smaller last
// work-group, on fresh random inputs with poisoned outputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>

#include "runtime/cl_harness.h"

namespace vkcl::test {
namespace {

// ---------------------------------------------------------------- async copies

struct CopyType {
  const char* name;
  size_t size;  // bytes an element occupies: 3-vectors count as 4 (6.15.11, note)
};

// ---------------------------------------------------------------- collectives

// The work-items of an NDRange grouped by work-group, each group in local linear id order;
// an item is its index in the buffers (its global linear id).
std::vector<std::vector<size_t>> work_groups(const size_t* global, const size_t* local) {
  std::map<std::array<size_t, 3>, std::vector<std::pair<size_t, size_t>>> groups;
  for (size_t z = 0; z < global[2]; ++z)
    for (size_t y = 0; y < global[1]; ++y)
      for (size_t x = 0; x < global[0]; ++x) {
        size_t id[3] = {x, y, z}, size[3], lid[3];
        std::array<size_t, 3> key;
        for (int d = 0; d < 3; ++d) {
          key[d] = id[d] / local[d];
          size[d] = std::min(local[d], global[d] - key[d] * local[d]);  // the last is smaller
          lid[d] = id[d] % local[d];
        }
        size_t linear = (lid[2] * size[1] + lid[1]) * size[0] + lid[0];
        groups[key].push_back({linear, (z * global[1] + y) * global[0] + x});
      }
  std::vector<std::vector<size_t>> out;
  for (auto& [key, items] : groups) {
    std::sort(items.begin(), items.end());
    out.emplace_back();
    for (auto& item : items) out.back().push_back(item.second);
  }
  return out;
}

// Every test runs each shape: 1D, 2D and 3D, with a partial last work-group.
struct Shape {
  cl_uint dims;
  size_t global[3], local[3];
};
const Shape kShapes[] = {
    {1, {100, 1, 1}, {32, 1, 1}},
    {2, {24, 10, 1}, {8, 4, 1}},
    {3, {8, 4, 5}, {4, 2, 2}},
};

const char* kIndex =
    "size_t index = (get_global_id(2) * get_global_size(1) + get_global_id(1)) *"
    " get_global_size(0) + get_global_id(0);\n";

template <typename T> const char* type_name();
template <> const char* type_name<int32_t>() { return "int"; }
template <> const char* type_name<uint32_t>() { return "uint"; }
template <> const char* type_name<int64_t>() { return "long"; }
template <> const char* type_name<uint64_t>() { return "ulong"; }
template <> const char* type_name<float>() { return "float"; }
template <> const char* type_name<double>() { return "double"; }

enum class Kind { Reduce, Inclusive, Exclusive };

template <typename T>
T identity(const std::string& op) {
  if (op == "add" || op == "or" || op == "xor" || op == "logical_or" || op == "logical_xor") return T(0);
  if (op == "mul" || op == "logical_and") return T(1);
  if constexpr (std::is_integral_v<T>)
    if (op == "and") return T(~T(0));
  if (std::is_floating_point_v<T>)
    return op == "min" ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  return op == "min" ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
}

template <typename T>
T apply(const std::string& op, T a, T b) {
  if (op == "min") return std::min(a, b);
  if (op == "max") return std::max(a, b);
  if (op == "logical_and") return T(a != 0 && b != 0);
  if (op == "logical_or") return T(a != 0 || b != 0);
  if (op == "logical_xor") return T((a != 0) != (b != 0));
  if constexpr (std::is_integral_v<T>) {  // wraps like the device does
    using U = std::make_unsigned_t<T>;
    if (op == "mul") return T(U(U(a) * U(b)));
    if (op == "and") return T(a & b);
    if (op == "or") return T(a | b);
    if (op == "xor") return T(a ^ b);
    return T(U(a) + U(b));
  } else {
    if (op == "mul") return a * b;
    return a + b;
  }
}

template <typename T>
std::vector<T> random_values(std::mt19937& rng, size_t n, const std::string& op) {
  std::vector<T> v(n);
  for (auto& x : v) {
    if (op.rfind("logical_", 0) == 0) {
      x = T(std::uniform_int_distribution<int>(0, 3)(rng));  // zero (false) one time in four
    } else if constexpr (std::is_floating_point_v<T>) {
      // Sums of small integers and products of powers of two are exact in any order, so the
      // scan order does not matter.
      const T powers[] = {-2, -1, -0.5, 0.5, 1, 2};
      x = op == "add"   ? T(std::uniform_int_distribution<int>(-1000, 1000)(rng))
          : op == "mul" ? powers[std::uniform_int_distribution<int>(0, 5)(rng)]
                        : std::uniform_real_distribution<T>(-1e6, 1e6)(rng);
    } else {
      x = std::uniform_int_distribution<T>(std::numeric_limits<T>::lowest(),
                                           std::numeric_limits<T>::max())(rng);
    }
  }
  return v;
}

class Group : public KernelTest {
 protected:
  // Checks reduce, inclusive and exclusive scan of |ops| on T for every shape.
  template <typename T>
  void check_arithmetic(std::vector<std::string> ops = {"add", "min", "max"}) {
    const std::string type = type_name<T>();
    const std::string pragma = std::is_same_v<T, double> ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
    for (const std::string& op : ops) {
      for (Kind kind : {Kind::Reduce, Kind::Inclusive, Kind::Exclusive}) {
        std::string fn = std::string(kind == Kind::Reduce      ? "work_group_reduce_"
                                     : kind == Kind::Inclusive ? "work_group_scan_inclusive_"
                                                               : "work_group_scan_exclusive_") +
                         op;
        SCOPED_TRACE(fn);
        Program p = build(pragma + "kernel void f(global const " + type + "* in, global " + type +
                              "* out) {\n" + kIndex + "  out[index] = " + fn +
                              "(in[index]);\n}\n",
                          "-cl-std=CL3.0");
        if (HasFatalFailure()) return;
        Kernel k = kernel(p, "f");
        for (const Shape& s : kShapes) {
          SCOPED_TRACE(s.dims);
          size_t n = s.global[0] * s.global[1] * s.global[2];
          std::vector<T> in = random_values<T>(rng_, n, op);
          std::vector<T> out = launch(k, s, in);
          for (const auto& group : work_groups(s.global, s.local)) {
            T total = identity<T>(op);
            for (size_t item : group) total = apply(op, total, in[item]);
            T running = identity<T>(op);
            for (size_t item : group) {
              T inclusive = apply(op, running, in[item]);
              T want = kind == Kind::Reduce      ? total
                       : kind == Kind::Inclusive ? inclusive
                                                 : running;
              ASSERT_EQ(out[item], want) << "at " << item;
              running = inclusive;
            }
          }
        }
      }
    }
  }

  // Runs kernel f(in, out) over |s| and returns out.
  template <typename T, typename U = T>
  std::vector<U> launch(const Kernel& k, const Shape& s, const std::vector<T>& in) {
    size_t n = in.size();
    Mem din = buffer(n * sizeof(T), in.data()), dout = poisoned(n * sizeof(U));
    set_mem_arg(k, 0, din);
    set_mem_arg(k, 1, dout);
    run(k, s.dims, s.global, s.local);
    return read<U>(dout, n);
  }
};

// Kernel "gather": group g gathers n elements at stride |stride| from its part of |src| into
// local memory, then copies local elements 1..n-1 to |out| contiguously (so each element
// leaves through another work-item than the one that brought it in, and only
// wait_group_events makes it visible). Kernel "scatter" copies n + 1 contiguous elements (two
// copies sharing one event) into local memory and scatters elements 1..n to |out| at stride
// |stride|; the elements between stay poisoned.
TEST_P(Group, AsyncCopies) {
  const CopyType types[] = {{"char", 1}, {"uchar2", 2}, {"int", 4},    {"int4", 16},
                            {"float3", 16}, {"long", 8}, {"long16", 128}, {"char3", 4},
                            {"float8", 32}, {"ushort3", 8}};
  const uint32_t n = 37, stride = 3, groups = 3;
  const size_t local = 16, global = local * groups;
  for (const CopyType& type : types) {
    SCOPED_TRACE(type.name);
    std::string T = type.name;
    Program p = build(
        "kernel void gather(global const " + T + "* src, global " + T + "* out, local " + T +
        "* tmp, uint n, uint stride) {\n"
        "  size_t g = get_group_id(0);\n"
        "  event_t e = async_work_group_strided_copy(tmp, src + g * n * stride, n, stride, 0);\n"
        "  wait_group_events(1, &e);\n"
        "  e = async_work_group_copy(out + g * n, tmp + 1, n - 1, 0);\n"
        "  wait_group_events(1, &e);\n"
        "}\n"
        "kernel void scatter(global const " + T + "* src, global " + T + "* out, local " + T +
        "* tmp, uint n, uint stride) {\n"
        "  size_t g = get_group_id(0);\n"
        "  event_t e = async_work_group_copy(tmp, src + g * n, n, 0);\n"
        "  e = async_work_group_copy(tmp + n, src + g * n, 1, e);\n"  // shares the event
        "  wait_group_events(1, &e);\n"
        "  e = async_work_group_strided_copy(out + g * n * stride, tmp + 1, n, stride, 0);\n"
        "  wait_group_events(1, &e);\n"
        "}\n");
    if (HasFatalFailure()) return;
    const size_t E = type.size;
    const size_t total = size_t(groups) * n * stride;
    std::vector<uint8_t> src(total * E);
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : src) b = uint8_t(byte(rng_));
    for (const char* name : {"gather", "scatter"}) {
      SCOPED_TRACE(name);
      bool gather = std::string(name) == "gather";
      Kernel k = kernel(p, name);
      Mem dsrc = buffer(src.size(), src.data()), dout = poisoned(total * E);
      set_mem_arg(k, 0, dsrc);
      set_mem_arg(k, 1, dout);
      ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, (n + 1) * E, nullptr));
      set_arg(k, 3, n);
      set_arg(k, 4, stride);
      run(k, 1, &global, &local);
      auto out = read<uint8_t>(dout, total * E);
      // Expected output, element by element (as the index of the source element, or -1 for
      // an element the kernel must not write).
      std::vector<long> from(total, -1);
      for (size_t g = 0; g < groups; ++g) {
        for (size_t i = 0; i < n; ++i) {
          if (gather) {
            if (i + 1 < n) from[g * n + i] = long(g * n * stride + (i + 1) * stride);
          } else {
            // tmp[j] = src[g * n + j] for j < n, tmp[n] = src[g * n]; out[i * stride] = tmp[i + 1]
            size_t j = i + 1;
            from[g * n * stride + i * stride] = long(j < n ? g * n + j : g * n);
          }
        }
      }
      for (size_t e = 0; e < total; ++e) {
        for (size_t b = 0; b < E; ++b) {
          uint8_t want = from[e] < 0 ? 0xAB : src[size_t(from[e]) * E + b];
          ASSERT_EQ(int(out[e * E + b]), int(want)) << "element " << e << " byte " << b;
        }
      }
    }
  }
}

TEST_P(Group, ReduceAndScanInt) { check_arithmetic<int32_t>(); }
TEST_P(Group, ReduceAndScanUint) { check_arithmetic<uint32_t>(); }
TEST_P(Group, ReduceAndScanLong) { check_arithmetic<int64_t>(); }
TEST_P(Group, ReduceAndScanUlong) { check_arithmetic<uint64_t>(); }
TEST_P(Group, ReduceAndScanFloat) { check_arithmetic<float>(); }
TEST_P(Group, ReduceAndScanDouble) {
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(device_, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr);
  if (!fp64) GTEST_SKIP() << "no cl_khr_fp64";
  check_arithmetic<double>({"add", "min", "max", "mul"});
}
// cl_khr_work_group_uniform_arithmetic.
TEST_P(Group, UniformArithmeticInt) {
  check_arithmetic<int32_t>({"mul", "and", "or", "xor", "logical_and", "logical_or", "logical_xor"});
}
TEST_P(Group, UniformArithmeticUlongAndFloat) {
  check_arithmetic<uint64_t>({"mul", "and", "or", "xor"});
  check_arithmetic<float>({"mul"});
}

// vkcl declares these built-ins (clang 15 does not) only for programs that name them; one
// whose name is pasted together by a macro is built again with the declarations.
TEST_P(Group, UniformArithmeticNamedThroughAMacro) {
  Program p = build(std::string("#define WORK_GROUP(kind, op) work_group_##kind##_##op\n"
                                "kernel void f(global const int* in, global int* out) {\n") +
                        kIndex + "  out[index] = WORK_GROUP(reduce, xor)(in[index]);\n}\n",
                    "-cl-std=CL3.0");
  if (HasFatalFailure()) return;
  Kernel k = kernel(p, "f");
  std::uniform_int_distribution<int32_t> pick(0, 1 << 20);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.dims);
    std::vector<int32_t> in(s.global[0] * s.global[1] * s.global[2]);
    for (auto& x : in) x = pick(rng_);
    std::vector<int32_t> out = launch(k, s, in);
    for (const auto& group : work_groups(s.global, s.local)) {
      int32_t want = 0;
      for (size_t item : group) want ^= in[item];
      for (size_t item : group) ASSERT_EQ(out[item], want) << item;
    }
  }
}

TEST_P(Group, AllAndAny) {
  Program p = build(std::string("kernel void f(global const int* in, global int* out) {\n") +
                        kIndex +
                        "  out[index] = work_group_all(in[index]) * 2 + "
                        "work_group_any(in[index] - 1);\n}\n",
                    "-cl-std=CL3.0");
  if (HasFatalFailure()) return;
  Kernel k = kernel(p, "f");
  std::uniform_int_distribution<int> pick(0, 99);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.dims);
    size_t n = s.global[0] * s.global[1] * s.global[2];
    // Mostly 1 (true for all, false for any after - 1): groups come out both ways.
    std::vector<int32_t> in(n);
    for (auto& x : in) x = pick(rng_) < 4 ? (pick(rng_) < 50 ? 0 : 7) : 1;
    std::vector<int32_t> out = launch(k, s, in);
    for (const auto& group : work_groups(s.global, s.local)) {
      bool all = true, any = false;
      for (size_t item : group) all = all && in[item] != 0, any = any || in[item] - 1 != 0;
      for (size_t item : group) ASSERT_EQ(out[item], (all ? 2 : 0) + (any ? 1 : 0)) << item;
    }
  }
}

template <typename T>
void check_broadcast(std::mt19937& rng, const std::function<std::vector<T>(
                                            const std::string&, const Shape&, std::vector<T>)>& go) {
  // The chosen local id must exist in every work-group, the partial ones included.
  struct Case { Shape shape; const char* args; size_t id[3]; };
  const Case cases[] = {
      {kShapes[0], "3", {3, 0, 0}},
      {kShapes[1], "5, 1", {5, 1, 0}},
      {kShapes[2], "1, 1, 0", {1, 1, 0}},
      {kShapes[2], "3, 1, 0", {3, 1, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Shape& s = c.shape;
    size_t n = s.global[0] * s.global[1] * s.global[2];
    std::vector<T> in = random_values<T>(rng, n, "min");
    std::vector<T> out = go(c.args, s, in);
    if (out.empty()) return;
    for (const auto& group : work_groups(s.global, s.local)) {
      // Local linear id of the chosen item in this group: the group's own sizes, found from
      // its first item's global coordinates.
      size_t first = group.front();
      size_t gx = first % s.global[0], gy = first / s.global[0] % s.global[1],
             gz = first / s.global[0] / s.global[1];
      size_t size_x = std::min(s.local[0], s.global[0] - gx);
      size_t size_y = std::min(s.local[1], s.global[1] - gy);
      (void)gz;
      size_t linear = (c.id[2] * size_y + c.id[1]) * size_x + c.id[0];
      ASSERT_LT(linear, group.size());
      T want = in[group[linear]];
      for (size_t item : group) ASSERT_EQ(out[item], want) << "at " << item;
    }
  }
}

TEST_P(Group, Broadcast) {
  auto each = [&](auto zero) {
    using T = decltype(zero);
    check_broadcast<T>(rng_, [&](const std::string& args, const Shape& s, std::vector<T> in) {
      std::string type = type_name<T>();
      Program p = build("kernel void f(global const " + type + "* in, global " + type +
                            "* out) {\n" + kIndex + "  out[index] = work_group_broadcast(in[index], " +
                            args + ");\n}\n",
                        "-cl-std=CL3.0");
      if (HasFailure()) return std::vector<T>();
      Kernel k = kernel(p, "f");
      return launch(k, s, in);
    });
  };
  each(int32_t());
  each(uint32_t());
  each(int64_t());
  each(uint64_t());
  each(float());
}

INSTANTIATE_TEST_SUITE_P(Options, Group,
                         ::testing::Values(std::string(""), std::string("-cl-opt-disable")),
                         options_name);

}  // namespace
}  // namespace vkcl::test
