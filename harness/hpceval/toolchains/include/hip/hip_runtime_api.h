// hpceval: HIP on NVIDIA GPUs (see hip_runtime.h).
#include "hip_runtime.h"
