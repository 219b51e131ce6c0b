// gsync-check's stand-in for the CUDA headers' <nv/target> (target query
// macros), found on the include path when CUDA code includes it. The
// device side is compiled for sm_70 unless the harness's `cuda-arch:` line
// names another architecture; `NV_PROVIDES_SM_N` holds when __CUDA_ARCH__
// is at least N * 10, and NV_IF_ELSE_TARGET takes its first branch then,
// its second otherwise. A
// branch may be written in parentheses or not; the chosen one becomes a
// block of its own, as with the real macros. A query not listed here is
// left undeclared, so clang reports its name (a located error) rather than
// the front end guessing a branch.
#pragma once
#define NV_IF_TARGET(q, ...) GSYNC_NV_IF_##q((__VA_ARGS__), ())
#define NV_IF_ELSE_TARGET(q, t, f) GSYNC_NV_IF_##q((t), (f))
#define GSYNC_NV_IF_NV_IS_DEVICE(t, f) GSYNC_NV_BLOCK t
#define GSYNC_NV_IF_NV_IS_HOST(t, f) GSYNC_NV_BLOCK f
#define GSYNC_NV_IF_NV_ANY_TARGET(t, f) GSYNC_NV_BLOCK t
#if __CUDA_ARCH__ >= 350
#define GSYNC_NV_IF_NV_PROVIDES_SM_35(t, f) GSYNC_NV_BLOCK t
#else
#define GSYNC_NV_IF_NV_PROVIDES_SM_35(t, f) GSYNC_NV_BLOCK f
#endif
#if __CUDA_ARCH__ >= 500
#define GSYNC_NV_IF_NV_PROVIDES_SM_50(t, f) GSYNC_NV_BLOCK t
#else
#define GSYNC_NV_IF_NV_PROVIDES_SM_50(t, f) GSYNC_NV_BLOCK f
#endif
#if __CUDA_ARCH__ >= 600
#define GSYNC_NV_IF_NV_PROVIDES_SM_60(t, f) GSYNC_NV_BLOCK t
#else
#define GSYNC_NV_IF_NV_PROVIDES_SM_60(t, f) GSYNC_NV_BLOCK f
#endif
#if __CUDA_ARCH__ >= 700
#define GSYNC_NV_IF_NV_PROVIDES_SM_70(t, f) GSYNC_NV_BLOCK t
#else
#define GSYNC_NV_IF_NV_PROVIDES_SM_70(t, f) GSYNC_NV_BLOCK f
#endif
#if __CUDA_ARCH__ >= 800
#define GSYNC_NV_IF_NV_PROVIDES_SM_80(t, f) GSYNC_NV_BLOCK t
#else
#define GSYNC_NV_IF_NV_PROVIDES_SM_80(t, f) GSYNC_NV_BLOCK f
#endif
#if __CUDA_ARCH__ >= 900
#define GSYNC_NV_IF_NV_PROVIDES_SM_90(t, f) GSYNC_NV_BLOCK t
#else
#define GSYNC_NV_IF_NV_PROVIDES_SM_90(t, f) GSYNC_NV_BLOCK f
#endif
// `{ x }` from `x` or `(x)`.
#define GSYNC_NV_BLOCK(...) { GSYNC_NV_STRIP(__VA_ARGS__) }
#define GSYNC_NV_STRIP(...) GSYNC_NV_STRIP_1(GSYNC_NV_OPEN __VA_ARGS__)
#define GSYNC_NV_OPEN(...) GSYNC_NV_OPEN __VA_ARGS__
#define GSYNC_NV_STRIP_1(...) GSYNC_NV_STRIP_2(__VA_ARGS__)
#define GSYNC_NV_STRIP_2(...) GSYNC_NV_DROP_##__VA_ARGS__
#define GSYNC_NV_DROP_GSYNC_NV_OPEN
