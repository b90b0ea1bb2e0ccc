using AMDGPU

function saxpy_kernel!(n, a, x, y)
    i = (workgroupIdx().x - 1) * workgroupDim().x + workitemIdx().x
    if i <= n
        @inbounds y[i] = a * x[i] + y[i]
    end
    return nothing
end

function saxpy(n, a, x, y)
    dx = ROCArray(x)
    dy = ROCArray(y)
    @roc groupsize=256 gridsize=cld(n, 256) saxpy_kernel!(n, a, dx, dy)
    copyto!(y, Array(dy))
    return nothing
end
