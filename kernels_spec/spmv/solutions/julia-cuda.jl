using CUDA

function spmv_kernel!(n, row_ptr, col_idx, values, x, y)
    i = (blockIdx().x - 1) * blockDim().x + threadIdx().x
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
    d_row_ptr = CuArray(row_ptr)
    d_col_idx = CuArray(col_idx)
    d_values = CuArray(values)
    dx = CuArray(x)
    dy = CuArray(y)
    @cuda threads=256 blocks=cld(n, 256) spmv_kernel!(n, d_row_ptr, d_col_idx, d_values, dx, dy)
    copyto!(y, Array(dy))
    return nothing
end
