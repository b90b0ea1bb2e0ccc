function _matvec!(out, n, row_ptr, col_idx, values, v)
    Threads.@threads for i in 1:n
        s = 0.0
        for k in row_ptr[i]:(row_ptr[i + 1] - 1)
            @inbounds s += values[k] * v[col_idx[k]]
        end
        @inbounds out[i] = s
    end
    return out
end

function cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter)
    ap = similar(x)
    _matvec!(ap, n, row_ptr, col_idx, values, x)
    r = b .- ap
    p = copy(r)
    rr = sum(abs2, r)
    bnorm = sqrt(sum(abs2, b))
    if bnorm == 0
        fill!(x, 0)
        return nothing
    end
    for _ in 1:max_iter
        sqrt(rr) <= tol * bnorm && break
        _matvec!(ap, n, row_ptr, col_idx, values, p)
        alpha = rr / sum(p .* ap)
        x .+= alpha .* p
        r .-= alpha .* ap
        rr_new = sum(abs2, r)
        p .= r .+ (rr_new / rr) .* p
        rr = rr_new
    end
    return nothing
end
