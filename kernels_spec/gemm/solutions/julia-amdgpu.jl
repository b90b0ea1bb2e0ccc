using AMDGPU

function gemm_kernel!(m, n, k, A, B, C)
    idx = (workgroupIdx().x - 1) * workgroupDim().x + workitemIdx().x
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
    dA = ROCArray(A)
    dB = ROCArray(B)
    dC = ROCArray(C)
    @roc groupsize=256 gridsize=cld(m * n, 256) gemm_kernel!(m, n, k, dA, dB, dC)
    copyto!(C, Array(dC))
    return nothing
end
