// Math throughput benchmark: runs the same math kernels on every OpenCL platform the ICD loader
// shows (vkcl, Mesa rusticl, PoCL, and any other) in one process, interleaving the
// implementations run by run so that load from other processes falls on all of them alike.
// Only the OpenCL API is used. See bench/README.md.

#include <CL/cl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cl_helpers.h"
#include "math_bench_functions.h"

namespace vkcl_bench {
namespace {

struct Options {
  size_t n = size_t{1} << 22;
  int k = 16;
  int repetitions = 5;
  bool csv = false;
  std::vector<std::string> functions;  // empty: all
  std::vector<std::string> platforms;  // empty: all; otherwise labels to keep
};

constexpr size_t kVerifiedSamples = 4096;

// One OpenCL platform with the device the benchmark uses on it (its first).
struct Implementation {
  std::string label;  // "vkcl", "rusticl", "PoCL", or the platform name
  std::string platform_name;
  std::string platform_version;
  std::string device_name;
  std::string driver_version;
  cl_device_id device = nullptr;
  // False when the device's profiling timer resolution is 0: rusticl in Mesa 22.3 does that and
  // returns the constants 0, 1, 2, 3 as event timestamps, so its kernel times are unknown.
  bool profiling_usable = true;
  Context context;
  Queue queue;
  std::string setup_error;  // non-empty when the platform cannot run anything
};

// The outcome of one function on one implementation.
struct Measurement {
  enum class Status { kMeasured, kUnsupported, kError, kSkipped };
  Status status = Status::kSkipped;
  std::string note;  // build log line, error or mismatch detail
  bool wrong = false;
  std::vector<double> kernel_ms;
  std::vector<double> wall_ms;
};

bool Contains(const std::string& text, const std::string& part) {
  std::string lower_text = text, lower_part = part;
  for (char& c : lower_text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : lower_part) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower_text.find(lower_part) != std::string::npos;
}

std::string LabelFor(const std::string& name, const std::string& vendor) {
  if (Contains(name, "vkcl") || Contains(vendor, "vkcl")) return "vkcl";
  if (Contains(name, "rusticl")) return "rusticl";
  if (Contains(name, "Portable Computing Language") || Contains(vendor, "pocl")) return "PoCL";
  return name.empty() ? "unnamed" : name;
}

// The three implementations the benchmark compares come first, in a fixed order, then others.
int OrderOf(const std::string& label) {
  if (label == "vkcl") return 0;
  if (label == "rusticl") return 1;
  if (label == "PoCL") return 2;
  return 3;
}

bool Wanted(const std::vector<std::string>& filter, const std::string& name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

std::vector<Implementation> FindImplementations(const Options& options) {
  cl_uint count = 0;
  std::vector<Implementation> found;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return found;
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);

  for (cl_platform_id platform : platforms) {
    Implementation implementation;
    implementation.platform_name = PlatformString(platform, CL_PLATFORM_NAME);
    implementation.platform_version = PlatformString(platform, CL_PLATFORM_VERSION);
    implementation.label =
        LabelFor(implementation.platform_name, PlatformString(platform, CL_PLATFORM_VENDOR));
    if (!Wanted(options.platforms, implementation.label)) continue;

    cl_uint devices = 0;
    cl_int error = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &implementation.device,
                                  &devices);
    if (error != CL_SUCCESS || devices == 0) {
      implementation.setup_error = "no device (clGetDeviceIDs " + std::to_string(error) + ")";
      found.push_back(std::move(implementation));
      continue;
    }
    implementation.device_name = DeviceString(implementation.device, CL_DEVICE_NAME);
    implementation.driver_version = DeviceString(implementation.device, CL_DRIVER_VERSION);
    size_t resolution = 0;
    clGetDeviceInfo(implementation.device, CL_DEVICE_PROFILING_TIMER_RESOLUTION,
                    sizeof(resolution), &resolution, nullptr);
    implementation.profiling_usable = resolution > 0;

    implementation.context = Context(
        clCreateContext(nullptr, 1, &implementation.device, nullptr, nullptr, &error));
    if (error != CL_SUCCESS) {
      implementation.setup_error = "clCreateContext " + std::to_string(error);
      found.push_back(std::move(implementation));
      continue;
    }
    // The OpenCL 1.2 entry point, because PoCL and rusticl both have it and the properties
    // needed here are only profiling.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    implementation.queue = Queue(clCreateCommandQueue(implementation.context.get(),
                                                      implementation.device,
                                                      CL_QUEUE_PROFILING_ENABLE, &error));
#pragma GCC diagnostic pop
    if (error != CL_SUCCESS)
      implementation.setup_error = "clCreateCommandQueue " + std::to_string(error);
    found.push_back(std::move(implementation));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return OrderOf(a.label) < OrderOf(b.label);
  });
  return found;
}

std::string FirstLines(const std::string& text, size_t max_chars) {
  std::string flat;
  for (char c : text) {
    if (flat.size() >= max_chars) break;
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!flat.empty() && flat.back() != ' ') flat += ' ';
    } else {
      flat += c;
    }
  }
  while (!flat.empty() && flat.back() == ' ') flat.pop_back();
  return flat;
}

// The kernel and buffers for one function on one implementation, kept from the build to the
// check so that every timed run reuses them.
struct Prepared {
  Program program;
  Kernel kernel;
  std::vector<Buffer> inputs;
  Buffer output;
};

std::optional<Prepared> Prepare(const Implementation& implementation, const MathFunction& function,
                                const std::vector<std::vector<float>>& inputs,
                                const Options& options, Measurement& measurement) {
  auto fail = [&](Measurement::Status status, std::string note) -> std::optional<Prepared> {
    measurement.status = status;
    measurement.note = std::move(note);
    return std::nullopt;
  };
  if (!implementation.setup_error.empty())
    return fail(Measurement::Status::kError, implementation.setup_error);

  Prepared prepared;
  const std::string source = KernelSource(function);
  const char* text = source.c_str();
  cl_int error = CL_SUCCESS;
  prepared.program = Program(
      clCreateProgramWithSource(implementation.context.get(), 1, &text, nullptr, &error));
  if (error != CL_SUCCESS)
    return fail(Measurement::Status::kError, "clCreateProgramWithSource " + std::to_string(error));
  error = clBuildProgram(prepared.program.get(), 1, &implementation.device, "", nullptr, nullptr);
  if (error != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(prepared.program.get(), implementation.device, CL_PROGRAM_BUILD_LOG, 0,
                          nullptr, &size);
    std::string log(size, '\0');
    if (size)
      clGetProgramBuildInfo(prepared.program.get(), implementation.device, CL_PROGRAM_BUILD_LOG,
                            size, log.data(), nullptr);
    log.resize(std::min(log.size(), log.find('\0')));
    return fail(Measurement::Status::kUnsupported,
                "clBuildProgram " + std::to_string(error) + ": " + FirstLines(log, 160));
  }
  prepared.kernel = Kernel(clCreateKernel(prepared.program.get(), "math_bench", &error));
  if (error != CL_SUCCESS)
    return fail(Measurement::Status::kUnsupported, "clCreateKernel " + std::to_string(error));

  const size_t bytes = options.n * sizeof(float);
  for (const std::vector<float>& values : inputs) {
    prepared.inputs.emplace_back(
        clCreateBuffer(implementation.context.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                       bytes, const_cast<float*>(values.data()), &error));
    if (error != CL_SUCCESS)
      return fail(Measurement::Status::kError, "clCreateBuffer " + std::to_string(error));
  }
  // Poisoned with NaN, so an element the kernel never writes fails the check.
  const std::vector<float> poison(options.n, std::nanf(""));
  prepared.output =
      Buffer(clCreateBuffer(implementation.context.get(), CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR,
                            bytes, const_cast<float*>(poison.data()), &error));
  if (error != CL_SUCCESS)
    return fail(Measurement::Status::kError, "clCreateBuffer " + std::to_string(error));

  cl_uint index = 0;
  for (const Buffer& buffer : prepared.inputs) {
    cl_mem handle = buffer.get();
    error |= clSetKernelArg(prepared.kernel.get(), index++, sizeof(handle), &handle);
  }
  cl_mem output = prepared.output.get();
  const float feedback = 0.0f;
  const cl_int k = options.k;
  error |= clSetKernelArg(prepared.kernel.get(), index++, sizeof(output), &output);
  error |= clSetKernelArg(prepared.kernel.get(), index++, sizeof(feedback), &feedback);
  error |= clSetKernelArg(prepared.kernel.get(), index++, sizeof(k), &k);
  if (error != CL_SUCCESS) return fail(Measurement::Status::kError, "clSetKernelArg failed");

  measurement.status = Measurement::Status::kMeasured;
  return prepared;
}

// One dispatch over all n elements. Returns false (and records why) on an OpenCL error.
bool TimeOneRun(const Implementation& implementation, const Prepared& prepared,
                const Options& options, Measurement& measurement, bool record) {
  const size_t global_size = options.n;
  cl_event raw_event = nullptr;
  const auto start = std::chrono::steady_clock::now();
  cl_int error = clEnqueueNDRangeKernel(implementation.queue.get(), prepared.kernel.get(), 1,
                                        nullptr, &global_size, nullptr, 0, nullptr, &raw_event);
  if (error == CL_SUCCESS) error = clFinish(implementation.queue.get());
  const auto end = std::chrono::steady_clock::now();
  Event event(raw_event);
  if (error != CL_SUCCESS) {
    measurement.status = Measurement::Status::kError;
    measurement.note = "enqueue/finish " + std::to_string(error);
    return false;
  }
  cl_ulong started = 0, ended = 0;
  error = clGetEventProfilingInfo(event.get(), CL_PROFILING_COMMAND_START, sizeof(started),
                                  &started, nullptr);
  if (error == CL_SUCCESS)
    error = clGetEventProfilingInfo(event.get(), CL_PROFILING_COMMAND_END, sizeof(ended), &ended,
                                    nullptr);
  if (error != CL_SUCCESS) {
    measurement.status = Measurement::Status::kError;
    measurement.note = "clGetEventProfilingInfo " + std::to_string(error);
    return false;
  }
  if (record && implementation.profiling_usable && ended > started)
    measurement.kernel_ms.push_back(static_cast<double>(ended - started) * 1e-6);
  if (record)
    measurement.wall_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  return true;
}

// Compares sampled elements with the double-precision reference; marks the measurement wrong
// and notes the first mismatch if any element is out of tolerance.
void Verify(const Implementation& implementation, const Prepared& prepared,
            const MathFunction& function, const std::vector<std::vector<float>>& inputs,
            const Options& options, Measurement& measurement) {
  std::vector<float> result(options.n);
  cl_int error = clEnqueueReadBuffer(implementation.queue.get(), prepared.output.get(), CL_TRUE, 0,
                                     options.n * sizeof(float), result.data(), 0, nullptr,
                                     nullptr);
  if (error != CL_SUCCESS) {
    measurement.status = Measurement::Status::kError;
    measurement.note = "clEnqueueReadBuffer " + std::to_string(error);
    return;
  }
  const size_t samples = std::min(kVerifiedSamples, options.n);
  size_t mismatches = 0;
  for (size_t s = 0; s < samples; ++s) {
    // Spread over the whole array, so every part of the dispatch is looked at.
    const size_t i = s * options.n / samples;
    double args[3] = {};
    for (size_t a = 0; a < inputs.size(); ++a) args[a] = inputs[a][i];
    const double expected = function.reference(args);
    const double got = result[i];
    const double allowed =
        function.relative_tolerance * std::fabs(expected) + function.absolute_tolerance;
    if (std::isfinite(got) && std::fabs(got - expected) <= allowed) continue;
    if (mismatches++ == 0) {
      std::ostringstream note;
      note.precision(9);
      note << "element " << i << ": got " << got << ", expected " << expected;
      measurement.note = note.str();
    }
  }
  if (mismatches) {
    measurement.wrong = true;
    measurement.note += " (" + std::to_string(mismatches) + " of " + std::to_string(samples) +
                        " samples out of tolerance)";
  }
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// Runs one function on every implementation: all builds first (not timed), one warm-up each,
// then the timed repetitions interleaved across implementations.
std::vector<Measurement> MeasureFunction(const std::vector<Implementation>& implementations,
                                         const MathFunction& function, const Options& options) {
  std::vector<std::vector<float>> inputs;
  for (size_t i = 0; i < function.inputs.size(); ++i)
    inputs.push_back(RandomInputs(function.inputs[i], options.n, 1234u + static_cast<uint32_t>(i)));

  std::vector<Measurement> measurements(implementations.size());
  std::vector<std::optional<Prepared>> prepared(implementations.size());
  for (size_t p = 0; p < implementations.size(); ++p) {
    prepared[p] = Prepare(implementations[p], function, inputs, options, measurements[p]);
    if (prepared[p] && !TimeOneRun(implementations[p], *prepared[p], options, measurements[p],
                                   /*record=*/false))
      prepared[p].reset();
  }
  for (int r = 0; r < options.repetitions; ++r) {
    for (size_t p = 0; p < implementations.size(); ++p) {
      if (prepared[p] &&
          !TimeOneRun(implementations[p], *prepared[p], options, measurements[p], true))
        prepared[p].reset();
    }
  }
  for (size_t p = 0; p < implementations.size(); ++p)
    if (prepared[p]) Verify(implementations[p], *prepared[p], function, inputs, options,
                            measurements[p]);
  return measurements;
}

// Kernel times are only recorded from a usable profiling timer; without one the kernel time is
// unknown rather than zero.
bool HasKernelTime(const Measurement& measurement) { return !measurement.kernel_ms.empty(); }

std::string Cell(const Measurement& measurement, bool kernel_time) {
  switch (measurement.status) {
    case Measurement::Status::kUnsupported: return "unsupported";
    case Measurement::Status::kError: return "error";
    case Measurement::Status::kSkipped: return "-";
    case Measurement::Status::kMeasured: break;
  }
  if (kernel_time && !HasKernelTime(measurement)) return measurement.wrong ? "n/a WRONG" : "n/a";
  char text[64];
  std::snprintf(text, sizeof(text), "%.2f%s",
                Median(kernel_time ? measurement.kernel_ms : measurement.wall_ms),
                measurement.wrong ? " WRONG" : "");
  return text;
}

bool Comparable(const Measurement& measurement, bool kernel_time) {
  return measurement.status == Measurement::Status::kMeasured && !measurement.wrong &&
         (!kernel_time || HasKernelTime(measurement));
}

// vkcl's time divided by |label|'s, or "-" when either is missing, failed or wrong: a wrong
// result has no time worth comparing.
std::string Ratio(const std::vector<Implementation>& implementations,
                  const std::vector<Measurement>& row, const std::string& label,
                  bool kernel_time) {
  const Measurement* vkcl = nullptr;
  const Measurement* other = nullptr;
  for (size_t p = 0; p < implementations.size(); ++p) {
    if (implementations[p].label == "vkcl" && !vkcl) vkcl = &row[p];
    if (implementations[p].label == label && !other) other = &row[p];
  }
  if (!vkcl || !other || !Comparable(*vkcl, kernel_time) ||
      !Comparable(*other, kernel_time))
    return "-";
  auto median = [&](const Measurement& m) { return Median(kernel_time ? m.kernel_ms : m.wall_ms); };
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", median(*vkcl) / median(*other));
  return text;
}

void PrintTable(const std::vector<Implementation>& implementations,
                const std::vector<const MathFunction*>& functions,
                const std::vector<std::vector<Measurement>>& rows, bool kernel_time) {
  std::vector<std::string> header = {"function"};
  for (const Implementation& implementation : implementations)
    header.push_back(implementation.label + " ms");
  header.push_back("vkcl/rusticl");
  header.push_back("vkcl/PoCL");

  std::vector<std::vector<std::string>> cells = {header};
  for (size_t f = 0; f < functions.size(); ++f) {
    std::vector<std::string> line = {functions[f]->name};
    for (const Measurement& measurement : rows[f]) line.push_back(Cell(measurement, kernel_time));
    line.push_back(Ratio(implementations, rows[f], "rusticl", kernel_time));
    line.push_back(Ratio(implementations, rows[f], "PoCL", kernel_time));
    cells.push_back(line);
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& line : cells)
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  for (size_t l = 0; l < cells.size(); ++l) {
    std::string text;
    for (size_t c = 0; c < cells[l].size(); ++c) {
      if (c) text += " | ";
      std::string cell = cells[l][c];
      // Names left, numbers right, as is easiest to read down a column.
      const size_t pad = widths[c] - cell.size();
      text += c == 0 ? cell + std::string(pad, ' ') : std::string(pad, ' ') + cell;
    }
    std::printf("%s\n", text.c_str());
    if (l == 0) {
      std::string rule;
      for (size_t c = 0; c < widths.size(); ++c) rule += (c ? "-|-" : "") + std::string(widths[c], '-');
      std::printf("%s\n", rule.c_str());
    }
  }
}

std::string LoadAverage() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(file >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

void PrintReport(const std::vector<Implementation>& implementations,
                 const std::vector<const MathFunction*>& functions,
                 const std::vector<std::vector<Measurement>>& rows, const Options& options,
                 const std::string& load_before) {
  std::printf("vkcl math throughput benchmark\n");
  std::printf(
      "n = %zu floats; each work-item applies the function k = %d times in a dependent chain\n"
      "(argument = input + feedback * previous result, feedback = 0 passed at run time) and\n"
      "writes one float. Local size chosen by each implementation. Build time excluded; one\n"
      "warm-up run, then %d timed runs interleaved across implementations; medians shown.\n"
      "Results checked on %zu sampled elements against a double-precision reference\n"
      "(relative 1e-5; native_sin absolute 1e-2); WRONG marks a failed check.\n"
      "Ratios are vkcl time / other time: < 1 means vkcl is faster.\n"
      "Load average before / after: %s / %s\n\n",
      options.n, options.k, options.repetitions, std::min(kVerifiedSamples, options.n),
      load_before.c_str(), LoadAverage().c_str());
  for (const Implementation& implementation : implementations) {
    std::printf("%-8s platform \"%s\" (%s), device \"%s\", driver %s%s%s\n",
                implementation.label.c_str(), implementation.platform_name.c_str(),
                implementation.platform_version.c_str(), implementation.device_name.c_str(),
                implementation.driver_version.c_str(),
                implementation.setup_error.empty() ? "" : ": ",
                implementation.setup_error.c_str());
  }
  for (size_t p = 0; p < implementations.size(); ++p) {
    const bool measured_without_time = std::any_of(rows.begin(), rows.end(), [&](const auto& row) {
      return row[p].status == Measurement::Status::kMeasured && !HasKernelTime(row[p]);
    });
    if (measured_without_time)
      std::printf("%-8s has no usable profiling timer (resolution 0 or empty intervals): kernel "
                  "time n/a, compare wall times\n", implementations[p].label.c_str());
  }
  std::printf("\nKernel time, ms (profiling events: COMMAND_END - COMMAND_START)\n");
  PrintTable(implementations, functions, rows, true);
  std::printf("\nWall time, ms (clEnqueueNDRangeKernel + clFinish)\n");
  PrintTable(implementations, functions, rows, false);

  bool any_note = false;
  for (size_t f = 0; f < functions.size(); ++f) {
    for (size_t p = 0; p < implementations.size(); ++p) {
      const Measurement& measurement = rows[f][p];
      if (measurement.note.empty()) continue;
      if (!any_note) std::printf("\nNotes\n");
      any_note = true;
      std::printf("  %s on %s: %s\n", functions[f]->name.c_str(),
                  implementations[p].label.c_str(), measurement.note.c_str());
    }
  }
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void PrintCsv(const std::vector<Implementation>& implementations,
              const std::vector<const MathFunction*>& functions,
              const std::vector<std::vector<Measurement>>& rows, const Options& options) {
  std::printf("function,implementation,device,n,k,repetitions,status,kernel_ms,wall_ms,note\n");
  for (size_t f = 0; f < functions.size(); ++f) {
    for (size_t p = 0; p < implementations.size(); ++p) {
      const Measurement& measurement = rows[f][p];
      std::string status = "measured", kernel = "", wall = "";
      switch (measurement.status) {
        case Measurement::Status::kUnsupported: status = "unsupported"; break;
        case Measurement::Status::kError: status = "error"; break;
        case Measurement::Status::kSkipped: status = "skipped"; break;
        case Measurement::Status::kMeasured:
          status = measurement.wrong ? "wrong" : "ok";
          if (HasKernelTime(measurement)) kernel = std::to_string(Median(measurement.kernel_ms));
          wall = std::to_string(Median(measurement.wall_ms));
          break;
      }
      std::printf("%s,%s,%s,%zu,%d,%d,%s,%s,%s,%s\n", functions[f]->name.c_str(),
                  CsvField(implementations[p].label).c_str(),
                  CsvField(implementations[p].device_name).c_str(), options.n, options.k,
                  options.repetitions, status.c_str(), kernel.c_str(), wall.c_str(),
                  CsvField(measurement.note).c_str());
    }
  }
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

void PrintUsage(const char* program) {
  std::printf(
      "usage: %s [--n N] [--k K] [--reps R] [--csv] [--functions f1,f2] [--platforms p1,p2]\n"
      "  --n N          floats per array (default 4194304 = 1<<22)\n"
      "  --k K          dependent applications of the function per work-item (default 16)\n"
      "  --reps R       timed runs per function and implementation (default 5)\n"
      "  --csv          print one CSV row per function and implementation instead of tables\n"
      "  --functions    subset of: sin,exp,log,pow,sqrt,fma,native_sin,baseline\n"
      "  --platforms    subset of labels: vkcl,rusticl,PoCL or another platform's name\n"
      "All OpenCL platforms the ICD loader shows are measured; bench/run-math-bench.sh sets\n"
      "the loader up so that vkcl, rusticl and PoCL are all visible.\n",
      program);
}

std::optional<Options> ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    auto positive = [&](long long& out) {
      auto text = value();
      if (!text) return false;
      char* end = nullptr;
      out = std::strtoll(text->c_str(), &end, 0);
      return *end == '\0' && out > 0;
    };
    long long number = 0;
    if (argument == "--csv") {
      options.csv = true;
    } else if (argument == "--n" && positive(number)) {
      options.n = static_cast<size_t>(number);
    } else if (argument == "--k" && positive(number) && number <= 1 << 20) {
      options.k = static_cast<int>(number);
    } else if (argument == "--reps" && positive(number) && number <= 1000) {
      options.repetitions = static_cast<int>(number);
    } else if (argument == "--functions" && i + 1 < argc) {
      options.functions = SplitList(argv[++i]);
    } else if (argument == "--platforms" && i + 1 < argc) {
      options.platforms = SplitList(argv[++i]);
    } else {
      return std::nullopt;
    }
  }
  for (const std::string& name : options.functions) {
    const auto& all = MathFunctions();
    if (std::none_of(all.begin(), all.end(), [&](const auto& f) { return f.name == name; })) {
      std::fprintf(stderr, "unknown function: %s\n", name.c_str());
      return std::nullopt;
    }
  }
  return options;
}

}  // namespace
}  // namespace vkcl_bench

int main(int argc, char** argv) {
  using namespace vkcl_bench;
  const std::optional<Options> options = ParseOptions(argc, argv);
  if (!options) {
    PrintUsage(argv[0]);
    return 2;
  }
  const std::string load_before = LoadAverage();
  std::vector<Implementation> implementations = FindImplementations(*options);
  if (implementations.empty()) {
    std::fprintf(stderr,
                 "No OpenCL platform found. Run through bench/run-math-bench.sh, or set "
                 "OCL_ICD_VENDORS to a folder of .icd files.\n");
    return 1;
  }
  std::vector<const MathFunction*> functions;
  for (const MathFunction& function : MathFunctions())
    if (Wanted(options->functions, function.name)) functions.push_back(&function);

  std::vector<std::vector<Measurement>> rows;
  for (const MathFunction* function : functions) {
    if (!options->csv) std::fprintf(stderr, "measuring %s\n", function->name.c_str());
    rows.push_back(MeasureFunction(implementations, *function, *options));
  }
  if (options->csv)
    PrintCsv(implementations, functions, rows, *options);
  else
    PrintReport(implementations, functions, rows, *options, load_before);
  return 0;
}
