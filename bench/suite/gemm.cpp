// SGEMM, C = A * B with square row-major N x N matrices: an own tiled kernel (64x64 tiles of C
// per 16x16 work-group, 4x4 elements per work-item, K in steps of 16 through __local memory)
// and, when libclblast.so.1 can be loaded, CLBlast's CLBlastSgemm. 2 N^3 flops per product.
// Checked on 256 sampled elements of C against a double-precision product (relative 1e-3;
// the inputs are in [0, 1), so no sum cancels).

#include <dlfcn.h>

#include <cmath>
#include <random>

#include "suite.h"

namespace vkcl_bench {
namespace {

constexpr size_t kTile = 64;
constexpr int kCheckedElements = 256;

const char* const kSource = R"CL(
#define TS 64
#define TK 16
#define WPT 4
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void sgemm(const int n, __global const float* A, __global const float* B, __global float* C) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int col0 = get_group_id(0) * TS, row0 = get_group_id(1) * TS;
  const int lid = ty * 16 + tx;
  __local float As[TS][TK];
  __local float Bs[TK][TS];
  float acc[WPT][WPT];
  for (int i = 0; i < WPT; ++i)
    for (int j = 0; j < WPT; ++j) acc[i][j] = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TK) {
    for (int l = 0; l < 4; ++l) {
      const int e = lid + l * 256;
      As[e / TK][e % TK] = A[(row0 + e / TK) * n + k0 + e % TK];
      Bs[e / TS][e % TS] = B[(k0 + e / TS) * n + col0 + e % TS];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TK; ++k) {
      float a[WPT], b[WPT];
      for (int i = 0; i < WPT; ++i) a[i] = As[ty + 16 * i][k];
      for (int j = 0; j < WPT; ++j) b[j] = Bs[k][tx + 16 * j];
      for (int i = 0; i < WPT; ++i)
        for (int j = 0; j < WPT; ++j) acc[i][j] = mad(a[i], b[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < WPT; ++i)
    for (int j = 0; j < WPT; ++j) C[(row0 + ty + 16 * i) * n + col0 + tx + 16 * j] = acc[i][j];
}
)CL";

// CLBlast's C API (clblast_c.h), declared here so that CLBlast is only needed at run time.
enum CLBlastLayout { CLBlastLayoutRowMajor = 101 };
enum CLBlastTranspose { CLBlastTransposeNo = 111 };
using SgemmFunction = int (*)(CLBlastLayout, CLBlastTranspose, CLBlastTranspose, size_t, size_t,
                              size_t, float, cl_mem, size_t, size_t, cl_mem, size_t, size_t,
                              float, cl_mem, size_t, size_t, cl_command_queue*, cl_event*);

SgemmFunction LoadClblast(std::string& why) {
  static void* library = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    why = "libclblast.so.1 not found (Debian: apt-get install libclblast1)";
    return nullptr;
  }
  auto function = reinterpret_cast<SgemmFunction>(dlsym(library, "CLBlastSgemm"));
  if (!function) why = "CLBlastSgemm missing from libclblast.so.1";
  return function;
}

struct Matrices {
  size_t n = 0;
  std::vector<float> a, b;
};

const Matrices& InputsOfSize(size_t n) {
  static Matrices matrices;
  if (matrices.n != n) {
    matrices.n = n;
    std::mt19937 random(42);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    matrices.a.resize(n * n);
    matrices.b.resize(n * n);
    for (float& value : matrices.a) value = unit(random);
    for (float& value : matrices.b) value = unit(random);
  }
  return matrices;
}

class GemmTrial : public KernelTrial {
 public:
  using KernelTrial::KernelTrial;

  // CLBlast enqueues its own kernels (and, depending on the size, copies); it is timed by wall
  // clock around the call and clFinish so that all of its work counts.
  cl_int Run(Outcome& outcome) override {
    if (!clblast) return KernelTrial::Run(outcome);
    cl_command_queue queue = platform_.queue.get();
    const double start = NowSeconds();
    int status = clblast(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                         1.0f, buffers[0].get(), 0, n, buffers[1].get(), 0, n, 0.0f,
                         buffers[2].get(), 0, n, &queue, nullptr);
    if (status == CL_SUCCESS) status = clFinish(queue);
    if (status != CL_SUCCESS) return status;
    outcome.samples[0].push_back(work / (NowSeconds() - start));
    outcome.wall[0] = true;
    return CL_SUCCESS;
  }

  SgemmFunction clblast = nullptr;
  size_t n = 0;
};

std::unique_ptr<Trial> Prepare(Platform& platform, Outcome& outcome, size_t n, bool use_clblast) {
  auto trial = std::make_unique<GemmTrial>(platform);
  trial->n = n;
  if (use_clblast) {
    std::string why;
    trial->clblast = LoadClblast(why);
    if (!trial->clblast) return NotAvailable(outcome, why);
  } else {
    if (platform.max_work_group_size < 256)
      return NotAvailable(outcome, "needs work-groups of 256, the device allows " +
                                       std::to_string(platform.max_work_group_size));
    if (!trial->Prepare(kSource, "sgemm", "", outcome)) return nullptr;
  }
  const Matrices& inputs = InputsOfSize(n);
  const size_t bytes = n * n * sizeof(float);
  trial->buffers.resize(3);
  cl_int error = CreateBuffer(platform, CL_MEM_READ_ONLY, bytes, inputs.a.data(), trial->buffers[0]);
  if (error == CL_SUCCESS)
    error = CreateBuffer(platform, CL_MEM_READ_ONLY, bytes, inputs.b.data(), trial->buffers[1]);
  const std::vector<float> poison(n * n, std::nanf(""));
  if (error == CL_SUCCESS)
    error = CreateBuffer(platform, CL_MEM_READ_WRITE, bytes, poison.data(), trial->buffers[2]);
  if (error != CL_SUCCESS) return Failed(outcome, error, "clCreateBuffer");
  if (!use_clblast) {
    const cl_int n_arg = static_cast<cl_int>(n);
    cl_mem a = trial->buffers[0].get(), b = trial->buffers[1].get(), c = trial->buffers[2].get();
    error = SetArgs(trial->kernel.get(),
                    {{sizeof(n_arg), &n_arg}, {sizeof(a), &a}, {sizeof(b), &b}, {sizeof(c), &c}});
    if (error != CL_SUCCESS) return Failed(outcome, error, "clSetKernelArg");
    trial->dimensions = 2;
    trial->global[0] = trial->global[1] = n / 4;
    trial->local[0] = trial->local[1] = 16;
  }
  trial->work = 2.0 * n * n * n * 1e-9;
  KernelTrial* raw = trial.get();
  trial->check = [raw, &platform, n]() -> std::string {
    std::vector<float> c(n * n);
    const cl_int error = ReadBuffer(platform, raw->buffers[2], c.size() * sizeof(float), c.data());
    if (error != CL_SUCCESS) return "read back failed: " + ErrorCell(error);
    const Matrices& inputs = InputsOfSize(n);
    std::mt19937 random(7);
    for (int s = 0; s < kCheckedElements; ++s) {
      const size_t row = random() % n, column = random() % n;
      double expected = 0;
      for (size_t k = 0; k < n; ++k)
        expected += static_cast<double>(inputs.a[row * n + k]) * inputs.b[k * n + column];
      const double got = c[row * n + column];
      if (std::fabs(got - expected) <= 1e-3 * std::fabs(expected)) continue;
      return "C[" + std::to_string(row) + "][" + std::to_string(column) + "]: got " +
             std::to_string(got) + ", expected " + std::to_string(expected);
    }
    return "";
  };
  return trial;
}

}  // namespace

void AddGemmMeasures(std::vector<Measure>& measures, const Options& options) {
  size_t n = options.gemm_n ? options.gemm_n : options.quick ? 512 : 1024;
  n = std::max(kTile, n / kTile * kTile);  // the own kernel needs whole tiles
  const std::string size = std::to_string(n);
  for (bool clblast : {false, true}) {
    Measure measure;
    measure.rows = {{std::string(clblast ? "SGEMM CLBlast " : "SGEMM own 64x64 tiles ") + "N=" +
                         size + " (GFLOP/s)",
                     true}};
    measure.prepare = [n, clblast](Platform& platform, Outcome& outcome) {
      return Prepare(platform, outcome, n, clblast);
    };
    measures.push_back(std::move(measure));
  }
}

}  // namespace vkcl_bench
