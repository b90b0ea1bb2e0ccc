import torch
import triton
import triton.language as tl

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # "cpu": Triton's interpreter (TRITON_INTERPRET=1)


@triton.jit
def _gemv_kernel(A_ptr, x_ptr, y_ptr, m, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float64)
    for start in range(0, n, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        a = tl.load(A_ptr + rows[:, None] * n + cols[None, :], mask=(rows[:, None] < m) & (cols[None, :] < n),
                    other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < m)


def gemv(m, n, A, x, y):
    d_A = torch.from_numpy(A).to(DEVICE).contiguous()
    d_x = torch.from_numpy(x).to(DEVICE)
    d_y = torch.empty(m, dtype=torch.float64, device=DEVICE)
    _gemv_kernel[(triton.cdiv(m, 32),)](d_A, d_x, d_y, m, n, BLOCK_M=32, BLOCK_N=64)
    y[:m] = d_y.cpu().numpy()
