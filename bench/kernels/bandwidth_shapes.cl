// Shapes of clpeak's global-bandwidth kernel (each work-item sums 16 vectors, strided by the
// work-group or NDRange size), for vkcl_kernel_time: on an H200, NVIDIA's OpenCL read 4.3-4.4
// TB/s in every shape, vkcl 1.2-1.5 in the ones with sixteen accumulators (v16_*, v16_local_f4)
// and 4.3 in the one with a single accumulator (v16_local_f4_ordered); see
// docs/not-implemented.md. For a 1 GiB A: v16_* and *_f4* global = 2^20, v8_local 2^21,
// v1_local 2^24, each with local 256 and B of global floats.
#define FETCH_2(sum, id, A, jumpBy) sum += A[id]; id += jumpBy; sum += A[id]; id += jumpBy;
#define FETCH_4(sum, id, A, jumpBy) FETCH_2(sum, id, A, jumpBy); FETCH_2(sum, id, A, jumpBy);
#define FETCH_PER_WI 16
#define SUM16(sum) float t = (sum.S0) + (sum.S1) + (sum.S2) + (sum.S3) + (sum.S4) + (sum.S5) + (sum.S6) + (sum.S7); t += (sum.S8) + (sum.S9) + (sum.SA) + (sum.SB) + (sum.SC) + (sum.SD) + (sum.SE) + (sum.SF);
__kernel void v16_local(__global float16 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float16 sum = 0; for(int i=0; i<4; i++) { FETCH_4(sum, id, A, get_local_size(0)); } SUM16(sum) B[get_global_id(0)] = t; }
__kernel void v16_global(__global float16 *A, __global float *B) { int id = get_global_id(0); float16 sum = 0; for(int i=0; i<4; i++) { FETCH_4(sum, id, A, get_global_size(0)); } SUM16(sum) B[get_global_id(0)] = t; }
__kernel void v16_local_restrict(__global const float16 * restrict A, __global float * restrict B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float16 sum = 0; for(int i=0; i<4; i++) { FETCH_4(sum, id, A, get_local_size(0)); } SUM16(sum) B[get_global_id(0)] = t; }
__kernel void v16_local_hoist(__global float16 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float16 v[16]; for (int i = 0; i < 16; i++) { v[i] = A[id]; id += get_local_size(0); } float16 sum = 0; for (int i = 0; i < 16; i++) sum += v[i]; SUM16(sum) B[get_global_id(0)] = t; }
__kernel void v16_local_f4(__global float4 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float4 s0 = 0, s1 = 0, s2 = 0, s3 = 0; for(int i=0; i<16; i++) { s0 += A[4*id]; s1 += A[4*id+1]; s2 += A[4*id+2]; s3 += A[4*id+3]; id += get_local_size(0); } float4 s = s0 + s1 + s2 + s3; B[get_global_id(0)] = s.x + s.y + s.z + s.w; }
__kernel void v16_local_f4_ordered(__global float4 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float4 s0 = 0; for(int i=0; i<16; i++) { s0 += A[4*id] + A[4*id+1] + A[4*id+2] + A[4*id+3]; id += get_local_size(0); } B[get_global_id(0)] = s0.x + s0.y + s0.z + s0.w; }
__kernel void v8_local(__global float8 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float8 sum = 0; for(int i=0; i<4; i++) { FETCH_4(sum, id, A, get_local_size(0)); } B[get_global_id(0)] = sum.s0+sum.s1+sum.s2+sum.s3+sum.s4+sum.s5+sum.s6+sum.s7; }
__kernel void v1_local(__global float *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float sum = 0; for(int i=0; i<4; i++) { FETCH_4(sum, id, A, get_local_size(0)); } B[get_global_id(0)] = sum; }
__kernel void copy1(__global const float* in, __global float* out) { const size_t i = get_global_id(0); out[i] = in[i]; }
__kernel void copy1_int(__global const float* in, __global float* out) { const int i = get_global_id(0); out[i] = in[i]; }
__kernel void read1(__global const float* in, __global float* out) { const size_t gid = get_global_id(0), stride = get_global_size(0); float acc = 0; for (uint k = 0; k < 16; ++k) acc += in[gid + k * stride]; out[gid] = acc; }
__kernel void v16_local_nounroll(__global float16 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float16 sum = 0;
#pragma nounroll
 for(int i=0; i<16; i++) { sum += A[id]; id += get_local_size(0); } SUM16(sum) B[get_global_id(0)] = t; }
__kernel void v16_local_f4_unroll(__global float4 *A, __global float *B) { int id = (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0); float4 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma unroll
 for(int i=0; i<16; i++) { s0 += A[4*id]; s1 += A[4*id+1]; s2 += A[4*id+2]; s3 += A[4*id+3]; id += get_local_size(0); } float4 s = s0 + s1 + s2 + s3; B[get_global_id(0)] = s.x + s.y + s.z + s.w; }
