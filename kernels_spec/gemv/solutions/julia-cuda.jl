using CUDA

function gemv_kernel!(m, n, A, x, y)
    i = (blockIdx().x - 1) * blockDim().x + threadIdx().x
    if i <= m
        s = zero(eltype(y))
        for j in 1:n
            @inbounds s += A[i, j] * x[j]
        end
        @inbounds y[i] = s
    end
    return nothing
end

function gemv(m, n, A, x, y)
    dA = CuArray(A)
    dx = CuArray(x)
    dy = CuArray(y)
    @cuda threads=256 blocks=cld(m, 256) gemv_kernel!(m, n, dA, dx, dy)
    copyto!(y, Array(dy))
    return nothing
end
