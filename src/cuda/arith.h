// ---------------------------------------------------------------------------
// Arithmetic as the spec language defines it (book/src/language.md,
// "Arithmetic"; the model: src/ir/consteval.rs): 64-bit two's complement,
// every case defined. C++ leaves signed overflow, shifts by a negative
// count or by the width or more, and INT64_MIN / -1 undefined, so the
// emitted code calls these where an operand can reach such a case. A zero
// divisor or a negative shift count is a runtime error the model reports;
// here they give 0 so that the program stays defined.
// Plain C++ as well as CUDA: the tests compile this file on the host.
// ---------------------------------------------------------------------------
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GS_ARITH __host__ __device__ __forceinline__
#else
#define GS_ARITH inline
#endif
typedef long long i64;
typedef unsigned long long gs_u64;

// The i64 whose bits are v (what (i64)v does on every compiler; spelled
// out because before C++20 the conversion is implementation-defined).
GS_ARITH i64 gs_from_bits(gs_u64 v) {
    return v <= 0x7FFFFFFFFFFFFFFFull ? (i64)v : -(i64)(~v) - 1;
}
GS_ARITH i64 gs_add(i64 a, i64 b) { return gs_from_bits((gs_u64)a + (gs_u64)b); }
GS_ARITH i64 gs_sub(i64 a, i64 b) { return gs_from_bits((gs_u64)a - (gs_u64)b); }
GS_ARITH i64 gs_mul(i64 a, i64 b) { return gs_from_bits((gs_u64)a * (gs_u64)b); }
GS_ARITH i64 gs_neg(i64 a) { return gs_from_bits(0ull - (gs_u64)a); }
// a * 2^s, wrapped: 0 once s >= 64.
GS_ARITH i64 gs_shl(i64 a, i64 s) {
    return s < 0 || s >= 64 ? 0 : gs_from_bits((gs_u64)a << s);
}
// floor(a / 2^s): 0 or -1 once s >= 64 (~a >= 0 when a < 0, so no
// right shift of a negative value).
GS_ARITH i64 gs_shr(i64 a, i64 s) {
    if (s < 0) return 0;
    if (s > 63) s = 63;
    return a >= 0 ? a >> s : ~(~a >> s);
}
// Truncating division; INT64_MIN / -1 wraps to INT64_MIN.
GS_ARITH i64 gs_div(i64 a, i64 b) {
    return b == 0 ? 0 : b == -1 ? gs_neg(a) : a / b;
}
// The remainder, with the dividend's sign; INT64_MIN % -1 is 0.
GS_ARITH i64 gs_rem(i64 a, i64 b) {
    return b == 0 || b == -1 ? 0 : a % b;
}
// The operands' bits divided as unsigned 64-bit integers (PTX div.u64,
// rem.u64).
GS_ARITH i64 gs_udiv(i64 a, i64 b) {
    return b == 0 ? 0 : gs_from_bits((gs_u64)a / (gs_u64)b);
}
GS_ARITH i64 gs_urem(i64 a, i64 b) {
    return b == 0 ? 0 : gs_from_bits((gs_u64)a % (gs_u64)b);
}
