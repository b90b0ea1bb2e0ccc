using AMDGPU

function spmv_kernel!(n, row_ptr, col_idx, values, x, y)
    i = (workgroupIdx().x - 1) * workgroupDim().x + workitemIdx().x
    if i <= n
        s = zero(eltype(y))
        for k in row_ptr[i]:(row_ptr[i + 1] - 1)
            @inbounds s += values[k] * x[col_idx[k]]
        end
        @inbounds y[i] = s
    end
    return nothing
end

function spmv(n, nnz, row_ptr, col_idx, values, x, y)
    d_row_ptr = ROCArray(row_ptr)
    d_col_idx = ROCArray(col_idx)
    d_values = ROCArray(values)
    dx = ROCArray(x)
    dy = ROCArray(y)
    @roc groupsize=256 gridsize=cld(n, 256) spmv_kernel!(n, d_row_ptr, d_col_idx, d_values, dx, dy)
    copyto!(y, Array(dy))
    return nothing
end
