// Compiled offline by the build (clang-15 + llvm-spirv-15) into Kernel SPIR-V that the IL test
// hands to clCreateProgramWithIL.
__kernel void scale(__global const float* in, __global float* out, float factor) {
  size_t i = get_global_id(0);
  out[i] = in[i] * factor + (float)i;
}
