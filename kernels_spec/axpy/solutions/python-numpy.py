import numpy as np


def saxpy(n, a, x, y):
    y[:n] += np.float32(a) * x[:n]
