// ---------------------------------------------------------------------------
// Runtime support: abort polling, backoff, the harness's invariant checks.
// ---------------------------------------------------------------------------
typedef long long i64;

// What the host reads back after the launch.
struct GsStats {
    unsigned int cs_count;        // NON-atomic count of critical sections (mutual exclusion: lost updates = overlap)
    unsigned int cs_entries;      // atomic count of critical-section entries
    int occupancy;                // summed weights inside critical sections now
    int max_occupancy;            // the most ever seen (atomicMax): must stay <= the capacity
    unsigned int phase_errors;    // a participant left a phase before another one had entered it
    unsigned int assert_failures; // failed assert()s of the spec
    unsigned int first_assert;    // 1 + index of the first failed assert
};
__device__ __align__(128) GsStats gs_stats;
__device__ __align__(128) unsigned int gs_cs_data[GS_CS_LEN > 0 ? GS_CS_LEN : 1]; // the critical section's loads and stores
__device__ __align__(128) unsigned int gs_arrived[GS_PARTICIPANTS];                // phases each participant has entered

// Every spin loop polls the host-mapped abort flag; the host raises it after
// --timeout. A read of host memory crosses PCIe: thousands of spinning
// threads reading it often would saturate the bus and slow every spin
// iteration down (measured: ms per barrier at 16 blocks/SM). So a loop
// looks at the clock every 256 iterations and reads the flag at most
// every GS_POLL_NS nanoseconds.
#ifndef GS_POLL_NS
#define GS_POLL_NS 5000000ull
#endif
__device__ __forceinline__ unsigned long long gs_clock_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ bool gs_poll(volatile unsigned int* abort_flag, unsigned int& spins,
                                        unsigned long long& next_poll) {
    if ((++spins & 255u) != 0) return false;
    unsigned long long now = gs_clock_ns();
    if (now < next_poll) return false;
    next_poll = now + GS_POLL_NS;
    return *abort_flag != 0;
}

// Jump back to the head of a loop, returning (as aborted) once the host asks.
#define SPIN_BACK(label) do { if (gs_poll(abort_flag, gs_spins, gs_next_poll)) return false; goto label; } while (0)

// backoff(): exponential __nanosleep, reset when the thread makes progress.

__device__ __forceinline__ void gs_backoff(unsigned int& ns) {
    if (GS_BACKOFF_MAX_NS == 0) return; // backoff switched off (--backoff-max-ns 0)
    __nanosleep(ns);
    ns = ns < GS_BACKOFF_MAX_NS ? 2 * ns : GS_BACKOFF_MAX_NS;
}

// fence.acq_rel (lighter than the fence.sc of __threadfence*()).
__device__ __forceinline__ void gs_fence_acq_rel_cta() { asm volatile("fence.acq_rel.cta;" ::: "memory"); }
__device__ __forceinline__ void gs_fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ void gs_fence_acq_rel_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// Scoped loads of a 32-bit word in their PTX forms (ld.relaxed / ld.acquire).
#define GS_LD(sem, scope)                                                                     \
    __device__ __forceinline__ unsigned int gs_ld_##sem##_##scope(const void* p) {            \
        unsigned int v;                                                                       \
        asm volatile("ld." #sem "." #scope ".b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  \
        return v;                                                                             \
    }
GS_LD(relaxed, cta) GS_LD(relaxed, gpu) GS_LD(relaxed, sys)
GS_LD(acquire, cta) GS_LD(acquire, gpu) GS_LD(acquire, sys)

template <typename T> __device__ __forceinline__ T gs_ld_volatile(T* p) { return *(volatile T*)p; }
template <typename T, typename V> __device__ __forceinline__ void gs_st_volatile(T* p, V v) { *(volatile T*)p = (T)v; }

// An atomic read-modify-write of a variable narrower than 32 bits, kept in a
// 32-bit word: a CAS loop whose new value wraps to the variable's type T, as
// the model's does (a plain 32-bit atomicAdd would not wrap a u8 at 256).
template <typename T, typename F>
__device__ unsigned int gs_atomic_narrow(unsigned int* p, bool block_scope, F f) {
    unsigned int old = gs_ld_volatile(p);
    for (;;) {
        unsigned int next = (unsigned int)(T)f((i64)(T)old);
        unsigned int seen = block_scope ? atomicCAS_block(p, old, next) : atomicCAS(p, old, next);
        if (seen == old) return old;
        old = seen;
    }
}

__device__ void gs_critical_enter(int weight) {
    int inside = atomicAdd(&gs_stats.occupancy, weight) + weight;
    atomicMax(&gs_stats.max_occupancy, inside);
    atomicAdd(&gs_stats.cs_entries, 1u);
    if (GS_CAPACITY == 1) gs_stats.cs_count = gs_stats.cs_count + 1; // plain load and store, on purpose
    for (int j = 0; j < GS_CS_LEN; j++) gs_cs_data[j] = gs_cs_data[j] + 1;
}

__device__ void gs_critical_exit(int weight) {
    atomicSub(&gs_stats.occupancy, weight);
}

__device__ void gs_phase_enter(unsigned int me, unsigned int& phase) {
    phase++;
    gs_st_volatile(&gs_arrived[me], phase);
}

// After phase k every participant has entered phase k: look at one other
// participant, a different one each phase.
__device__ void gs_phase_exit(unsigned int me, unsigned int phase) {
    if (GS_PARTICIPANTS > 1) {
        unsigned int other = (me + 1 + (phase - 1) % (GS_PARTICIPANTS - 1)) % GS_PARTICIPANTS;
        if (gs_ld_volatile(&gs_arrived[other]) < phase) atomicAdd(&gs_stats.phase_errors, 1u);
    }
}

__device__ void gs_assert_failed(unsigned int id) {
    atomicAdd(&gs_stats.assert_failures, 1u);
    atomicCAS(&gs_stats.first_assert, 0u, id + 1);
}
