// vkcl_bench: memory, image, compute, GEMM, reduction/scan, launch, transfer and build measures run on
// every OpenCL platform the ICD loader shows, in one process, with the repetitions of each
// measure interleaved across platforms. See bench/README.md.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <optional>
#include <sstream>

#include "suite.h"

namespace vkcl_bench {
namespace {

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

void PrintUsage(const char* program) {
  std::printf(
      "usage: %s [--quick] [--csv] [--reps R] [--only s1,s2] [--platforms p1,p2] [--gemm-n N]\n"
      "  --quick        smaller sizes (a whole run on lavapipe with 3 platforms: minutes)\n"
      "  --csv          one CSV line per row and platform instead of the table\n"
      "  --reps R       timed repetitions per measure and platform (default 5, --quick 3)\n"
      "  --only         run only rows whose name contains one of these (ignoring case),\n"
      "                 e.g. --only bandwidth,sgemm\n"
      "  --platforms    labels to keep: vkcl,rusticl,PoCL,NVIDIA or another platform's name\n"
      "  --gemm-n N     SGEMM matrix size (default 1024, --quick 512; rounded to 64)\n"
      "All OpenCL platforms the ICD loader shows are measured; bench/run-bench.sh sets the\n"
      "loader up with vkcl, rusticl and PoCL (or a vendors folder you give it).\n",
      program);
}

std::optional<Options> ParseOptions(int argc, char** argv) {
  Options options;
  bool reps_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool has_value = i + 1 < argc;
    auto number = [&](long long low, long long high) -> std::optional<long long> {
      char* end = nullptr;
      const long long value = std::strtoll(argv[++i], &end, 0);
      if (*end != '\0' || value < low || value > high) return std::nullopt;
      return value;
    };
    if (argument == "--quick") {
      options.quick = true;
    } else if (argument == "--csv") {
      options.csv = true;
    } else if (argument == "--reps" && has_value) {
      const auto value = number(1, 1000);
      if (!value) return std::nullopt;
      options.repetitions = static_cast<int>(*value);
      reps_given = true;
    } else if (argument == "--gemm-n" && has_value) {
      const auto value = number(64, 16384);
      if (!value) return std::nullopt;
      options.gemm_n = static_cast<size_t>(*value);
    } else if (argument == "--only" && has_value) {
      options.only = SplitList(argv[++i]);
    } else if (argument == "--platforms" && has_value) {
      options.platforms = SplitList(argv[++i]);
    } else {
      return std::nullopt;
    }
  }
  if (options.quick && !reps_given) options.repetitions = 3;
  return options;
}

std::string LoadAverage() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(file >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

// Runs one measure on every platform: preparation (not timed), one warm-up run, then the timed
// repetitions round robin across platforms, then the checks. A failure on one platform ends
// that platform's part only.
std::vector<Outcome> RunMeasure(std::vector<Platform>& platforms, const Measure& measure,
                                const Options& options) {
  const size_t rows = measure.rows.size();
  std::vector<Outcome> outcomes(platforms.size());
  std::vector<std::unique_ptr<Trial>> trials(platforms.size());
  for (size_t p = 0; p < platforms.size(); ++p) {
    Outcome& outcome = outcomes[p];
    outcome.samples.resize(rows);
    outcome.marks.resize(rows);
    outcome.wall.resize(rows);
    if (!platforms[p].setup_error.empty()) {
      outcome.failure = "err";
      outcome.note = platforms[p].setup_error;
      continue;
    }
    try {
      trials[p] = measure.prepare(platforms[p], outcome);
    } catch (const std::exception& exception) {
      outcome.failure = "err";
      outcome.note = std::string("host: ") + exception.what();
    }
  }
  auto run = [&](size_t p, Outcome& into) {
    cl_int error = CL_SUCCESS;
    try {
      error = trials[p]->Run(into);
    } catch (const std::exception& exception) {
      outcomes[p].note = std::string("host: ") + exception.what();
      error = -9999;
    }
    if (error == CL_SUCCESS) return;
    outcomes[p].failure = ErrorCell(error);
    if (outcomes[p].note.empty()) outcomes[p].note = "run returned " + std::to_string(error);
    trials[p].reset();
  };
  if (measure.warm_up) {
    for (size_t p = 0; p < platforms.size(); ++p) {
      if (!trials[p]) continue;
      Outcome scratch;
      scratch.samples.resize(rows);
      scratch.marks.resize(rows);
      scratch.wall.resize(rows);
      run(p, scratch);
    }
  }
  // Runs of a few milliseconds on llvmpipe come out twice as slow now and then, for tens of
  // milliseconds at a time: its two worker threads woken onto one core while the other is
  // busy, where they stay (the scheduler does not move a thread that has just run). So a
  // measure of the suite's repetitions goes on until each platform has spent kMinSeconds on
  // it, up to kMaxRepetitions.
  constexpr double kMinSeconds = 0.25;
  constexpr int kMaxRepetitions = 40;
  const bool own = measure.repetitions != 0;
  const int repetitions = own ? measure.repetitions : options.repetitions;
  std::vector<double> spent(platforms.size(), 0.0);
  auto more = [&] {
    for (size_t p = 0; p < platforms.size(); ++p)
      if (trials[p] && spent[p] < kMinSeconds) return true;
    return false;
  };
  for (int r = 0; r < repetitions || (!own && r < kMaxRepetitions && more()); ++r)
    for (size_t p = 0; p < platforms.size(); ++p) {
      if (!trials[p]) continue;
      const double start = NowSeconds();
      run(p, outcomes[p]);
      spent[p] += NowSeconds() - start;
    }
  for (size_t p = 0; p < platforms.size(); ++p)
    if (trials[p]) trials[p]->Check(outcomes[p]);
  return outcomes;
}

}  // namespace
}  // namespace vkcl_bench

int main(int argc, char** argv) {
  using namespace vkcl_bench;
  if (argc == 2 && std::string(argv[1]) == kStartupChild) return RunStartupChild();
  const std::optional<Options> options = ParseOptions(argc, argv);
  if (!options) {
    PrintUsage(argv[0]);
    return 2;
  }
  const std::string load_before = LoadAverage();
  std::vector<Platform> platforms = FindPlatforms(*options);
  if (platforms.empty()) {
    std::fprintf(stderr, "No OpenCL platform found. Run through bench/run-bench.sh, or set "
                         "OCL_ICD_VENDORS to a folder of .icd files.\n");
    return 1;
  }
  // Build first: before other measures have brought clang and LLVM into memory.
  std::vector<Measure> all;
  AddBuildMeasures(all, *options);
  AddStartupMeasures(all, *options);
  AddMemoryMeasures(all, *options);
  AddImageMeasures(all, *options);
  AddComputeMeasures(all, *options);
  AddConstantMeasures(all, *options);
  AddGemmMeasures(all, *options);
  AddScanMeasures(all, *options);
  AddLaunchMeasures(all, *options);
  AddQueueMeasures(all, *options);
  AddCommandBufferMeasures(all, *options);
  AddTransferMeasures(all, *options);

  std::vector<Measure> measures;
  std::vector<std::vector<Outcome>> results;
  const double start = NowSeconds();
  for (Measure& measure : all) {
    bool wanted = false;
    for (const RowSpec& row : measure.rows) wanted = wanted || RowWanted(row.name, *options);
    if (!wanted) continue;
    std::fprintf(stderr, "[%6.1f s] %s\n", NowSeconds() - start, measure.rows[0].name.c_str());
    results.push_back(RunMeasure(platforms, measure, *options));
    PrintProgress(platforms, measure, results.back());
    measures.push_back(std::move(measure));
  }
  std::fprintf(stderr, "[%6.1f s] done\n", NowSeconds() - start);
  PrintResults(platforms, measures, results, *options, load_before + " / " + LoadAverage());
  return 0;
}
