using AMDGPU

function gemv_kernel!(m, n, A, x, y)
    i = (workgroupIdx().x - 1) * workgroupDim().x + workitemIdx().x
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
    dA = ROCArray(A)
    dx = ROCArray(x)
    dy = ROCArray(y)
    @roc groupsize=256 gridsize=cld(m, 256) gemv_kernel!(m, n, dA, dx, dy)
    copyto!(y, Array(dy))
    return nothing
end
