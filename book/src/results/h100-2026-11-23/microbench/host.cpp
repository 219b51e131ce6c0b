// Side-by-side barrier timing: loads cubins with the driver API and times
// each kernel (CUDA events), interleaved in rounds so that clock drift hits
// all variants alike. Usage: host B ITERS ROUNDS SMS label=cubin:kernel:kind ...
// kind: coop (args: iters, cooperative launch), hand (args: iters, normal),
//       gen (args: abort, finished; iters baked in; normal launch).
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1); } } while (0)
struct E { std::string label, cubin, kernel, kind; std::vector<float> ms; };
int main(int argc, char** argv) {
    int B = atoi(argv[1]); unsigned iters = atoi(argv[2]); int rounds = atoi(argv[3]); int sms = atoi(argv[4]);
    std::vector<E> es;
    for (int i = 5; i < argc; i++) {
        std::string a = argv[i]; E e;
        size_t eq = a.find('='), c1 = a.find(':', eq), c2 = a.find(':', c1 + 1);
        e.label = a.substr(0, eq); e.cubin = a.substr(eq + 1, c1 - eq - 1);
        e.kernel = a.substr(c1 + 1, c2 - c1 - 1); e.kind = a.substr(c2 + 1);
        es.push_back(e);
    }
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    unsigned blocks = B * sms;
    unsigned *abort_h, *fin_h; CUdeviceptr abort_d, fin_d;
    CK(cuMemHostAlloc((void**)&abort_h, 4, CU_MEMHOSTALLOC_DEVICEMAP)); *abort_h = 0;
    CK(cuMemHostAlloc((void**)&fin_h, 4 * blocks, CU_MEMHOSTALLOC_DEVICEMAP));
    CK(cuMemHostGetDevicePointer(&abort_d, abort_h, 0)); CK(cuMemHostGetDevicePointer(&fin_d, fin_h, 0));
    CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
    for (int r = 0; r <= rounds; r++) {
        for (auto& e : es) {
            CUmodule m; CK(cuModuleLoad(&m, e.cubin.c_str()));
            CUfunction f; CK(cuModuleGetFunction(&f, m, e.kernel.c_str()));
            int occ = 0; CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, f, 128, 0));
            if (occ < B) { if (r == 0) printf("%s: only %d blocks/SM fit\n", e.label.c_str(), occ); CK(cuModuleUnload(m)); continue; }
            void* a_gen[] = {&abort_d, &fin_d};
            void* a_it[] = {&iters};
            void** args = e.kind == "gen" ? a_gen : a_it;
            CK(cuEventRecord(e0, 0));
            if (e.kind == "coop") CK(cuLaunchCooperativeKernel(f, blocks, 1, 1, 128, 1, 1, 0, 0, args));
            else CK(cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, 0, args, 0));
            CK(cuEventRecord(e1, 0));
            CK(cuEventSynchronize(e1));
            float ms; CK(cuEventElapsedTime(&ms, e0, e1));
            if (r > 0) e.ms.push_back(ms);
            CUdeviceptr p; size_t sz;
            if (e.kind == "smid" && r == 1) {
                std::vector<unsigned> id(blocks); CK(cuModuleGetGlobal(&p, &sz, m, "smid_of")); CK(cuMemcpyDtoH(id.data(), p, 4 * blocks));
                std::vector<int> per(1024, 0); unsigned same = 0, maxper = 0, nsm = 0;
                for (unsigned b = 0; b < blocks; b++) { per[id[b]]++; if (id[b] == id[b % sms]) same++; }
                for (int x : per) { if (x) nsm++; if ((unsigned)x > maxper) maxper = x; }
                printf("B=%d smid: %u SMs used, max %u blocks on one SM, %u of %u blocks on the SM of block b %% %d; first:", B, nsm, maxper, same, blocks, sms);
                for (unsigned b = 0; b < 12 && b < blocks; b++) printf(" %u", id[b]);
                printf(" ... block %d: %u\n", sms, blocks > (unsigned)sms ? id[sms] : 0);
            }
            if (cuModuleGetGlobal(&p, &sz, m, "gs_phase_errors") == CUDA_SUCCESS) {
                unsigned v; CK(cuMemcpyDtoH(&v, p, 4)); if (v) printf("%s: %u phase errors\n", e.label.c_str(), v);
            }
            if (cuModuleGetGlobal(&p, &sz, m, "gs_stats") == CUDA_SUCCESS) {
                unsigned v[7]; CK(cuMemcpyDtoH(v, p, 28)); if (v[4] || v[5]) printf("%s: %u phase errors %u assert failures\n", e.label.c_str(), v[4], v[5]);
            }
            CK(cuModuleUnload(m));
        }
    }
    for (auto& e : es) {
        if (e.ms.empty()) continue;
        std::sort(e.ms.begin(), e.ms.end());
        float med = e.ms[e.ms.size() / 2];
        printf("B=%-2d %-24s %8.3f us/op  (min %.3f max %.3f)\n", B, e.label.c_str(), med * 1000.f / iters,
               e.ms.front() * 1000.f / iters, e.ms.back() * 1000.f / iters);
    }
    return 0;
}
