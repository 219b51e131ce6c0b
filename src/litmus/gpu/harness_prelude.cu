// ---------------------------------------------------------------------------
// gsync-check's litmus harness (src/litmus/gpu/harness_prelude.cu): many
// instances of one litmus test per launch, each on its own copy of the
// locations, with the threads and the memory of instances shuffled at every
// launch and other threads stressing scratch memory (as GPU litmus testing
// does: Kirkham et al., OOPSLA 2020; GPUHarbor, ISSTA 2023).
// The test's part (its threads, LT_LOCS, LT_TERMS, LT_THREADS,
// LT_OUT_WORDS) is generated; see src/litmus/gpu/emit.rs.
// ---------------------------------------------------------------------------
typedef unsigned int u32;
typedef unsigned long long u64;

#define LT_MAX_LOCS 8
#define LT_MAX_INSTANCES 65536u
#define LT_MAX_STRIDE 32u
#define LT_LOC_WORDS (LT_MAX_INSTANCES * LT_MAX_STRIDE)
#define LT_SCRATCH_WORDS (1u << 20)
#define LT_STRESS_SPACING 1024u   // words between two stressed lines (4 KiB)
#define LT_ARRIVED 0              // lt_sync words, each on its own line
#define LT_DONE 32
#define LT_SINK 64

// One launch's parameters (the host's LaunchParams, field for field).
struct LtParams {
    u32 testing_blocks;        // blocks that play a CTA role: ctas * groups
    u32 groups;                // instance groups; a group's CTA roles are played by `ctas` blocks
    u32 slots;                 // instances per group (a power of two, >= 32)
    u32 stride;                // words between two instances' copies of a location
    u32 block_mul, block_add;  // block b plays role block_mul * b + block_add mod testing_blocks
    u32 slot_mul, slot_add;    // thread j * slots + s serves slot slot_mul * s + slot_add mod slots
    u32 loc_mul[LT_MAX_LOCS];  // instance i's copy of location l is the
    u32 loc_add[LT_MAX_LOCS];  //   (loc_mul[l] * i + loc_add[l] mod instances)-th
    u32 start_barrier;         // 1: testing threads wait for each other (bounded) before the test
    u32 pre_stress;            // iterations of stress each testing thread does first
    u32 stress;                // iterations (at most) the other threads stress scratch memory
    u32 stress_pattern;        // 0 st;st  1 st;ld  2 ld;st  3 ld;ld
    u32 stress_lines;          // scratch lines the stressing threads spread over
    u32 stress_offset;         // first stressed word
    u32 jitter;                // a testing thread first waits (hash & jitter) clock cycles
    u32 seed;
    u32 budget_us;             // a spin loop gives up this long after its thread started
};

__device__ __align__(128) u32 lt_locs[LT_LOCS * LT_LOC_WORDS];
__device__ __align__(128) u32 lt_out[LT_MAX_INSTANCES * LT_OUT_WORDS];
__device__ __align__(128) u32 lt_scratch[LT_SCRATCH_WORDS];
__device__ __align__(128) u32 lt_sync[96];

// One testing thread: the instance it serves, its deadline.
struct LtCtx {
    u32 inst;
    u32 bar_count;   // threads of this CTA role in the block (a litmus bar.sync waits for them)
    u32 spins;
    u32 aborted;     // the deadline passed: back edges are no longer taken
    u64 deadline;
};

__device__ __forceinline__ u64 lt_clock() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ u32 lt_smid() {
    u32 s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
__device__ __forceinline__ u32 lt_ld_relaxed(const u32* a) {
    u32 v;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ u32 lt_hash(u32 x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
__device__ __forceinline__ u32* lt_loc(const LtParams& p, u32 l, u32 inst) {
    u32 n = p.groups * p.slots;
    u32 k = (u32)(((u64)p.loc_mul[l] * inst + p.loc_add[l]) % n);
    return &lt_locs[(u64)l * LT_LOC_WORDS + (u64)k * p.stride];
}
__device__ __forceinline__ u32& lt_out_word(const LtCtx& c, u32 slot) {
    return lt_out[(u64)c.inst * LT_OUT_WORDS + slot];
}
// A spin loop's back edge: taken until the thread's deadline, then never
// again (the thread runs on to its end, through the barriers it has left,
// so that no other thread waits for it forever; its instance counts as
// unfinished).
__device__ __forceinline__ bool lt_spin(LtCtx& c) {
    if (c.aborted) return false;
    if ((++c.spins & 63u) == 0 && lt_clock() > c.deadline) {
        c.aborted = 1;
        return false;
    }
    return true;
}
// A litmus bar.sync: the testing threads of this CTA role in the block,
// which are whole warps (threads 0 .. bar_count - 1).
__device__ __forceinline__ void lt_bar(u32 id, const LtCtx& c) {
    asm volatile("barrier.sync %0, %1;" :: "r"(id), "r"(c.bar_count) : "memory");
}

// Memory stress: `who` hammers one word of one of stress_lines scratch
// lines with the launch's pattern, for at most `iters` iterations, and
// stops early once every testing thread is done (if `until_done`).
__device__ void lt_stress(const LtParams& p, u32 who, u32 iters, bool until_done, u32 testers) {
    u32 line = who % p.stress_lines;
    u32 word = (p.stress_offset + line * LT_STRESS_SPACING + (who / p.stress_lines) % 32u) & (LT_SCRATCH_WORDS - 1u);
    volatile u32* a = &lt_scratch[word];
    u32 acc = 0;
    for (u32 i = 0; i < iters; i++) {
        if (until_done && (i & 15u) == 0 && lt_ld_relaxed(&lt_sync[LT_DONE]) >= testers) break;
        switch (p.stress_pattern) {
        case 0: *a = i; *a = i + 1; break;
        case 1: *a = i; acc += *a; break;
        case 2: acc += *a; *a = i; break;
        default: acc += *a; acc += *a; break;
        }
    }
    if (acc == 0x9E3779B9u) lt_sync[LT_SINK] = acc; // keeps the loads
}
