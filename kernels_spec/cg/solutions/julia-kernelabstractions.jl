using KernelAbstractions
using LinearAlgebra

@kernel function matvec_ka!(@Const(row_ptr), @Const(col_idx), @Const(values), @Const(v), out)
    i = @index(Global)
    s = zero(eltype(out))
    for k in row_ptr[i]:(row_ptr[i + 1] - 1)
        @inbounds s += values[k] * v[col_idx[k]]
    end
    @inbounds out[i] = s
end

function cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter)
    backend = get_backend(x)
    matvec! = matvec_ka!(backend)
    ap = similar(x)
    matvec!(row_ptr, col_idx, values, x, ap; ndrange = n)
    KernelAbstractions.synchronize(backend)
    r = b .- ap
    p = copy(r)
    rr = dot(r, r)
    bnorm = sqrt(dot(b, b))
    if bnorm == 0
        fill!(x, 0)
        return nothing
    end
    for _ in 1:max_iter
        sqrt(rr) <= tol * bnorm && break
        matvec!(row_ptr, col_idx, values, p, ap; ndrange = n)
        KernelAbstractions.synchronize(backend)
        alpha = rr / dot(p, ap)
        x .+= alpha .* p
        r .-= alpha .* ap
        rr_new = dot(r, r)
        p .= r .+ (rr_new / rr) .* p
        rr = rr_new
    end
    return nothing
end
