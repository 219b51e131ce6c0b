// ---------------------------------------------------------------------------
// The harness's kernels (src/litmus/gpu/harness_kernels.cu): reset the
// instances, run the test, copy the locations the condition reads.
// ---------------------------------------------------------------------------

// Every location of every instance to its initial value, every output row
// to 0 (no thread ran), the start barrier and the done count to 0.
extern "C" __global__ void litmus_init(const LtParams p) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        lt_sync[LT_ARRIVED] = 0;
        lt_sync[LT_DONE] = 0;
    }
    if (i >= p.groups * p.slots) return;
    lt_init_instance(p, i);
    for (u32 k = 0; k < LT_OUT_WORDS; k++) lt_out[(u64)i * LT_OUT_WORDS + k] = 0;
}

// Testing blocks come first: block b plays CTA role w / groups of instance
// group w % groups (w = the shuffled b); its threads rank * slots + s play
// the litmus thread of that rank for slot s (shuffled). Every other thread
// stresses memory while the test runs (when the launch asks).
extern "C" __global__ void __launch_bounds__(1024) litmus_test(const LtParams p) {
    const u32 b = blockIdx.x, t = threadIdx.x;
    const u32 testers = p.groups * p.slots * LT_THREADS;
    if (b < p.testing_blocks) {
        u32 w = (u32)(((u64)p.block_mul * b + p.block_add) % p.testing_blocks);
        u32 cta = w / p.groups, group = w % p.groups, rank = t / p.slots;
        if (rank < lt_cta_size(cta)) {
            LtCtx c;
            c.inst = group * p.slots + ((p.slot_mul * (t % p.slots) + p.slot_add) & (p.slots - 1u));
            c.bar_count = lt_cta_size(cta) * p.slots;
            c.spins = 0;
            c.aborted = 0;
            u32 thread = lt_thread_at(cta, rank);
            if (p.pre_stress) lt_stress(p, b * blockDim.x + t, p.pre_stress, false, testers);
            if (p.start_barrier) {
                // Bounded on its own: a late start (stress slows the
                // arrivals) is no hang of the test.
                atomicAdd(&lt_sync[LT_ARRIVED], 1u);
                u64 give_up = lt_clock() + (u64)p.budget_us * 1000ull;
                for (u32 k = 1; lt_ld_relaxed(&lt_sync[LT_ARRIVED]) < testers; k++) {
                    if ((k & 63u) == 0 && lt_clock() > give_up) break;
                }
            }
            c.deadline = lt_clock() + (u64)p.budget_us * 1000ull;
            if (p.jitter) {
                long long until = clock64() + (long long)(lt_hash(p.seed ^ (b * blockDim.x + t)) & p.jitter);
                while (clock64() < until) {
                }
            }
            lt_run_thread(c, p, thread);
            lt_out_word(c, LT_TERMS + thread) = c.aborted ? 2u : 1u;
            lt_out_word(c, LT_TERMS + LT_THREADS + thread) = lt_smid();
            atomicAdd(&lt_sync[LT_DONE], 1u);
            return;
        }
    }
    if (p.stress) lt_stress(p, b * blockDim.x + t, p.stress, true, testers);
}

// After the launch (the kernel boundary orders everything): the final
// value of each location the condition names, into the instance's row.
extern "C" __global__ void litmus_collect(const LtParams p) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.groups * p.slots) return;
    lt_collect_instance(p, i);
}
