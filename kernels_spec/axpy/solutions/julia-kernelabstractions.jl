using KernelAbstractions

@kernel function saxpy_ka!(a, @Const(x), y)
    i = @index(Global)
    @inbounds y[i] = a * x[i] + y[i]
end

function saxpy(n, a, x, y)
    backend = get_backend(y)
    saxpy_ka!(backend)(a, x, y; ndrange = n)
    KernelAbstractions.synchronize(backend)
    return nothing
end
