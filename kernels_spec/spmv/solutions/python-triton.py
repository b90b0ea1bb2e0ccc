import torch
import triton
import triton.language as tl

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # "cpu": Triton's interpreter (TRITON_INTERPRET=1)


@triton.jit
def _spmv_kernel(row_ptr, col_idx, values, x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """One program per row: the row's nonzeros in chunks of BLOCK."""
    row = tl.program_id(0)
    start = tl.load(row_ptr + row)
    end = tl.load(row_ptr + row + 1)
    acc = tl.zeros((BLOCK,), dtype=tl.float64)
    for base in range(start, end, BLOCK):
        ks = base + tl.arange(0, BLOCK)
        mask = ks < end
        cols = tl.load(col_idx + ks, mask=mask, other=0)
        acc += tl.load(values + ks, mask=mask, other=0.0) * tl.load(x_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    d_row_ptr = torch.from_numpy(row_ptr[: n + 1]).to(DEVICE)
    d_col_idx = torch.from_numpy(col_idx[:nnz]).to(DEVICE)
    d_values = torch.from_numpy(values[:nnz]).to(DEVICE)
    d_x = torch.from_numpy(x).to(DEVICE)
    d_y = torch.empty(n, dtype=torch.float64, device=DEVICE)
    if n > 0:
        _spmv_kernel[(n,)](d_row_ptr, d_col_idx, d_values, d_x, d_y, n, BLOCK=16)
    y[:n] = d_y.cpu().numpy()
