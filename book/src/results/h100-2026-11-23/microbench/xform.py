import re, sys
# Rewrites the phase-check functions of an emitted file: immediate | sampled | none
src, mode, dst = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(src).read()
def repl(name, body):
    global s
    i = s.index("__device__ __forceinline__ void %s(GsRuntime& gs) {" % name)
    j = s.index("\n}\n", i) + 3
    s = s[:i] + "__device__ __forceinline__ void %s(GsRuntime& gs) {\n%s\n}\n" % (name, body) + s[j:]
OTHER = "unsigned int other = (gs.gs_me + 1 + (gs.gs_phase - 1) % (GS_PARTICIPANTS - 1)) % GS_PARTICIPANTS;"
if mode == "immediate":
    repl("gs_phase_exit", "gs.gs_backoff_ns = GS_BACKOFF_MIN_NS; if (GS_PARTICIPANTS > 1) { %s if (gs_ld_volatile(&gs_arrived[other]) < gs.gs_phase) atomicAdd(&gs_stats.phase_errors, 1u); }" % OTHER)
elif mode == "sampled":
    repl("gs_phase_enter", "gs.gs_phase++; if (gs.gs_phase % 8 == 0) gs_st_volatile(&gs_arrived[gs.gs_me], gs.gs_phase);")
    repl("gs_phase_exit", "gs.gs_backoff_ns = GS_BACKOFF_MIN_NS; if (GS_PARTICIPANTS > 1 && gs.gs_phase %% 8 == 0) { %s if (gs_ld_volatile(&gs_arrived[other]) < gs.gs_phase) atomicAdd(&gs_stats.phase_errors, 1u); }" % OTHER)
elif mode == "none":
    repl("gs_phase_enter", "gs.gs_phase++;")
    repl("gs_phase_exit", "gs.gs_backoff_ns = GS_BACKOFF_MIN_NS;")
open(dst, "w").write(s)
