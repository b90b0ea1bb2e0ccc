"""AXPY (y <- alpha * x + y) in Triton.

The wrapper works directly on torch CUDA tensors and updates `y` in place.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, alpha, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, alpha * x + y, mask=mask)


def axpy(alpha: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """In-place y = alpha * x + y for 1-D CUDA tensors of the same length."""
    assert x.is_cuda and y.is_cuda, "x and y must live on the GPU"
    assert x.numel() == y.numel(), "x and y must have the same length"
    assert y.is_contiguous(), "y is updated in place and must be contiguous"
    x = x.contiguous()
    n = y.numel()
    if n == 0:
        return y
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)
    axpy_kernel[grid](x, y, alpha, n, BLOCK=1024)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    n = 98_765
    x = torch.rand(n, device="cuda", dtype=torch.float32)
    y = torch.rand(n, device="cuda", dtype=torch.float32)
    ref = 3.0 * x + y
    axpy(3.0, x, y)
    print("max abs error:", (y - ref).abs().max().item())
