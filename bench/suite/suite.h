// Shared pieces of vkcl_bench, the benchmark suite that runs the same OpenCL work on every
// platform the ICD loader shows and prints one table (see bench/README.md).
#pragma once

#include <CL/cl.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../cl_helpers.h"

namespace vkcl_bench {

struct Options {
  bool quick = false;
  bool csv = false;
  int repetitions = 5;
  size_t gemm_n = 0;                   // 0: 1024, or 512 with --quick
  std::vector<std::string> only;       // row-name substrings; empty: every row
  std::vector<std::string> platforms;  // labels to keep; empty: all
};

// One OpenCL platform with the device the suite uses on it (its first).
struct Platform {
  std::string label;  // "vkcl", "rusticl", "PoCL", "NVIDIA", or the platform name
  std::string platform_name;
  std::string platform_version;
  std::string device_name;
  std::string driver_version;
  cl_device_id device = nullptr;
  cl_device_type device_type = 0;
  cl_uint compute_units = 1;
  size_t max_work_group_size = 1;
  cl_ulong global_memory = 0;
  cl_ulong max_allocation = 0;
  bool fp64 = false;
  bool fp16 = false;
  // False when the profiling timer cannot be trusted: rusticl in Mesa 22.3 reports a resolution
  // of 0 and returns the constants 0, 1, 2, 3 as timestamps.
  bool profiling_usable = true;
  Context context;
  Queue queue;                // in order, CL_QUEUE_PROFILING_ENABLE
  std::string setup_error;    // non-empty when the platform cannot run anything
};

// Finds the platforms the loader shows (filtered by |options.platforms|), vkcl first.
std::vector<Platform> FindPlatforms(const Options& options);
// "vkcl", "rusticl", "PoCL", "NVIDIA", or the platform name.
std::string LabelFor(const std::string& platform_name, const std::string& vendor);

// A row of the table: the name carries the unit.
struct RowSpec {
  std::string name;
  bool higher_is_better = true;
};

// What one measure gave on one platform, per row of the measure.
struct Outcome {
  std::vector<std::vector<double>> samples;  // per row, in the row's unit
  std::vector<std::string> marks;            // per row: "WRONG", "not monotonic": no ratio
  std::vector<bool> wall;  // per row: timed by wall clock (no usable profiling timer)
  std::string failure;     // the whole cell when the measure could not run: "n/a", "err -5"
  std::string note;        // shown under the table
};

// The work of one measure on one platform, kept from preparation to the check so that every
// repetition reuses its programs and buffers.
class Trial {
 public:
  virtual ~Trial() = default;
  // One repetition: appends samples to |outcome|. Returns an OpenCL error code on failure.
  virtual cl_int Run(Outcome& outcome) = 0;
  // After the repetitions: compares the results with the CPU reference and marks |outcome|.
  virtual void Check(Outcome& outcome) {}
};

// One or more rows measured together. |prepare| returns null, after setting
// |outcome.failure| and |outcome.note|, when the measure cannot run on the platform.
struct Measure {
  std::vector<RowSpec> rows;
  bool warm_up = true;  // one unrecorded run first
  int repetitions = 0;  // 0: the suite's
  std::function<std::unique_ptr<Trial>(Platform&, Outcome&)> prepare;
};

void AddBuildMeasures(std::vector<Measure>& measures, const Options& options);
void AddStartupMeasures(std::vector<Measure>& measures, const Options& options);
// The child side of the startup measure (argv[1] == kStartupChild): times, from main, the
// first platform's first kernel and prints "<label>\t<ms>". Returns the exit status.
inline constexpr const char* kStartupChild = "--startup-child";
int RunStartupChild();
void AddMemoryMeasures(std::vector<Measure>& measures, const Options& options);
void AddComputeMeasures(std::vector<Measure>& measures, const Options& options);
void AddConstantMeasures(std::vector<Measure>& measures, const Options& options);
void AddGemmMeasures(std::vector<Measure>& measures, const Options& options);
void AddScanMeasures(std::vector<Measure>& measures, const Options& options);
void AddLaunchMeasures(std::vector<Measure>& measures, const Options& options);
void AddQueueMeasures(std::vector<Measure>& measures, const Options& options);
void AddCommandBufferMeasures(std::vector<Measure>& measures, const Options& options);
void AddTransferMeasures(std::vector<Measure>& measures, const Options& options);
void AddImageMeasures(std::vector<Measure>& measures, const Options& options);

// Prints the table (or CSV) of |rows| x |platforms|; results[m][p] belongs to measures[m].
void PrintResults(const std::vector<Platform>& platforms, const std::vector<Measure>& measures,
                  const std::vector<std::vector<Outcome>>& results, const Options& options,
                  const std::string& load_before);

// Prints |measure|'s rows with each platform's median to stderr.
void PrintProgress(const std::vector<Platform>& platforms, const Measure& measure,
                   const std::vector<Outcome>& outcomes);

// ---- helpers shared by the measures (common.cpp) ----

std::string ErrorCell(cl_int error);  // "err -5"

// Sets |outcome| to "n/a" with |why| as the note and returns null, for prepare functions.
std::nullptr_t NotAvailable(Outcome& outcome, const std::string& why);
// Sets |outcome| to "err <code>" with |what| as the note and returns null.
std::nullptr_t Failed(Outcome& outcome, cl_int error, const std::string& what);

// Builds |source| on |platform| with |build_options|; on failure returns the error code and
// puts the first line of the build log into |log|.
cl_int BuildProgram(const Platform& platform, const std::string& source,
                    const std::string& build_options, Program& program, std::string& log);

// Creates a buffer of |bytes|, initialised from |data| when it is not null.
cl_int CreateBuffer(const Platform& platform, cl_mem_flags flags, size_t bytes, const void* data,
                    Buffer& buffer);

// Sets kernel arguments in order: each is (size, pointer).
cl_int SetArgs(cl_kernel kernel, std::initializer_list<std::pair<size_t, const void*>> args);

// Runs |enqueue| (which enqueues one or more commands on the platform's queue and hands back
// their events), waits with clFinish and returns the elapsed seconds: the sum of the commands'
// COMMAND_END - COMMAND_START when the profiling timer works, else the wall clock around the
// enqueue and clFinish (|wall| is then set).
struct Timing {
  cl_int error = CL_SUCCESS;
  double seconds = 0;
  bool wall = false;
};
Timing TimeCommands(const Platform& platform,
                    const std::function<cl_int(std::vector<cl_event>&)>& enqueue);

// Reads |bytes| of |buffer| from its start into |data| (blocking).
cl_int ReadBuffer(const Platform& platform, const Buffer& buffer, size_t bytes, void* data);

// The common shape of a throughput measure: one NDRange of |kernel| per repetition, whose
// sample is |work| / seconds (e.g. gigabytes for GB/s), and |check| afterwards, which returns
// an empty string when the results are right and otherwise what was wrong.
class KernelTrial : public Trial {
 public:
  explicit KernelTrial(Platform& platform) : platform_(platform) {}
  cl_int Run(Outcome& outcome) override;
  void Check(Outcome& outcome) override;

  // Builds |source| and creates |kernel_name|; on failure fills |outcome| and returns false.
  bool Prepare(const std::string& source, const std::string& kernel_name,
               const std::string& build_options, Outcome& outcome);

  Platform& platform_;
  Program program;
  Kernel kernel;
  std::vector<Buffer> buffers;
  cl_uint dimensions = 1;
  size_t global[2] = {1, 1};
  size_t local[2] = {0, 0};  // {0, 0}: the implementation chooses
  double work = 0;
  std::function<std::string()> check;
};

// Whether --only selects the row named |name| (any of its substrings, ignoring case).
bool RowWanted(const std::string& name, const Options& options);

double Median(std::vector<double> values);
double NowSeconds();  // steady clock
bool ContainsIgnoringCase(const std::string& text, const std::string& part);

}  // namespace vkcl_bench
