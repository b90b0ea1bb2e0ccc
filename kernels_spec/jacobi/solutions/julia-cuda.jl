using CUDA

function jacobi_kernel!(nx, ny, nz, u, unew)
    i = (blockIdx().x - 1) * blockDim().x + threadIdx().x
    j = (blockIdx().y - 1) * blockDim().y + threadIdx().y
    k = (blockIdx().z - 1) * blockDim().z + threadIdx().z
    if 1 < i < nx && 1 < j < ny && 1 < k < nz
        @inbounds unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] +
                                   u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    end
    return nothing
end

function jacobi(nx, ny, nz, u, unew)
    du = CuArray(u)
    dunew = CuArray(unew)
    @cuda threads=(4, 8, 8) blocks=(cld(nx, 4), cld(ny, 8), cld(nz, 8)) jacobi_kernel!(nx, ny, nz, du, dunew)
    copyto!(unew, Array(dunew))
    return nothing
end
