using CUDA

function saxpy_kernel!(n, a, x, y)
    i = (blockIdx().x - 1) * blockDim().x + threadIdx().x
    if i <= n
        @inbounds y[i] = a * x[i] + y[i]
    end
    return nothing
end

function saxpy(n, a, x, y)
    dx = CuArray(x)
    dy = CuArray(y)
    @cuda threads=256 blocks=cld(n, 256) saxpy_kernel!(n, a, dx, dy)
    copyto!(y, Array(dy))
    return nothing
end
