using AMDGPU
using LinearAlgebra

function matvec_kernel!(n, row_ptr, col_idx, values, v, out)
    i = (workgroupIdx().x - 1) * workgroupDim().x + workitemIdx().x
    if i <= n
        s = 0.0
        for k in row_ptr[i]:(row_ptr[i + 1] - 1)
            @inbounds s += values[k] * v[col_idx[k]]
        end
        @inbounds out[i] = s
    end
    return nothing
end

function cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter)
    rp = ROCArray(row_ptr)
    ci = ROCArray(col_idx)
    va = ROCArray(values)
    db = ROCArray(b)
    dx = ROCArray(x)
    ap = similar(dx)
    @roc groupsize=256 gridsize=cld(n, 256) matvec_kernel!(n, rp, ci, va, dx, ap)
    r = db .- ap
    p = copy(r)
    rr = dot(r, r)
    bnorm = sqrt(dot(db, db))
    if bnorm == 0
        fill!(x, 0)
        return nothing
    end
    for _ in 1:max_iter
        sqrt(rr) <= tol * bnorm && break
        @roc groupsize=256 gridsize=cld(n, 256) matvec_kernel!(n, rp, ci, va, p, ap)
        alpha = rr / dot(p, ap)
        dx .+= alpha .* p
        r .-= alpha .* ap
        rr_new = dot(r, r)
        p .= r .+ (rr_new / rr) .* p
        rr = rr_new
    end
    AMDGPU.synchronize()
    copyto!(x, Array(dx))
    return nothing
end
