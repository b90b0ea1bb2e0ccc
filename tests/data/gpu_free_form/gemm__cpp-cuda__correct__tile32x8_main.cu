// dgemm_tiled.cu
// C = A * B in double precision, all matrices row-major:
//   A is M x K, B is K x N, C is M x N.
//
// Tiling: each block computes a 32 x 32 tile of C with a 32 x 8 thread block.
// Every thread owns one column of the tile and 4 rows (ty, ty+8, ty+16, ty+24),
// so the kernel MUST be launched with blockDim = dim3(32, 8).
//
// Build:  nvcc -O3 -arch=sm_80 dgemm_tiled.cu -o dgemm_tiled
// Run:    ./dgemm_tiled [M N K]

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t err__ = (x);                                                   \
        if (err__ != cudaSuccess) {                                                \
            fprintf(stderr, "CUDA error: %s (%s:%d)\n", cudaGetErrorString(err__), \
                    __FILE__, __LINE__);                                           \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;                    // blockDim.y
constexpr int ROWS_PER_THREAD = TILE / BLOCK_ROWS;  // 4

__global__ void dgemm_tiled(int M, int N, int K,
                            const double* __restrict__ A,
                            const double* __restrict__ B,
                            double* __restrict__ C)
{
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE + 1];  // +1: avoid bank conflicts

    const int tx = threadIdx.x;              // 0..31
    const int ty = threadIdx.y;              // 0..7
    const int col = blockIdx.x * TILE + tx;
    const int rowBase = blockIdx.y * TILE;

    double acc[ROWS_PER_THREAD] = {0.0, 0.0, 0.0, 0.0};

    for (int t = 0; t < K; t += TILE) {
        // cooperative load of the A and B tiles (zero padded at the edges)
#pragma unroll
        for (int r = 0; r < ROWS_PER_THREAD; ++r) {
            const int lr = ty + r * BLOCK_ROWS;
            const int aRow = rowBase + lr;
            const int aCol = t + tx;
            As[lr][tx] = (aRow < M && aCol < K) ? A[(size_t)aRow * K + aCol] : 0.0;

            const int bRow = t + lr;
            Bs[lr][tx] = (bRow < K && col < N) ? B[(size_t)bRow * N + col] : 0.0;
        }
        __syncthreads();

#pragma unroll 8
        for (int p = 0; p < TILE; ++p) {
            const double b = Bs[p][tx];
#pragma unroll
            for (int r = 0; r < ROWS_PER_THREAD; ++r) {
                acc[r] += As[ty + r * BLOCK_ROWS][p] * b;
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; ++r) {
        const int row = rowBase + ty + r * BLOCK_ROWS;
        if (row < M && col < N) {
            C[(size_t)row * N + col] = acc[r];
        }
    }
}

static void reference_gemm(int M, int N, int K, const std::vector<double>& A,
                           const std::vector<double>& B, std::vector<double>& C)
{
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0.0;
            for (int p = 0; p < K; ++p) s += A[(size_t)i * K + p] * B[(size_t)p * N + j];
            C[(size_t)i * N + j] = s;
        }
}

int main(int argc, char** argv)
{
    int M = 513, N = 257, K = 129;
    if (argc == 4) {
        M = atoi(argv[1]);
        N = atoi(argv[2]);
        K = atoi(argv[3]);
    }

    std::vector<double> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N), hRef((size_t)M * N);
    srand(1234);
    for (auto& v : hA) v = rand() / (double)RAND_MAX - 0.5;
    for (auto& v : hB) v = rand() / (double)RAND_MAX - 0.5;

    double *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, hA.size() * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&dB, hB.size() * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&dC, hC.size() * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(double), cudaMemcpyHostToDevice));

    dim3 block(TILE, BLOCK_ROWS);  // (32, 8) -- required by the kernel
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    dgemm_tiled<<<grid, block>>>(M, N, K, dA, dB, dC);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    CUDA_CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(double), cudaMemcpyDeviceToHost));

    reference_gemm(M, N, K, hA, hB, hRef);
    double maxErr = 0.0;
    for (size_t i = 0; i < hC.size(); ++i) maxErr = fmax(maxErr, fabs(hC[i] - hRef[i]));

    printf("M=%d N=%d K=%d  time %.3f ms  %.2f GFLOP/s  max|err| = %.3e\n", M, N, K, ms,
           2.0 * M * N * K / (ms * 1e6), maxErr);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return maxErr < 1e-9 ? 0 : 1;
}
