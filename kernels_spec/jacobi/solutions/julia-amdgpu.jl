using AMDGPU

function jacobi_kernel!(nx, ny, nz, u, unew)
    i = (workgroupIdx().x - 1) * workgroupDim().x + workitemIdx().x
    j = (workgroupIdx().y - 1) * workgroupDim().y + workitemIdx().y
    k = (workgroupIdx().z - 1) * workgroupDim().z + workitemIdx().z
    if 1 < i < nx && 1 < j < ny && 1 < k < nz
        @inbounds unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] +
                                   u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    end
    return nothing
end

function jacobi(nx, ny, nz, u, unew)
    du = ROCArray(u)
    dunew = ROCArray(unew)
    @roc groupsize=(4, 8, 8) gridsize=(cld(nx, 4), cld(ny, 8), cld(nz, 8)) jacobi_kernel!(nx, ny, nz, du, dunew)
    copyto!(unew, Array(dunew))
    return nothing
end
