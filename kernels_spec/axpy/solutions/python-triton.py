import torch
import triton
import triton.language as tl

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # "cpu": Triton's interpreter (TRITON_INTERPRET=1)


@triton.jit
def _saxpy_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


def saxpy(n, a, x, y):
    d_x = torch.from_numpy(x[:n]).to(DEVICE)
    d_y = torch.from_numpy(y[:n]).to(DEVICE)
    _saxpy_kernel[(triton.cdiv(n, 1024),)](d_x, d_y, float(a), int(n), BLOCK=1024)  # Triton takes Python scalars
    y[:n] = d_y.cpu().numpy()
