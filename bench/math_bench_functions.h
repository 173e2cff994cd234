// The functions the math throughput benchmark measures: for each one, its OpenCL C kernel, how
// its inputs are drawn, its double-precision reference and the tolerance a result must meet.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace vkcl_bench {

// A range an input array is drawn from, uniformly. |exclude_low| makes the interval (low, high]
// for functions such as log whose domain excludes the lower end.
struct InputRange {
  double low;
  double high;
  bool exclude_low = false;
};

struct MathFunction {
  std::string name;
  // The call with its inputs named a, b, c and the chained value written as X; the kernel
  // substitutes X with the value that depends on the previous result.
  std::string call;
  std::vector<InputRange> inputs;
  // Double-precision value of the function at one element's inputs.
  double (*reference)(const double* args);
  // A result passes if |result - reference| <= relative * |reference| + absolute.
  double relative_tolerance;
  double absolute_tolerance;
};

// Every float below FLT_MIN may be flushed to zero by an implementation, which the absolute
// part of the accurate functions' tolerance allows for.
constexpr double kFlushSlack = 1.1754943508222875e-38;

inline const std::vector<MathFunction>& MathFunctions() {
  static const std::vector<MathFunction> functions = {
      {"sin", "sin(X)", {{-100, 100}}, [](const double* v) { return std::sin(v[0]); }, 1e-5,
       kFlushSlack},
      {"exp", "exp(X)", {{-80, 80}}, [](const double* v) { return std::exp(v[0]); }, 1e-5,
       kFlushSlack},
      {"log", "log(X)", {{0, 1e6, true}}, [](const double* v) { return std::log(v[0]); }, 1e-5,
       kFlushSlack},
      {"pow", "pow(X, b)", {{0, 100, true}, {-4, 4}},
       [](const double* v) { return std::pow(v[0], v[1]); }, 1e-5, kFlushSlack},
      {"sqrt", "sqrt(X)", {{0, 1e6, true}}, [](const double* v) { return std::sqrt(v[0]); }, 1e-5,
       kFlushSlack},
      // The chained value is the addend, so the product of a and b is the same in every link.
      {"fma", "fma(a, b, X)", {{-100, 100}, {-100, 100}, {-100, 100}},
       [](const double* v) { return std::fma(v[0], v[1], v[2]); }, 1e-5, kFlushSlack},
      {"native_sin", "native_sin(X)", {{-100, 100}},
       [](const double* v) { return std::sin(v[0]); }, 0, 1e-2},
      // No function: the loop, the loads and the stores alone, what every row above pays too.
      {"baseline", "X", {{-100, 100}}, [](const double* v) { return v[0]; }, 0, 0},
  };
  return functions;
}

// The chained input: the first input for every function except fma, where it is the addend c.
inline std::string ChainedInputName(const MathFunction& function) {
  return function.name == "fma" ? "c" : "a";
}

// OpenCL C source of the benchmark kernel for |function|. Each work-item applies the function
// |k| times (a runtime argument) in a dependent chain and writes one float. The chained argument
// is `input + feedback * previous`; the host passes feedback = 0, so the result equals the
// function at the unmodified input and can be checked, while the compiler, which cannot know
// feedback, has to evaluate every link in order.
inline std::string KernelSource(const MathFunction& function) {
  static const char* const kNames[] = {"a", "b", "c"};
  std::string parameters;
  for (size_t i = 0; i < function.inputs.size(); ++i)
    parameters += std::string("__global const float* in_") + kNames[i] + ", ";
  std::string loads;
  for (size_t i = 0; i < function.inputs.size(); ++i)
    loads += std::string("  const float ") + kNames[i] + " = in_" + kNames[i] + "[i];\n";

  std::string call = function.call;
  const std::string chained = "(" + ChainedInputName(function) + " + feedback * y)";
  call.replace(call.find('X'), 1, chained);

  return "__kernel void math_bench(" + parameters +
         "__global float* out, float feedback, int k) {\n"
         "  const size_t i = get_global_id(0);\n" +
         loads +
         "  float y = 0.0f;\n"
         "  for (int j = 0; j < k; ++j)\n"
         "    y = " +
         call +
         ";\n"
         "  out[i] = y;\n"
         "}\n";
}

// |count| floats drawn uniformly from |range| with a fixed seed, so every run and every
// implementation sees the same data.
inline std::vector<float> RandomInputs(const InputRange& range, size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<float> values(count);
  for (float& value : values) {
    // 1 - u lies in (0, 1], which gives the half-open (low, high] when the low end is excluded.
    const double u = range.exclude_low ? 1.0 - unit(generator) : unit(generator);
    value = static_cast<float>(range.low + u * (range.high - range.low));
    if (range.exclude_low && value <= range.low)
      value = std::nextafter(static_cast<float>(range.low), static_cast<float>(range.high));
  }
  return values;
}

}  // namespace vkcl_bench
