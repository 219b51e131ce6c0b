// gsync-check test stub for flashinfer's exception.h (not in the corpus):
// the host-side checks do nothing. Reached as "../exception.h" from
// flashinfer/comm/ through the include folder stubs/flashinfer/comm.
#pragma once
#define FLASHINFER_CHECK(...) do {} while (0)
#define FLASHINFER_ERROR(...) do {} while (0)
