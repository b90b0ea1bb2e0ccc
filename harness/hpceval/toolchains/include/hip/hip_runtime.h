// hpceval: HIP on NVIDIA GPUs. A harness-owned header that maps the HIP runtime API that kernels use onto the
// CUDA runtime, so HIP code builds with nvcc (`#include <hip/hip_runtime.h>` finds this file through -I).
// AMD's own HIP-on-NVIDIA headers (hipother) are not packaged anywhere we can install from, and Debian's HIP 5.2
// ones no longer build against CUDA 12/13. Kernel syntax (__global__, __shared__, threadIdx, <<<>>>, atomics,
// __syncthreads) is the same in both; only the runtime API names differ. Coverage: memory (malloc/free/copy/set,
// managed, host-pinned), launch (hipLaunchKernelGGL, <<<>>>), synchronisation, errors, streams, events,
// device queries, the hipThreadIdx_x-style macros and warp shuffles without _sync.
#ifndef HPCEVAL_HIP_RUNTIME_H
#define HPCEVAL_HIP_RUNTIME_H

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 0

// ------------------------------------------------------------------ types and constants
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaFuncCache hipFuncCache_t;
typedef cudaDeviceAttr hipDeviceAttribute_t;
typedef cudaPointerAttributes hipPointerAttribute_t;
typedef void *hipDeviceptr_t;

#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorMemoryAllocation cudaErrorMemoryAllocation
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorInvalidDevice cudaErrorInvalidDevice
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInvalidDevicePointer cudaErrorInvalidDevicePointer
#define hipErrorLaunchFailure cudaErrorLaunchFailure
#define hipErrorInvalidConfiguration cudaErrorInvalidConfiguration

#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault

#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostMallocPortable cudaHostAllocPortable
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocWriteCombined cudaHostAllocWriteCombined
#define hipMemAttachGlobal cudaMemAttachGlobal
#define hipMemAttachHost cudaMemAttachHost
#define hipStreamDefault cudaStreamDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipEventDefault cudaEventDefault
#define hipEventBlockingSync cudaEventBlockingSync
#define hipEventDisableTiming cudaEventDisableTiming
#define hipFuncCachePreferNone cudaFuncCachePreferNone
#define hipFuncCachePreferShared cudaFuncCachePreferShared
#define hipFuncCachePreferL1 cudaFuncCachePreferL1

#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor

// ------------------------------------------------------------------ errors, devices, synchronisation
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceReset cudaDeviceReset
#define hipDeviceSetCacheConfig cudaDeviceSetCacheConfig
#define hipFuncSetCacheConfig cudaFuncSetCacheConfig
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipPointerGetAttributes cudaPointerGetAttributes
#define hipInit(flags) cudaFree(0)

// ------------------------------------------------------------------ memory
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMallocManaged cudaMallocManaged
#define hipMallocPitch cudaMallocPitch
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpy2D cudaMemcpy2D
#define hipMemcpyToSymbol cudaMemcpyToSymbol
#define hipMemcpyFromSymbol cudaMemcpyFromSymbol
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemGetInfo cudaMemGetInfo
#define hipMemPrefetchAsync cudaMemPrefetchAsync
#define hipMallocHost cudaMallocHost
#define hipHostFree cudaFreeHost
#define hipFreeHost cudaFreeHost
#define hipHostRegister cudaHostRegister
#define hipHostUnregister cudaHostUnregister
#define hipHostGetDevicePointer cudaHostGetDevicePointer

template <typename T>
static inline hipError_t hipHostMalloc(T **ptr, size_t bytes, unsigned int flags = 0) {
  return cudaHostAlloc(reinterpret_cast<void **>(ptr), bytes, flags);
}
static inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void *src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}
static inline hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}
static inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
}

// ------------------------------------------------------------------ streams and events
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipStreamQuery cudaStreamQuery
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipEventQuery cudaEventQuery

// ------------------------------------------------------------------ kernels
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(sym) (sym)
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

// hipLaunchKernelGGL(kernel, grid, block, shared bytes, stream, args...) is a plain triple-chevron launch.
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  do {                                                                \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__);      \
  } while (0)

static inline hipError_t hipLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                         hipStream_t stream) {
  return cudaLaunchKernel(func, grid, block, args, shmem, stream);
}

// HIP's warp functions have no mask argument: all lanes of the warp take part.
#ifdef __CUDACC__
template <typename T>
__device__ inline T __shfl(T var, int src, int width = warpSize) {
  return __shfl_sync(0xffffffffu, var, src, width);
}
template <typename T>
__device__ inline T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return __shfl_down_sync(0xffffffffu, var, delta, width);
}
template <typename T>
__device__ inline T __shfl_up(T var, unsigned int delta, int width = warpSize) {
  return __shfl_up_sync(0xffffffffu, var, delta, width);
}
template <typename T>
__device__ inline T __shfl_xor(T var, int mask, int width = warpSize) {
  return __shfl_xor_sync(0xffffffffu, var, mask, width);
}
#endif

#endif  // HPCEVAL_HIP_RUNTIME_H
