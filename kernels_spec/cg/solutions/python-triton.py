import math

import torch
import triton
import triton.language as tl

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # "cpu": Triton's interpreter (TRITON_INTERPRET=1)
BLOCK = 256


@triton.jit
def _spmv_kernel(row_ptr, col_idx, values, p_ptr, ap_ptr, ROW_BLOCK: tl.constexpr):
    """ap = A*p, one program per row."""
    row = tl.program_id(0)
    start = tl.load(row_ptr + row)
    end = tl.load(row_ptr + row + 1)
    acc = tl.zeros((ROW_BLOCK,), dtype=tl.float64)
    for base in range(start, end, ROW_BLOCK):
        ks = base + tl.arange(0, ROW_BLOCK)
        mask = ks < end
        cols = tl.load(col_idx + ks, mask=mask, other=0)
        acc += tl.load(values + ks, mask=mask, other=0.0) * tl.load(p_ptr + cols, mask=mask, other=0.0)
    tl.store(ap_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def _dot_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[0] += a.b (out zeroed by the caller)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    part = tl.sum(tl.load(a_ptr + offs, mask=mask, other=0.0) * tl.load(b_ptr + offs, mask=mask, other=0.0), axis=0)
    tl.atomic_add(out_ptr, part)


@triton.jit
def _update_kernel(x_ptr, r_ptr, p_ptr, ap_ptr, alpha, n, BLOCK: tl.constexpr):
    """x += alpha*p, r -= alpha*ap"""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    ap = tl.load(ap_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + alpha * p, mask=mask)
    tl.store(r_ptr + offs, tl.load(r_ptr + offs, mask=mask) - alpha * ap, mask=mask)


@triton.jit
def _direction_kernel(r_ptr, p_ptr, beta, n, BLOCK: tl.constexpr):
    """p = r + beta*p"""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(p_ptr + offs, tl.load(r_ptr + offs, mask=mask) + beta * tl.load(p_ptr + offs, mask=mask), mask=mask)


def _dot(a, b, n, acc):
    acc.zero_()
    _dot_kernel[(triton.cdiv(n, BLOCK),)](a, b, acc, n, BLOCK=BLOCK)
    return acc.item()


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    d_row_ptr = torch.from_numpy(row_ptr[: n + 1]).to(DEVICE)
    d_col_idx = torch.from_numpy(col_idx[:nnz]).to(DEVICE)
    d_values = torch.from_numpy(values[:nnz]).to(DEVICE)
    d_b = torch.from_numpy(b[:n]).to(DEVICE)
    d_x = torch.from_numpy(x[:n]).to(DEVICE)
    ap = torch.empty(n, dtype=torch.float64, device=DEVICE)
    acc = torch.empty(1, dtype=torch.float64, device=DEVICE)  # zeroed by _dot before every use
    grid = (triton.cdiv(n, BLOCK),)
    _spmv_kernel[(n,)](d_row_ptr, d_col_idx, d_values, d_x, ap, ROW_BLOCK=8)
    _direction_kernel[grid](d_b, ap, -1.0, n, BLOCK=BLOCK)  # ap = b - A*x0
    r = ap.clone()
    p = ap.clone()
    rr = _dot(r, r, n, acc)
    bnorm = math.sqrt(_dot(d_b, d_b, n, acc))
    if bnorm == 0.0:
        x[:n] = 0.0
        return
    for _ in range(max_iter):
        if math.sqrt(rr) <= tol * bnorm:
            break
        _spmv_kernel[(n,)](d_row_ptr, d_col_idx, d_values, p, ap, ROW_BLOCK=8)
        alpha = rr / _dot(p, ap, n, acc)
        _update_kernel[grid](d_x, r, p, ap, alpha, n, BLOCK=BLOCK)
        rr_new = _dot(r, r, n, acc)
        _direction_kernel[grid](r, p, rr_new / rr, n, BLOCK=BLOCK)
        rr = rr_new
    x[:n] = d_x.cpu().numpy()
