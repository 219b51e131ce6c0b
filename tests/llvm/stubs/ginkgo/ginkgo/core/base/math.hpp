// gsync-check test stub for Ginkgo's ginkgo/core/base/math.hpp (not in the
// corpus, and not Ginkgo's code): the scheduler and its memory helpers use
// none of its math; the integer aliases come with the array stub.
#pragma once
#include <ginkgo/core/base/array.hpp>
