"""Conjugate Gradients: solve A*x = b for a symmetric positive definite n x n matrix A in CSR form (0-based
here; the harness shifts row_ptr and col_idx to each language's index base). x is inout: the initial guess
(zeros) on entry, the solution on exit. Graded by the true residual (check below), not against a reference x.

Sizes are dicts of ints that select a matrix family:
  {nx, ny, nz}              3D Poisson 7-point matrix (diagonal 6, neighbours -1), n = nx*ny*nz
  {nx, ny, nz, weighted=1}  the same stencil with random symmetric edge weights in [0.5, 1.5] and a random
                            positive diagonal shift (strictly diagonally dominant, so SPD)
  {n, diagonal=1}           a diagonal system (distinct positive entries)
  {n, density_pct}          random sparse symmetric pattern with irregular row lengths and one hub row,
                            random values, diagonal = row sum of |off-diagonals| + a random shift (SPD)
b is random in [-1, 1) in every case, so no answer can be hard-coded.
"""

import numpy as np

TOL = 1e-8
# The solver's stopping test uses its own (recursively updated) residual; the true residual computed here from
# the returned x may drift slightly above it, so a solution passes when ||b - A x|| / ||b|| <= RESIDUAL_FACTOR*tol.
RESIDUAL_FACTOR = 10.0
# max_iter = min(10*n + 100, MAX_ITER_CAP): far above what CG needs on these well-conditioned matrices (at most
# ~200 iterations), but capped so that a broken solver that never converges fails as wrong_result in seconds
# instead of iterating 10*n times into the run's timeout.
MAX_ITER_CAP = 2000


def _draw_tol(rng, dtype):
    """tol at random per case, log-uniform in [1e-10, 1e-6] (double precision): a solver that ignores its tol and
    stops at a hard-coded one fails on the cases that ask for more. Single precision keeps TOL."""
    if np.dtype(dtype) == np.float32:
        return TOL
    return float(10.0 ** rng.uniform(-10.0, -6.0))


def csr_from_coo(n, rows, cols, vals):
    """CSR arrays (row_ptr, col_idx, values) with columns sorted within each row; (rows, cols) must be unique."""
    order = np.lexsort((cols, rows))
    counts = np.bincount(rows, minlength=n)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=row_ptr[1:])
    return row_ptr, cols[order], vals[order]


def poisson3d(nx, ny, nz, rng=None, laplacian=False):
    """7-point stencil, Dirichlet boundaries, x-fastest grid order. With rng: random symmetric edge weights and a
    random positive diagonal shift; without: the plain Laplacian (6 on the diagonal, -1 off it). `laplacian` (with
    rng): no shift, the diagonal is the sum of the node's six edge weights, those to the boundary included: a
    weighted Laplacian as ill-conditioned as the plain one (CG needs about as many iterations), which no constant
    stencil reproduces (the timing size's matrix)."""
    n = nx * ny * nz
    i = np.arange(n, dtype=np.int64)
    ix, iy, iz = i % nx, (i // nx) % ny, i // (nx * ny)
    strides = (1, nx, nx * ny)
    has_next = (ix < nx - 1, iy < ny - 1, iz < nz - 1)
    # weight of the edge from node i to its +x, +y, +z neighbour (symmetric: the neighbour uses the same one)
    if rng is None:
        w = [np.ones(n) for _ in range(3)]
    else:
        w = [rng.uniform(0.5, 1.5, n) for _ in range(3)]
    offdiag = []  # (column offset, exists, value) in increasing column order
    for d in (2, 1, 0):
        s = strides[d]
        prev = np.roll(w[d], s)  # weight of the edge (i - s, i)
        offdiag.append((-s, np.roll(has_next[d], s) & (i >= s), -prev))
    for d in (0, 1, 2):
        offdiag.append((strides[d], has_next[d], -w[d]))
    if rng is None:
        diag = np.full(n, 6.0)
    else:
        rowsum = sum(np.where(ok, -v, 0.0) for _, ok, v in offdiag)
        diag = sum(-v for _, _, v in offdiag) if laplacian else rowsum + rng.uniform(0.05, 1.0, n)
    entries = offdiag[:3] + [(0, np.ones(n, bool), diag)] + offdiag[3:]
    cols = np.stack([i + off for off, _, _ in entries], axis=1)
    valid = np.stack([ok for _, ok, _ in entries], axis=1)
    vals = np.stack([v for _, _, v in entries], axis=1)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=row_ptr[1:])
    return row_ptr, cols[valid], vals[valid]


def random_spd(n, density_pct, rng):
    """Random symmetric pattern (irregular rows, one hub row), diagonally dominant with a positive shift."""
    m = max(int(density_pct / 100.0 * n * n / 2), 1)
    r = rng.integers(0, n, m)
    c = rng.integers(0, n, m)
    if n > 2:  # a hub: row/column 0 coupled to a third of the others
        hub = rng.choice(np.arange(1, n), size=max(n // 3, 1), replace=False)
        r = np.concatenate([r, np.zeros(hub.size, dtype=r.dtype)])
        c = np.concatenate([c, hub])
    lo, hi = np.minimum(r, c), np.maximum(r, c)
    keep = lo != hi
    pairs = np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0)
    v = rng.uniform(-1.0, 1.0, len(pairs))
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]]).astype(np.int64)
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]]).astype(np.int64)
    vals = np.concatenate([v, v])
    diag = np.bincount(rows, weights=np.abs(vals), minlength=n) + rng.uniform(0.1, 1.0, n)
    rows = np.concatenate([rows, np.arange(n)])
    cols = np.concatenate([cols, np.arange(n)])
    vals = np.concatenate([vals, diag])
    return csr_from_coo(n, rows, cols, vals)


def diagonal_spd(n, rng):
    """A diagonal matrix with distinct positive entries in [0.5, 2]: CG needs up to n iterations."""
    row_ptr = np.arange(n + 1, dtype=np.int64)
    return row_ptr, np.arange(n, dtype=np.int64), rng.uniform(0.5, 2.0, n)


def make_inputs(size, rng, dtype):
    if size.get("diagonal", 0):
        row_ptr, col_idx, values = diagonal_spd(size["n"], rng)
    elif "nx" in size:
        row_ptr, col_idx, values = poisson3d(size["nx"], size["ny"], size["nz"],
                                             rng if size.get("weighted", 0) else None, bool(size.get("laplacian", 0)))
    else:
        row_ptr, col_idx, values = random_spd(size["n"], size["density_pct"], rng)
    n = row_ptr.size - 1
    return {
        "n": n,
        "nnz": int(row_ptr[-1]),
        "row_ptr": row_ptr.astype(np.int32),
        "col_idx": col_idx.astype(np.int32),
        "values": values.astype(dtype),
        "b": (rng.uniform(-1.0, 1.0, n) * 10.0 ** size.get("b_exp", 0)).astype(dtype),
        # the initial guess: zeros, or random values (key `guess`) so that ignoring x0 is caught
        "x": rng.uniform(-1.0, 1.0, n).astype(dtype) if size.get("guess", 0) else np.zeros(n, dtype=dtype),
        "tol": _draw_tol(rng, dtype),
        "max_iter": min(10 * n + 100, MAX_ITER_CAP),
    }


def _matvec(inp, x):
    n = int(inp["n"])
    row_ptr = np.asarray(inp["row_ptr"], dtype=np.int64)
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    prods = np.asarray(inp["values"], dtype=np.float64) * np.asarray(x, dtype=np.float64)[inp["col_idx"]]
    return np.bincount(rows, weights=prods, minlength=n)


def reference(inp):
    """The exact solution by a dense solve (small n only); grading uses check(), not this."""
    n = int(inp["n"])
    dense = np.zeros((n, n))
    row_ptr = np.asarray(inp["row_ptr"], dtype=np.int64)
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    np.add.at(dense, (rows, np.asarray(inp["col_idx"], dtype=np.int64)), np.asarray(inp["values"], dtype=np.float64))
    return {"x": np.linalg.solve(dense, np.asarray(inp["b"], dtype=np.float64))}


def check(inputs, outputs, dtype):
    """Pass when x is finite and the true relative residual ||b - A x|| / ||b|| (float64, from the returned x)
    is at most RESIDUAL_FACTOR * tol. Returns (ok, relative residual, detail)."""
    x = np.asarray(outputs["x"], dtype=np.float64)
    bad = int((~np.isfinite(x)).sum())
    if bad:
        return False, float("inf"), f"x: {bad} of {x.size} elements NaN/Inf"
    b = np.asarray(inputs["b"], dtype=np.float64)
    tol = float(inputs["tol"])
    res = float(np.linalg.norm(b - _matvec(inputs, x)) / np.linalg.norm(b))
    limit = RESIDUAL_FACTOR * tol
    if not res <= limit:
        return False, res, f"relative residual ||b - A x||/||b|| = {res:.3e} > {limit:.1e} ({RESIDUAL_FACTOR:g} x tol)"
    return True, res, ""


# Variants of variants.toml (hpceval.bind.graded).
def inputs_dense(inp, rng, dtype):
    """The CSR matrix as a dense n x n array (the `dense` variant's A)."""
    n = int(inp["n"])
    dense = np.zeros((n, n), dtype=np.float64)
    row_ptr = np.asarray(inp["row_ptr"], dtype=np.int64)
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    np.add.at(dense, (rows, np.asarray(inp["col_idx"], dtype=np.int64)), np.asarray(inp["values"], dtype=np.float64))
    return {"dense": dense.astype(dtype)}


def inputs_x0(inp, rng, dtype):
    """A random starting vector on the scale of b (a unit-scale guess for a tiny b would test round-off only)."""
    b = np.asarray(inp["b"], dtype=np.float64)
    return {"x0": (rng.uniform(-1.0, 1.0, b.size) * np.abs(b).max()).astype(dtype)}
