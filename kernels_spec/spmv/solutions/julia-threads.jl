function spmv(n, nnz, row_ptr, col_idx, values, x, y)
    Threads.@threads for i in 1:n
        s = zero(eltype(y))
        for k in row_ptr[i]:(row_ptr[i + 1] - 1)
            @inbounds s += values[k] * x[col_idx[k]]
        end
        @inbounds y[i] = s
    end
    return nothing
end
