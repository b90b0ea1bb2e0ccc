function gemv(m, n, A, x, y)
    Threads.@threads for i in 1:m
        s = zero(eltype(y))
        for j in 1:n
            @inbounds s += A[i, j] * x[j]
        end
        @inbounds y[i] = s
    end
    return nothing
end
