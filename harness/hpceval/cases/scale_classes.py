"""Scale classes of the timing run's inputs: each element's class comes from the bit pattern of its value XOR a
secret key, and each call scales every class by its own power of two (cases.timing). The drivers compute the same
classes from the values they hold (the C runtime, the Julia driver) or read them from the harness (Python)."""

from __future__ import annotations

import numpy as np


def popcount(bits: np.ndarray) -> np.ndarray:
    """Set bits per element of an unsigned array, as uint8 (NumPy 2's bitwise_count, or the classic SWAR sum)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(bits).astype(np.uint8, copy=False)
    b = bits.astype(np.uint64)
    b = b - ((b >> np.uint64(1)) & np.uint64(0x5555555555555555))
    b = (b & np.uint64(0x3333333333333333)) + ((b >> np.uint64(2)) & np.uint64(0x3333333333333333))
    b = (b + (b >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((b * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.uint8)


def class_table(classes: int) -> np.ndarray:
    """The scale class of each popcount 0..64: p mod 4K when that is below K, else 0. Class 0 holds most elements
    (about 1 - (K-1)/4K of them), each other class about 1/4K: drivers scale class 0 with one multiplication and
    fix up the few others (the Python driver), and every output of a kernel that reads many inputs per output
    (GEMV, GEMM, SpMV rows) still depends on elements of several classes."""
    r = np.arange(65) % (4 * classes)
    return np.where(r < classes, r, 0).astype(np.uint8)


def element_classes(values: np.ndarray, key: int, classes: int) -> np.ndarray:
    """Each element's scale class: class_table(classes)[popcount(its bit pattern XOR key)], the bit pattern that of
    the element as the driver stores it (8 bytes, or 4 zero-extended). The C runtime (hpceval_rt_scale64/32) and
    the Julia driver compute it from the values they hold, whatever the storage order; the Python driver reads
    it from the harness (TimingPlan.class_indices)."""
    a = np.ascontiguousarray(values)
    if a.dtype.itemsize == 8:
        count, high = popcount(a.view(np.uint64) ^ np.uint64(key)), 0
    else:  # zero-extended: the key's upper half adds its own bits to every element's count (at most 64 in all)
        count, high = popcount(a.view(np.uint32) ^ np.uint32(key & 0xFFFFFFFF)), bin(key >> 32).count("1")
    return class_table(classes)[count + np.uint8(high)]


def scaled_by_class(values: np.ndarray, classes: np.ndarray, exps: np.ndarray) -> np.ndarray:
    """values times 2^exps[class] element by element (exact), in the values' own type."""
    return np.ldexp(values, exps[classes]).astype(values.dtype)


def class_share(values: np.ndarray, classes: np.ndarray, c: int) -> np.ndarray:
    """values with the elements outside class c set to 0 (the reference of that is class c's share)."""
    return np.where(classes == c, values, 0).astype(values.dtype, copy=False)
