// gsync-check test stub for desul's CMake-generated Config.hpp: the CUDA
// back end, without relocatable device code.
#pragma once
#define DESUL_ATOMICS_ENABLE_CUDA
