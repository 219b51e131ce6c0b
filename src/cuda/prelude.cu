// ---------------------------------------------------------------------------
// Runtime support: abort polling, backoff, the harness's invariant checks.
// ---------------------------------------------------------------------------

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
__device__ __align__(128) unsigned int gs_entered[GS_PARTICIPANTS];                // critical sections each participant entered (its own slot)
__device__ const unsigned int gs_participants = GS_PARTICIPANTS;

// One thread's harness state; the generated GsThread adds the spec's
// `local` variables and is passed to every procedure.
struct GsRuntime {
    volatile unsigned int* gs_abort_flag; // host-mapped: the host raises it after --timeout
    unsigned int gs_me;                   // participant number (phase check)
    unsigned int gs_spins;                // loop iterations, for abort polling
    unsigned long long gs_next_look;      // when this thread looks at the abort flag next
    unsigned int gs_backoff_ns;           // backoff(): next sleep
    unsigned int gs_phase;                // phases entered
    int gs_weight;                        // weight of the critical section
};

// Every spin loop polls the abort flag the host raises after --timeout. It
// is in host memory, and a read of it crosses PCIe: when the pollers of
// many blocks read it at once, those reads queue up for hundreds of
// microseconds and every barrier waits for the slowest block (measured on
// an H100: 13.5 instead of 7.8 us per one-level barrier at 16 blocks/SM).
// So the flag is relayed: a loop looks at the clock every 256 iterations
// and at the device-memory copy gs_abort at most every GS_LOOK_NS; once
// every GS_POLL_NS one poller GPU-wide (the one whose atomicCAS claims
// gs_host_poll_due) reads the host's flag and, if it is raised, raises
// gs_abort for everybody. The relay stays raised for the module's life.
#ifndef GS_POLL_NS
#define GS_POLL_NS 5000000ull
#endif
#ifndef GS_LOOK_NS
#define GS_LOOK_NS 1000000ull
#endif
__device__ __align__(128) unsigned int gs_abort;                   // the host's flag, relayed
__device__ __align__(128) unsigned long long gs_host_poll_due;     // when the host's flag is read next
__device__ __forceinline__ unsigned long long gs_clock_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ bool gs_poll(GsRuntime& gs) {
    if ((++gs.gs_spins & 255u) != 0) return false;
    unsigned long long now = gs_clock_ns();
    if (now < gs.gs_next_look) return false;
    gs.gs_next_look = now + GS_LOOK_NS;
    if (*(volatile unsigned int*)&gs_abort != 0) return true;
    unsigned long long due = *(volatile unsigned long long*)&gs_host_poll_due;
    if (now < due || atomicCAS(&gs_host_poll_due, due, now + GS_POLL_NS) != due) return false;
    if (*gs.gs_abort_flag == 0) return false;
    *(volatile unsigned int*)&gs_abort = 1u;
    return true;
}

// Jump back to the head of a loop, returning (as aborted) once the host asks.
#define SPIN_BACK(label) do { if (gs_poll(th)) return false; goto label; } while (0)
// Call a procedure; it returns false when the host aborted the launch.
#define GS_CALL(call) do { if (!(call)) return false; } while (0)

// backoff(): exponential __nanosleep, reset when the thread makes progress.
__device__ __forceinline__ void gs_backoff(GsRuntime& gs) {
    if (GS_BACKOFF_MAX_NS == 0) return; // backoff switched off (--backoff-max-ns 0)
    __nanosleep(gs.gs_backoff_ns);
    gs.gs_backoff_ns = gs.gs_backoff_ns < GS_BACKOFF_MAX_NS ? 2 * gs.gs_backoff_ns : GS_BACKOFF_MAX_NS;
}

// fence.acq_rel (lighter than the fence.sc of __threadfence*()).
__device__ __forceinline__ void gs_fence_acq_rel_cta() { asm volatile("fence.acq_rel.cta;" ::: "memory"); }
__device__ __forceinline__ void gs_fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ void gs_fence_acq_rel_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// Scoped loads and release stores in their PTX forms (ld.relaxed /
// ld.acquire / st.release), for 32-bit words (`gs_ld_*`, register
// constraint "r") and 64-bit ones (`gs_ld64_*`, "l").
#define GS_LD_W(name, sem, scope, bits, T, R)                                                 \
    __device__ __forceinline__ T name##_##sem##_##scope(const void* p) {                      \
        T v;                                                                                  \
        asm volatile("ld." #sem "." #scope ".b" #bits " %0, [%1];" : "=" R(v) : "l"(p) : "memory"); \
        return v;                                                                             \
    }
#define GS_ST_RELEASE_W(name, scope, bits, T, R)                                              \
    __device__ __forceinline__ void name##_##scope(void* p, T v) {                            \
        asm volatile("st.release." #scope ".b" #bits " [%0], %1;" :: "l"(p), R(v) : "memory"); \
    }
#define GS_LD(sem, scope) GS_LD_W(gs_ld, sem, scope, 32, unsigned int, "r")
#define GS_LD64(sem, scope) GS_LD_W(gs_ld64, sem, scope, 64, unsigned long long, "l")
GS_LD(relaxed, cta) GS_LD(relaxed, gpu) GS_LD(relaxed, sys)
GS_LD(acquire, cta) GS_LD(acquire, gpu) GS_LD(acquire, sys)
GS_LD64(relaxed, cta) GS_LD64(relaxed, gpu) GS_LD64(relaxed, sys)
GS_LD64(acquire, cta) GS_LD64(acquire, gpu) GS_LD64(acquire, sys)
GS_ST_RELEASE_W(gs_st_release, cta, 32, unsigned int, "r")
GS_ST_RELEASE_W(gs_st_release, gpu, 32, unsigned int, "r")
GS_ST_RELEASE_W(gs_st_release, sys, 32, unsigned int, "r")
GS_ST_RELEASE_W(gs_st64_release, cta, 64, unsigned long long, "l")
GS_ST_RELEASE_W(gs_st64_release, gpu, 64, unsigned long long, "l")
GS_ST_RELEASE_W(gs_st64_release, sys, 64, unsigned long long, "l")

// Atomics with a memory order in their PTX forms (atom.acq_rel.gpu.add.u32
// ...): one instruction, where a fence before and after a relaxed atomic
// would wait twice (measured on an H100: 0.7 us per barrier at 8 blocks/SM).
// R is the operands' register constraint: "r" for 32 bits, "l" for 64.
#define GS_ATOM_R(sem, scope, op, ty, T, R)                                                      \
    __device__ __forceinline__ T gs_atom_##sem##_##scope##_##op##_##ty(T* p, T v) {               \
        T o;                                                                                      \
        asm volatile("atom." #sem "." #scope "." #op "." #ty " %0, [%1], %2;"                     \
                     : "=" R(o) : "l"(p), R(v) : "memory");                                       \
        return o;                                                                                 \
    }
#define GS_ATOM_CAS_R(sem, scope, ty, bits, T, R)                                                \
    __device__ __forceinline__ T gs_atom_##sem##_##scope##_cas_##ty(T* p, T c, T v) {             \
        T o;                                                                                      \
        asm volatile("atom." #sem "." #scope ".cas.b" #bits " %0, [%1], %2, %3;"                  \
                     : "=" R(o) : "l"(p), R(c), R(v) : "memory");                                 \
        return o;                                                                                 \
    }
#define GS_ATOM2(sem, scope, op, ty, T) GS_ATOM_R(sem, scope, op, ty, T, "r")
#define GS_ATOM2_64(sem, scope, op, ty, T) GS_ATOM_R(sem, scope, op, ty, T, "l")
#define GS_ATOMS(sem, scope)                                                                      \
    GS_ATOM2(sem, scope, add, u32, unsigned int) GS_ATOM2(sem, scope, add, s32, int)              \
    GS_ATOM2(sem, scope, exch, b32, unsigned int) GS_ATOM2(sem, scope, inc, u32, unsigned int)    \
    GS_ATOM2(sem, scope, dec, u32, unsigned int) GS_ATOM2(sem, scope, and, b32, unsigned int)     \
    GS_ATOM2(sem, scope, or, b32, unsigned int) GS_ATOM2(sem, scope, xor, b32, unsigned int)      \
    GS_ATOM2(sem, scope, min, u32, unsigned int) GS_ATOM2(sem, scope, min, s32, int)              \
    GS_ATOM2(sem, scope, max, u32, unsigned int) GS_ATOM2(sem, scope, max, s32, int)              \
    GS_ATOM_CAS_R(sem, scope, b32, 32, unsigned int, "r") GS_ATOM_CAS_R(sem, scope, s32, 32, int, "r")
GS_ATOMS(acquire, cta) GS_ATOMS(acquire, gpu) GS_ATOMS(acquire, sys)
GS_ATOMS(release, cta) GS_ATOMS(release, gpu) GS_ATOMS(release, sys)
GS_ATOMS(acq_rel, cta) GS_ATOMS(acq_rel, gpu) GS_ATOMS(acq_rel, sys)

// The same on 64-bit words (u64 and i64 variables).
#define GS_ATOMS64(sem, scope)                                                                    \
    GS_ATOM2_64(sem, scope, add, u64, unsigned long long)                                         \
    GS_ATOM2_64(sem, scope, exch, b64, unsigned long long)                                        \
    GS_ATOM2_64(sem, scope, and, b64, unsigned long long)                                         \
    GS_ATOM2_64(sem, scope, or, b64, unsigned long long)                                          \
    GS_ATOM2_64(sem, scope, xor, b64, unsigned long long)                                         \
    GS_ATOM2_64(sem, scope, min, u64, unsigned long long) GS_ATOM2_64(sem, scope, min, s64, long long) \
    GS_ATOM2_64(sem, scope, max, u64, unsigned long long) GS_ATOM2_64(sem, scope, max, s64, long long) \
    GS_ATOM_CAS_R(sem, scope, b64, 64, unsigned long long, "l")
GS_ATOMS64(acquire, cta) GS_ATOMS64(acquire, gpu) GS_ATOMS64(acquire, sys)
GS_ATOMS64(release, cta) GS_ATOMS64(release, gpu) GS_ATOMS64(release, sys)
GS_ATOMS64(acq_rel, cta) GS_ATOMS64(acq_rel, gpu) GS_ATOMS64(acq_rel, sys)

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

__device__ void gs_critical_enter(GsRuntime& gs, int weight) {
    gs.gs_weight = weight;
    gs.gs_backoff_ns = GS_BACKOFF_MIN_NS;
    int inside = atomicAdd(&gs_stats.occupancy, weight) + weight;
    atomicMax(&gs_stats.max_occupancy, inside);
    atomicAdd(&gs_stats.cs_entries, 1u);
    gs_entered[gs.gs_me] += 1u;
    if (GS_CAPACITY == 1) gs_stats.cs_count = gs_stats.cs_count + 1; // plain load and store, on purpose
    for (int j = 0; j < GS_CS_LEN; j++) gs_cs_data[j] = gs_cs_data[j] + 1;
}

__device__ void gs_critical_exit(GsRuntime& gs) {
    atomicSub(&gs_stats.occupancy, gs.gs_weight);
}

// The phase check: after phase k every participant has entered phase k.
// Entering phase k, a participant records k; leaving it, it reads one other
// participant's record, a different one each time. The record's store and
// the read are on the barrier's critical path (measured on an H100: 0.3 us
// per barrier at 1 block/SM, 0.9 us at 16, for grid.sync() as for the
// specs), so only phases 1, 1 + GS_PHASE_SAMPLE, 1 + 2 GS_PHASE_SAMPLE, ...
// are checked. grid.sync()'s baseline program checks the same phases.
#ifndef GS_PHASE_SAMPLE
#define GS_PHASE_SAMPLE 8u
#endif
__device__ __forceinline__ void gs_phase_enter(GsRuntime& gs) {
    gs.gs_phase++;
    if ((gs.gs_phase - 1) % GS_PHASE_SAMPLE == 0) gs_st_volatile(&gs_arrived[gs.gs_me], gs.gs_phase);
}
__device__ __forceinline__ void gs_phase_exit(GsRuntime& gs) {
    gs.gs_backoff_ns = GS_BACKOFF_MIN_NS;
    if (GS_PARTICIPANTS > 1 && (gs.gs_phase - 1) % GS_PHASE_SAMPLE == 0) {
        unsigned int other = (gs.gs_me + 1 + (gs.gs_phase - 1) / GS_PHASE_SAMPLE % (GS_PARTICIPANTS - 1)) % GS_PARTICIPANTS;
        if (gs_ld_volatile(&gs_arrived[other]) < gs.gs_phase) atomicAdd(&gs_stats.phase_errors, 1u);
    }
}

// A participant's start, and its end.
__device__ __forceinline__ void gs_start(GsRuntime& gs, volatile unsigned int* abort_flag, unsigned int me) {
    gs.gs_abort_flag = abort_flag;
    gs.gs_me = me;
    gs.gs_spins = 0;
    gs.gs_next_look = 0;
    gs.gs_backoff_ns = GS_BACKOFF_MIN_NS;
    gs.gs_phase = 0;
    gs.gs_weight = 0;
}
__device__ __forceinline__ bool gs_finish(GsRuntime&) { return true; }

__device__ void gs_assert_failed(unsigned int id) {
    atomicAdd(&gs_stats.assert_failures, 1u);
    atomicCAS(&gs_stats.first_assert, 0u, id + 1);
}
