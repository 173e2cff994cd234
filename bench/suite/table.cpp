// The report: one table with a row per measure and a column per platform, then ratio columns
// of vkcl against each other platform, oriented so that > 1 always means vkcl is better.

#include <algorithm>
#include <cstdio>

#include "suite.h"

namespace vkcl_bench {

bool RowWanted(const std::string& name, const Options& options) {
  if (options.only.empty()) return true;
  return std::any_of(options.only.begin(), options.only.end(),
                     [&](const std::string& part) { return ContainsIgnoringCase(name, part); });
}

namespace {

std::string Number(double value) {
  char text[32];
  const double magnitude = value < 0 ? -value : value;
  if (magnitude >= 100)
    std::snprintf(text, sizeof(text), "%.0f", value);
  else if (magnitude >= 10)
    std::snprintf(text, sizeof(text), "%.1f", value);
  else if (magnitude >= 1)
    std::snprintf(text, sizeof(text), "%.2f", value);
  else
    std::snprintf(text, sizeof(text), "%.3g", value);
  return text;
}

// Whether |outcome|'s row |row| has a value that may be compared.
bool Comparable(const Outcome& outcome, size_t row) {
  return outcome.failure.empty() && !outcome.samples[row].empty() && outcome.marks[row].empty();
}

std::string Cell(const Outcome& outcome, size_t row) {
  if (!outcome.failure.empty()) return outcome.failure;
  if (outcome.samples[row].empty()) return "n/a";
  std::string text = Number(Median(outcome.samples[row]));
  if (outcome.wall[row]) text += " w";
  if (!outcome.marks[row].empty()) text += " " + outcome.marks[row];
  return text;
}

std::string Ratio(const Outcome& vkcl, const Outcome& other, size_t row, bool higher_is_better) {
  if (!Comparable(vkcl, row) || !Comparable(other, row)) return "-";
  const double ours = Median(vkcl.samples[row]), theirs = Median(other.samples[row]);
  const double ratio = higher_is_better ? ours / theirs : theirs / ours;
  if (!(ratio > 0) || ratio > 1e9) return "-";
  return Number(ratio);
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void PrintCsv(const std::vector<Platform>& platforms, const std::vector<Measure>& measures,
              const std::vector<std::vector<Outcome>>& results, const Options& options) {
  std::printf("row,higher_is_better,platform,device,status,median,samples,wall_fallback,note\n");
  for (size_t m = 0; m < measures.size(); ++m) {
    for (size_t r = 0; r < measures[m].rows.size(); ++r) {
      const RowSpec& spec = measures[m].rows[r];
      if (!RowWanted(spec.name, options)) continue;
      for (size_t p = 0; p < platforms.size(); ++p) {
        const Outcome& outcome = results[m][p];
        std::string status = "ok", median;
        if (!outcome.failure.empty())
          status = outcome.failure;
        else if (outcome.samples[r].empty())
          status = "n/a";
        else if (!outcome.marks[r].empty())
          status = outcome.marks[r];
        if (outcome.failure.empty() && !outcome.samples[r].empty())
          median = std::to_string(Median(outcome.samples[r]));
        std::printf("%s,%d,%s,%s,%s,%s,%zu,%s,%s\n", CsvField(spec.name).c_str(),
                    spec.higher_is_better ? 1 : 0, CsvField(platforms[p].label).c_str(),
                    CsvField(platforms[p].device_name).c_str(), CsvField(status).c_str(),
                    median.c_str(), outcome.samples[r].size(),
                    outcome.wall[r] ? "yes" : "", CsvField(outcome.note).c_str());
      }
    }
  }
}

void PrintAligned(const std::vector<std::vector<std::string>>& cells) {
  std::vector<size_t> widths;
  for (const auto& line : cells) {
    widths.resize(std::max(widths.size(), line.size()));
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  }
  for (size_t l = 0; l < cells.size(); ++l) {
    std::string text;
    for (size_t c = 0; c < cells[l].size(); ++c) {
      if (c) text += " | ";
      const std::string& cell = cells[l][c];
      const std::string pad(widths[c] - cell.size(), ' ');
      text += c == 0 ? cell + pad : pad + cell;  // names left, numbers right
    }
    std::printf("%s\n", text.c_str());
    if (l == 0) {
      std::string rule;
      for (size_t c = 0; c < widths.size(); ++c) rule += (c ? "-|-" : "") + std::string(widths[c], '-');
      std::printf("%s\n", rule.c_str());
    }
  }
}

}  // namespace

void PrintResults(const std::vector<Platform>& platforms, const std::vector<Measure>& measures,
                  const std::vector<std::vector<Outcome>>& results, const Options& options,
                  const std::string& load) {
  if (options.csv) {
    PrintCsv(platforms, measures, results, options);
    return;
  }
  size_t vkcl = platforms.size();
  for (size_t p = 0; p < platforms.size(); ++p)
    if (platforms[p].label == "vkcl" && vkcl == platforms.size()) vkcl = p;

  std::printf("vkcl benchmark suite%s: medians of %d or more timed repetitions per measure (up\n"
              "to 40, until each platform ran it for 0.25 s), taken round robin across platforms\n"
              "after one warm-up run (build: see the rows).\n",
              options.quick ? " (--quick sizes)" : "", options.repetitions);
  std::printf("Ratio columns vkcl/X: > 1 means vkcl is better (rows in GB/s, GFLOP/s, ...: vkcl\n"
              "value / X value; rows in ms or us: X time / vkcl time). No ratio for a WRONG\n"
              "result (failed check against the CPU reference), n/a or err.\n"
              "\"w\": timed by wall clock around enqueue + clFinish, because the platform's\n"
              "profiling timer is unusable (or CLBlast, always timed as a whole); other kernel\n"
              "rows use profiling events (COMMAND_END - COMMAND_START).\n"
              "Load average before / after: %s\n\n",
              load.c_str());
  for (const Platform& platform : platforms) {
    std::printf("%-8s platform \"%s\" (%s), device \"%s\", driver %s, %u CUs%s%s%s\n",
                platform.label.c_str(), platform.platform_name.c_str(),
                platform.platform_version.c_str(), platform.device_name.c_str(),
                platform.driver_version.c_str(), platform.compute_units,
                platform.profiling_usable ? "" : ", no usable profiling timer",
                platform.setup_error.empty() ? "" : ": ", platform.setup_error.c_str());
  }
  std::printf("\n");

  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header = {"measure"};
  for (const Platform& platform : platforms) header.push_back(platform.label);
  if (vkcl < platforms.size())
    for (size_t p = 0; p < platforms.size(); ++p)
      if (p != vkcl) header.push_back("vkcl/" + platforms[p].label);
  cells.push_back(header);
  for (size_t m = 0; m < measures.size(); ++m) {
    for (size_t r = 0; r < measures[m].rows.size(); ++r) {
      const RowSpec& spec = measures[m].rows[r];
      if (!RowWanted(spec.name, options)) continue;
      std::vector<std::string> line = {spec.name};
      for (size_t p = 0; p < platforms.size(); ++p) line.push_back(Cell(results[m][p], r));
      if (vkcl < platforms.size())
        for (size_t p = 0; p < platforms.size(); ++p)
          if (p != vkcl)
            line.push_back(Ratio(results[m][vkcl], results[m][p], r, spec.higher_is_better));
      cells.push_back(line);
    }
  }
  PrintAligned(cells);

  bool any_note = false;
  for (size_t m = 0; m < measures.size(); ++m) {
    for (size_t p = 0; p < platforms.size(); ++p) {
      const Outcome& outcome = results[m][p];
      if (outcome.note.empty() || !platforms[p].setup_error.empty()) continue;
      if (!any_note) std::printf("\nNotes\n");
      any_note = true;
      std::printf("  %s on %s: %s\n", measures[m].rows[0].name.c_str(),
                  platforms[p].label.c_str(), outcome.note.c_str());
    }
  }
}

// Each row of one measure as soon as it is measured, so a run cut short (a time limit on a
// lent GPU, a hang on one platform) still shows what it got.
void PrintProgress(const std::vector<Platform>& platforms, const Measure& measure,
                   const std::vector<Outcome>& outcomes) {
  for (size_t row = 0; row < measure.rows.size(); ++row) {
    std::string line = "           " + measure.rows[row].name + ":";
    for (size_t p = 0; p < platforms.size(); ++p) line += " " + platforms[p].label + " " + Cell(outcomes[p], row) + ";";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace vkcl_bench
