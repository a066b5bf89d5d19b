// GPU tests skip, visibly, where there is no GPU (CI, the build machine); they run on the GPU
// machine through scripts/gpu-tests.sh.
#pragma once
#include <gtest/gtest.h>

#include "mem/cuda_alloc.h"

#define GNF_REQUIRE_GPU()                                                                  \
  do {                                                                                     \
    if (!::gnf::mem::cuda_device_available())                                              \
      GTEST_SKIP() << "no CUDA device here: GPU tests run on the GPU machine (scripts/gpu-tests.sh)"; \
  } while (0)
