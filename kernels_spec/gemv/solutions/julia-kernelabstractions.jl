using KernelAbstractions

@kernel function gemv_ka!(n, @Const(A), @Const(x), y)
    i = @index(Global)
    s = zero(eltype(y))
    for j in 1:n
        @inbounds s += A[i, j] * x[j]
    end
    @inbounds y[i] = s
end

function gemv(m, n, A, x, y)
    backend = get_backend(y)
    gemv_ka!(backend)(n, A, x, y; ndrange = m)
    KernelAbstractions.synchronize(backend)
    return nothing
end
