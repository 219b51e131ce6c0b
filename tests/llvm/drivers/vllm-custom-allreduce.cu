// gsync-check test driver: the two vLLM custom all-reduce kernels
// (start/end sync barriers), instantiated for float on 2 GPUs. The test
// compiles it with -D__restrict__= (clang refuses the implicit copy of a
// struct of __restrict__ pointers in host code).
#include <array>  // the header uses std::array without including it
#include "cuda-corpus/vllm-custom-allreduce/src/csrc/custom_all_reduce.cuh"

template __global__ void vllm::cross_device_reduce_1stage<float, 2>(vllm::RankData *, vllm::RankSignals,
                                                                   volatile vllm::Signal *, float *, int, int);
template __global__ void vllm::cross_device_reduce_2stage<float, 2>(vllm::RankData *, vllm::RankSignals,
                                                                   volatile vllm::Signal *, float *, int, int);
