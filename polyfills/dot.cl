// cl_khr_integer_dot_product's packed forms. llvm-spirv 15 turns dot() and dot_acc_sat() on
// char4/uchar4 into SPIR-V dot-product instructions but leaves these as calls: four 8-bit
// lanes of each 32-bit operand, the first lane in the low byte. The products and their sum
// fit in 32 bits, so only the accumulation saturates.
#define OVERLOAD __attribute__((overloadable))

static uint lane_u(uint x, int k) { return (x >> (8 * k)) & 0xffu; }
static int lane_s(uint x, int k) { return (int)(char)(x >> (8 * k)); }

static uint add_sat_uint(uint a, uint b) {
  ulong s = (ulong)a + b;
  return s > 0xffffffffUL ? 0xffffffffu : (uint)s;
}
static int add_sat_int(int a, int b) {
  long s = (long)a + b;
  return s > 2147483647L ? 2147483647 : s < -2147483648L ? (int)0x80000000u : (int)s;
}

#define DOT4(la, lb) (la(a, 0) * lb(b, 0) + la(a, 1) * lb(b, 1) + la(a, 2) * lb(b, 2) + la(a, 3) * lb(b, 3))
#define U(x, k) (int)lane_u(x, k)

uint OVERLOAD dot_4x8packed_uu_uint(uint a, uint b) { return DOT4(lane_u, lane_u); }
int OVERLOAD dot_4x8packed_ss_int(uint a, uint b) { return DOT4(lane_s, lane_s); }
int OVERLOAD dot_4x8packed_us_int(uint a, uint b) { return DOT4(U, lane_s); }
int OVERLOAD dot_4x8packed_su_int(uint a, uint b) { return DOT4(lane_s, U); }

uint OVERLOAD dot_acc_sat_4x8packed_uu_uint(uint a, uint b, uint acc) {
  return add_sat_uint(dot_4x8packed_uu_uint(a, b), acc);
}
int OVERLOAD dot_acc_sat_4x8packed_ss_int(uint a, uint b, int acc) {
  return add_sat_int(dot_4x8packed_ss_int(a, b), acc);
}
int OVERLOAD dot_acc_sat_4x8packed_us_int(uint a, uint b, int acc) {
  return add_sat_int(dot_4x8packed_us_int(a, b), acc);
}
int OVERLOAD dot_acc_sat_4x8packed_su_int(uint a, uint b, int acc) {
  return add_sat_int(dot_4x8packed_su_int(a, b), acc);
}
