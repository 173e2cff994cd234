// mad_sat on 64-bit integers. libclc's long version decides saturation from partial tests of
// the product's high half and gets ordinary cases wrong (mad_sat(0, -1, 1L << 62) gave
// LONG_MIN). Here the 128-bit product is exact as (mul_hi(x, y), x * y), the addend is added
// to it with the carry into the high half, and the 128-bit sum saturates to 64 bits.

long __attribute__((overloadable)) mad_sat(long x, long y, long z) {
  ulong lo = (ulong)x * (ulong)y;
  ulong sum = lo + (ulong)z;
  // |x * y| <= 2^126, so the high half lies in [-2^62, 2^62] and adding z's sign extension
  // and the carry cannot overflow it.
  long hi = mul_hi(x, y) + (z < 0 ? -1L : 0L) + (sum < lo ? 1L : 0L);
  // (hi, sum) fits in a long exactly when hi is the sign extension of sum.
  if (hi == ((long)sum >> 63)) return (long)sum;
  return hi < 0 ? LONG_MIN : LONG_MAX;
}

// The saturation is a mask: written as a select, LLVM makes the addition llvm.uadd.sat,
// which llvm-spirv 15 cannot translate.
ulong __attribute__((overloadable)) mad_sat(ulong x, ulong y, ulong z) {
  ulong lo = x * y;
  ulong sum = lo + z;
  ulong over = (ulong)(mul_hi(x, y) != 0) | (ulong)(sum < lo);
  return sum | (0UL - over);
}
