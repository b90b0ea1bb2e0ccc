using KernelAbstractions

@kernel function jacobi_ka!(@Const(u), unew)
    i0, j0, k0 = @index(Global, NTuple)
    i, j, k = i0 + 1, j0 + 1, k0 + 1
    @inbounds unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] +
                               u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
end

function jacobi(nx, ny, nz, u, unew)
    (nx < 3 || ny < 3 || nz < 3) && return nothing
    backend = get_backend(unew)
    jacobi_ka!(backend)(u, unew; ndrange = (nx - 2, ny - 2, nz - 2))
    KernelAbstractions.synchronize(backend)
    return nothing
end
