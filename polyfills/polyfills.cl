// vkcl's own built-ins: the single translation unit CMakeLists.txt compiles. Each file holds
// one family; link-builtins prefers these bodies to libclc's.
#include "half_float_wrappers.cl"  // first: see the file
#include "log.cl"
#include "pow.cl"
#include "dot.cl"
#include "mad_sat.cl"
#include "exp.cl"
#include "fp64.cl"
#include "tgamma64.cl"  // uses fp64.cl's helpers
#include "half.cl"  // last: see half_float_wrappers.cl
