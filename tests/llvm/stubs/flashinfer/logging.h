// gsync-check test stub for flashinfer's logging.h (not in the corpus).
#pragma once
#define FLASHINFER_LOG_DEBUG(...) do {} while (0)
