// MPFR references for the math test tool: each OpenCL built-in's exact value at 128 bits,
// and the error of a device result in ulps of the result type (float or double), as the
// OpenCL CTS measures it.
#pragma once

#include <mpfr.h>

#include <functional>
#include <string>
#include <vector>

namespace vkcl::mathtest {

// What a kernel computes from its inputs: one float result, or a float and a second result
// (float or int) through a pointer, or an int result.
enum class Shape { F1, F2, F3, FI, F_PF, F_PI, F2_PI, I_F };

// Sets |out| (and |out2|, for two-result functions) to the exact results for the inputs.
using Reference = std::function<void(mpfr_t out, mpfr_t out2, const double* in, long n)>;

struct MathFunction {
  std::string name;   // OpenCL C name, or "divide"/"recip" for x / y and 1 / x
  Shape shape;
  double bound;       // full-profile float ulp bound; < 0: implementation-defined (report only)
  Reference ref;
  float lo, hi;       // range of the "typical" random inputs
  bool second_exact = false;  // the second result is compared exactly (frexp, remquo quo, ...)
  bool zero_sign_free = false;  // either sign of a zero result is right (fmax(+0, -0), ...)
};

const std::vector<MathFunction>& functions();

// Error of |got| against the exact |ref| in ulps of got's type; +inf for a wrong special value.
double ulp_error(float got, const mpfr_t ref);
double ulp_error(double got, const mpfr_t ref);

// The same for a half result (held as a float).
double ulp_error_half(float got, const mpfr_t ref);

// References for results of |bits| 16, 32 or 64 where they differ (fract's cap below 1).
void use_format(int bits);

}  // namespace vkcl::mathtest
