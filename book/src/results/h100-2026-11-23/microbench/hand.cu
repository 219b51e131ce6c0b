// Hand-written one- and two-level barriers: which difference between the
// generated harness and grid.sync() costs what. Template flags:
// ALL: every thread does __syncthreads() around each barrier (CG style) vs
//      thread 0 alone loops (gsync harness master);
// ORDER 0: atom.add.release.gpu + ld.acquire.gpu polling (CG on sm_70+)
//       1: __threadfence(); atomicAdd; volatile polls; __threadfence()  (fast spec)
//       2: fence.acq_rel; atomicAdd; fence.acq_rel; ld.acquire polls  (gsync lowering of .acq_rel)
//       3: atom.add.acq_rel.gpu; ld.acquire polls
// PHASE: harness phase check (volatile store own slot, read another's after)
// POLL: abort polling every 256 spins (globaltimer) as the generated code
// DEP: poll compares with the atomic's old value (CG) vs a local sense bool
__device__ __align__(128) unsigned int bar_word;
__device__ __align__(128) unsigned int cnt[132 * 32];
__device__ __align__(128) unsigned int sm_sense[132 * 32];
__device__ __align__(128) unsigned int gs_arrived[65536];
__device__ __align__(128) unsigned int gs_phase_errors;
__device__ __align__(128) unsigned int abort_word;
__device__ unsigned int smid_of[65536];

__device__ __forceinline__ unsigned atom_add_release(unsigned* p, unsigned v) { unsigned o; asm volatile("atom.add.release.gpu.u32 %0,[%1],%2;" : "=r"(o) : "l"(p), "r"(v) : "memory"); return o; }
__device__ __forceinline__ unsigned atom_add_acqrel(unsigned* p, unsigned v) { unsigned o; asm volatile("atom.add.acq_rel.gpu.u32 %0,[%1],%2;" : "=r"(o) : "l"(p), "r"(v) : "memory"); return o; }
__device__ __forceinline__ void red_add_release(unsigned* p, unsigned v) { asm volatile("red.release.gpu.global.add.u32 [%0],%1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) { unsigned v; asm volatile("ld.acquire.gpu.u32 %0,[%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) { asm volatile("st.release.gpu.u32 [%0],%1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ unsigned long long gclock() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

struct Poll { unsigned spins = 0; unsigned long long next = 0;
  __device__ __forceinline__ bool operator()() {
    if ((++spins & 255u) != 0) return false;
    unsigned long long now = gclock(); if (now < next) return false;
    next = now + 5000000ull; return *(volatile unsigned*)&abort_word != 0; } };

template <int ORDER, int POLL, int DEP>
__device__ __forceinline__ bool one_level(unsigned nb, bool& s, Poll& poll) {
    unsigned old = 0;
    if (ORDER == 0) { if (DEP) old = atom_add_release(&bar_word, nb); else red_add_release(&bar_word, nb); }
    else if (ORDER == 1) { __threadfence(); if (DEP) old = atomicAdd(&bar_word, nb); else atomicAdd(&bar_word, nb); }
    else if (ORDER == 2) { fence_acq_rel(); if (DEP) old = atomicAdd(&bar_word, nb); else atomicAdd(&bar_word, nb); fence_acq_rel(); }
    else { old = atom_add_acqrel(&bar_word, nb); }
    for (;;) {
        unsigned v = ORDER == 1 ? *(volatile unsigned*)&bar_word : ld_acquire(&bar_word);
        bool done = DEP ? (((old ^ v) & 0x80000000u) != 0) : (((v >> 31) != 0) == s);
        if (done) break;
        if (POLL && poll()) return false;
    }
    if (ORDER == 1) __threadfence();
    s = !s;
    return true;
}

__device__ __forceinline__ void phase_enter(unsigned me, unsigned k) { *(volatile unsigned*)&gs_arrived[me] = k; }
__device__ __forceinline__ void phase_exit(unsigned me, unsigned k, unsigned n) {
    unsigned other = (me + 1 + (k - 1) % (n - 1)) % n;
    if (*(volatile unsigned*)&gs_arrived[other] < k) atomicAdd(&gs_phase_errors, 1u);
}

template <int ALL, int ORDER, int PHASE, int POLL, int DEP>
__device__ void one(unsigned iters) {
    unsigned n = gridDim.x, me = blockIdx.x;
    unsigned nb = me == 0 ? 0x80000000u - (n - 1) : 1u;
    bool s = true; Poll poll;
    if (ALL) {
        for (unsigned k = 1; k <= iters; k++) {
            if (threadIdx.x == 0 && PHASE) phase_enter(me, k);
            __syncthreads();
            if (threadIdx.x == 0) one_level<ORDER, POLL, DEP>(nb, s, poll);
            __syncthreads();
            if (threadIdx.x == 0 && PHASE) phase_exit(me, k, n);
        }
    } else {
        if (threadIdx.x == 0) {
            for (unsigned k = 1; k <= iters; k++) {
                if (PHASE) phase_enter(me, k);
                if (!one_level<ORDER, POLL, DEP>(nb, s, poll)) break;
                if (PHASE) phase_exit(me, k, n);
            }
        }
        __syncthreads();
    }
}

#define K(name, ...) extern "C" __global__ void name(unsigned iters) { one<__VA_ARGS__>(iters); }
// The variants (ALL, ORDER, PHASE, POLL, DEP):
K(k_cg_all, 1, 0, 0, 0, 1) K(k_cg_all_phase, 1, 0, 1, 0, 1) K(k_cg_t0, 0, 0, 0, 0, 1) K(k_cg_t0_sense, 0, 0, 0, 0, 0)
K(k_cg_t0_phase, 0, 0, 1, 0, 1) K(k_cg_t0_poll, 0, 0, 0, 1, 1) K(k_cg_t0_phase_poll, 0, 0, 1, 1, 1) K(k_fence_t0, 0, 1, 0, 0, 0)
K(k_fence_t0_phase_poll, 0, 1, 1, 1, 0) K(k_fence_all, 1, 1, 0, 0, 0) K(k_acqrel_fences_t0, 0, 2, 0, 0, 0) K(k_acqrel_atom_t0, 0, 3, 0, 0, 1)

// Two levels, groups of `per` blocks (blockIdx % groups, the GPU's round-robin
// placement): the last arriver of a group (old value of its atom.add.acq_rel
// on the group's own line) adds to the CCG word with release; HIER: only the
// leaders poll the global word and wake their group through its own line.
template <int HIER>
__device__ void two(unsigned iters) {
    if (threadIdx.x == 0) {
        unsigned per = gridDim.x / 132, groups = 132;
        unsigned g = blockIdx.x % groups;
        unsigned nb = g == 0 ? 0x80000000u - (groups - 1) : 1u;
        bool s = true;
        for (unsigned k = 1; k <= iters; k++) {
            unsigned old = atom_add_acqrel(&cnt[g * 32], 1);
            bool leader = old % per == per - 1;
            if (leader || !HIER) {
                if (leader) red_add_release(&bar_word, nb);
                while ((((ld_acquire(&bar_word) >> 31) != 0)) != s) {}
                if (HIER) st_release(&sm_sense[g * 32], s);
            } else {
                while ((ld_acquire(&sm_sense[g * 32]) != 0) != s) {}
            }
            s = !s;
        }
    }
    __syncthreads();
}
extern "C" __global__ void k_two(unsigned iters) { two<0>(iters); }
extern "C" __global__ void k_two_hier(unsigned iters) { two<1>(iters); }
extern "C" __global__ void k_smid(unsigned iters) {
    unsigned id; asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    if (threadIdx.x == 0) smid_of[blockIdx.x] = id;
}
