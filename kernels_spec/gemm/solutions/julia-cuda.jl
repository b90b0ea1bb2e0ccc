using CUDA

function gemm_kernel!(m, n, k, A, B, C)
    idx = (blockIdx().x - 1) * blockDim().x + threadIdx().x
    if idx <= m * n
        i = (idx - 1) % m + 1
        j = (idx - 1) ÷ m + 1
        s = zero(eltype(C))
        for p in 1:k
            @inbounds s += A[i, p] * B[p, j]
        end
        @inbounds C[i, j] = s
    end
    return nothing
end

function gemm(m, n, k, A, B, C)
    dA = CuArray(A)
    dB = CuArray(B)
    dC = CuArray(C)
    @cuda threads=256 blocks=cld(m * n, 256) gemm_kernel!(m, n, k, dA, dB, dC)
    copyto!(C, Array(dC))
    return nothing
end
