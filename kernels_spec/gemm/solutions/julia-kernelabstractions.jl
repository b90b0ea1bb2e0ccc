using KernelAbstractions

@kernel function gemm_ka!(k, @Const(A), @Const(B), C)
    i, j = @index(Global, NTuple)
    s = zero(eltype(C))
    for p in 1:k
        @inbounds s += A[i, p] * B[p, j]
    end
    @inbounds C[i, j] = s
end

function gemm(m, n, k, A, B, C)
    backend = get_backend(C)
    gemm_ka!(backend)(k, A, B, C; ndrange = (m, n))
    KernelAbstractions.synchronize(backend)
    return nothing
end
