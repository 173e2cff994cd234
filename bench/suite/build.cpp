// Program build time: clCreateProgramWithSource + clBuildProgram + clCreateKernel of a small
// kernel (some implementations finish compiling only when a kernel object is made), wall clock.
//  - warm: programs with a new unique source each (it carries this process's id and time), after
//    one not timed;
//  - repeat: the source just built, built again as a new program, which a cache could serve;
//  - cold and from process start: a new process per sample with only the platform's ICD
//    visible. cold: its first program; from process start: from main to its first kernel
//    (clGetPlatformIDs, clCreateContext, the build), what an application waits for before its
//    first kernel, platform start-up included (rusticl loads its libraries there, vkcl when a
//    context is made). A platform's first program in a process shared with the others would
//    be timed with whatever the platforms before it already brought into memory (they share
//    Debian's clang and LLVM).

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "suite.h"

namespace vkcl_bench {
namespace {

enum Row { kWarm, kRepeat };

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
    for (Row row : {kWarm, kRepeat}) {
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
    return CL_SUCCESS;
  }

 private:
  Platform& platform_;
};

// The .icd files the loader reads: OCL_ICD_VENDORS (a folder or one file), else the system's.
std::vector<std::string> IcdFiles() {
  const char* env = std::getenv("OCL_ICD_VENDORS");
  std::string where = env && *env ? env : "/etc/OpenCL/vendors";
  if (where.size() > 4 && where.compare(where.size() - 4, 4, ".icd") == 0) return {where};
  std::vector<std::string> files;
  if (DIR* dir = opendir(where.c_str())) {
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".icd") == 0) files.push_back(where + "/" + name);
    }
    closedir(dir);
  }
  return files;
}

// One child process with only |icd| visible: its label and milliseconds (from start, and of
// its first program alone), or false.
bool RunChild(const std::string& icd, std::string* label, double* ms, double* build_ms) {
  const std::string command = "OCL_ICD_VENDORS='" + icd + "' /proc/" + std::to_string(getpid()) + "/exe " +
                              kStartupChild + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return false;
  char line[512] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  const int status = pclose(pipe);
  if (!read || status != 0) return false;
  std::string text = line;
  const size_t tab = text.find('\t');
  if (tab == std::string::npos) return false;
  *label = text.substr(0, tab);
  char* end = nullptr;
  *ms = std::strtod(text.c_str() + tab + 1, &end);
  *build_ms = std::strtod(end, nullptr);
  return *ms > 0 && *build_ms > 0;
}

class StartupTrial : public Trial {
 public:
  explicit StartupTrial(std::string icd) : icd_(std::move(icd)) {}
  cl_int Run(Outcome& outcome) override {
    std::string label;
    double ms = 0, build_ms = 0;
    if (!RunChild(icd_, &label, &ms, &build_ms)) {
      outcome.note = "the child process for " + icd_ + " failed";
      return CL_OUT_OF_RESOURCES;
    }
    outcome.samples[0].push_back(build_ms);
    outcome.samples[1].push_back(ms);
    return CL_SUCCESS;
  }

 private:
  std::string icd_;
};

}  // namespace

int RunStartupChild() {
  const double start = NowSeconds();
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS)
    return 1;
  cl_int error = CL_SUCCESS;
  Context context(clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error));
  if (error != CL_SUCCESS) return 1;
  const std::string source = UniqueSource();
  const char* text = source.c_str();
  const double build_start = NowSeconds();
  Program program(clCreateProgramWithSource(context.get(), 1, &text, nullptr, &error));
  if (error != CL_SUCCESS || clBuildProgram(program.get(), 1, &device, "", nullptr, nullptr) != CL_SUCCESS)
    return 1;
  Kernel kernel(clCreateKernel(program.get(), KernelName(source).c_str(), &error));
  if (error != CL_SUCCESS) return 1;
  const double end = NowSeconds();
  char name[256] = {}, vendor[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
  clGetPlatformInfo(platform, CL_PLATFORM_VENDOR, sizeof vendor - 1, vendor, nullptr);
  std::printf("%s\t%.3f\t%.3f\n", LabelFor(name, vendor).c_str(), (end - start) * 1e3,
              (end - build_start) * 1e3);
  return 0;
}

void AddStartupMeasures(std::vector<Measure>& measures, const Options&) {
  Measure measure;
  measure.rows = {{"build cold: first program of a new process (ms)", false},
                  {"build from process start: platform, context, kernel (ms)", false}};
  measure.prepare = [](Platform& platform, Outcome& outcome) -> std::unique_ptr<Trial> {
    // Which file gives which platform: one child per file, once (the warm-up).
    static std::map<std::string, std::string> icd_of;
    static bool probed = false;
    if (!probed) {
      probed = true;
      for (const std::string& icd : IcdFiles()) {
        std::string label;
        double ms = 0, build_ms = 0;
        if (RunChild(icd, &label, &ms, &build_ms) && !icd_of.count(label)) icd_of[label] = icd;
      }
    }
    auto it = icd_of.find(platform.label);
    if (it == icd_of.end()) return NotAvailable(outcome, "no .icd file of its own runs it alone");
    return std::make_unique<StartupTrial>(it->second);
  };
  measure.warm_up = false;  // the probe above ran each once
  measures.push_back(std::move(measure));
}

void AddBuildMeasures(std::vector<Measure>& measures, const Options&) {
  Measure measure;
  measure.rows = {{"build warm: new unique source (ms)", false},
                  {"build repeat: identical source again (ms)", false}};
  measure.prepare = [](Platform& platform, Outcome&) -> std::unique_ptr<Trial> {
    return std::make_unique<BuildTrial>(platform);
  };
  measures.push_back(std::move(measure));
}

}  // namespace vkcl_bench
