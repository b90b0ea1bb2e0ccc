function gemm(m, n, k, A, B, C)
    Threads.@threads for j in 1:n
        for i in 1:m
            s = zero(eltype(C))
            for p in 1:k
                @inbounds s += A[i, p] * B[p, j]
            end
            @inbounds C[i, j] = s
        end
    end
    return nothing
end
