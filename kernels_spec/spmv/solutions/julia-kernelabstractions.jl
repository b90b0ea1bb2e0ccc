using KernelAbstractions

@kernel function spmv_ka!(@Const(row_ptr), @Const(col_idx), @Const(values), @Const(x), y)
    i = @index(Global)
    s = zero(eltype(y))
    for k in row_ptr[i]:(row_ptr[i + 1] - 1)
        @inbounds s += values[k] * x[col_idx[k]]
    end
    @inbounds y[i] = s
end

function spmv(n, nnz, row_ptr, col_idx, values, x, y)
    backend = get_backend(y)
    spmv_ka!(backend)(row_ptr, col_idx, values, x, y; ndrange = n)
    KernelAbstractions.synchronize(backend)
    return nothing
end
