// Program build time: clCreateProgramWithSource + clBuildProgram + clCreateKernel of a small
// kernel (some implementations finish compiling only when a kernel object is made), wall clock.
//  - cold: the first program this process builds on the platform (run before every other
//    measure), with a source no cache can have seen (it carries this process's id and time);
//  - warm: later programs with a new unique source each;
//  - repeat: the source just built, built again as a new program, which a cache could serve.

#include <unistd.h>

#include <chrono>

#include "suite.h"

namespace vkcl_bench {
namespace {

enum Row { kCold, kWarm, kRepeat };

std::string UniqueSource() {
  static long counter = 0;
  const long stamp =
      std::chrono::system_clock::now().time_since_epoch() / std::chrono::microseconds(1);
  const std::string salt =
      std::to_string(getpid()) + "_" + std::to_string(stamp) + "_" + std::to_string(counter++);
  return "// vkcl_bench build " + salt + "\n"
         "#define SALT " + std::to_string((stamp + counter) % 100000) + "\n"
         "__kernel void smooth_" + salt + "(__global const float* in, __global float* out,\n"
         "                                   int n, float width) {\n"
         "  const int i = get_global_id(0);\n"
         "  if (i >= n) return;\n"
         "  float sum = 0.0f, weights = 0.0f;\n"
         "  for (int k = -4; k <= 4; ++k) {\n"
         "    const int j = clamp(i + k, 0, n - 1);\n"
         "    const float w = exp(-0.5f * k * k / (width * width));\n"
         "    sum += w * in[j];\n"
         "    weights += w;\n"
         "  }\n"
         "  float value = sum / weights;\n"
         "  if (isnan(value)) value = 0.0f;\n"
         "  value = select(value, sqrt(fabs(value)), value < 0.0f);\n"
         "  out[i] = value + (float)SALT * 1e-30f;\n"
         "}\n";
}

std::string KernelName(const std::string& source) {
  const size_t start = source.find("smooth_");
  return source.substr(start, source.find('(', start) - start);
}

class BuildTrial : public Trial {
 public:
  explicit BuildTrial(Platform& platform) : platform_(platform) {}

  cl_int Run(Outcome& outcome) override {
    const std::string source = UniqueSource();
    for (Row row : {first_ ? kCold : kWarm, kRepeat}) {
      Program program;
      std::string log;
      const double start = NowSeconds();
      cl_int error = BuildProgram(platform_, source, "", program, log);
      if (error == CL_SUCCESS) {
        Kernel kernel(clCreateKernel(program.get(), KernelName(source).c_str(), &error));
      }
      if (error != CL_SUCCESS) {
        outcome.note = log.empty() ? "clCreateKernel " + std::to_string(error) : log;
        return error;
      }
      outcome.samples[row].push_back((NowSeconds() - start) * 1e3);
    }
    first_ = false;
    return CL_SUCCESS;
  }

 private:
  Platform& platform_;
  bool first_ = true;
};

}  // namespace

void AddBuildMeasures(std::vector<Measure>& measures, const Options& options) {
  Measure measure;
  measure.rows = {{"build cold: first program in process (ms)", false},
                  {"build warm: new unique source (ms)", false},
                  {"build repeat: identical source again (ms)", false}};
  measure.warm_up = false;  // the first run is the cold build
  measure.repetitions = options.repetitions + 1;
  measure.prepare = [](Platform& platform, Outcome&) -> std::unique_ptr<Trial> {
    return std::make_unique<BuildTrial>(platform);
  };
  measures.push_back(std::move(measure));
}

}  // namespace vkcl_bench
