"""hpceval: loaded at interpreter start (PYTHONPATH) for numba.cuda jobs.

Compatibility: numba-cuda 0.30's array lowering registers np.row_stack, which NumPy 2.5 removed, so importing
numba.cuda's kernels fails on such an installation; np.row_stack is restored as np.vstack (what it always was).

Under Numba's CUDA simulator it counts the kernels the simulator launches and writes them, like the CUPTI probe on a real GPU, to
$HPCEVAL_PROBE_OUT at exit ("K 0 0 sim:<name> grid=.. block=.."), so the dynamic usage check (a GPU kernel was
launched) works without a GPU. Code that imports numba.cuda's DeviceNDArray finds it under the simulator too. It also gives simulator threads (one Python thread per CUDA thread) a small
stack, so a 1024-thread block fits the sandbox's address-space limit.
"""

import os

try:
    import numpy as _np

    if not hasattr(_np, "row_stack"):
        _np.row_stack = _np.vstack
except Exception:  # noqa: BLE001 - the job reports its own import errors
    pass

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    # The simulator stands in for a GPU: code written for one imports DeviceNDArray (to annotate its device-array
    # parameters), which the simulator's devicearray module names FakeCUDAArray.
    try:
        from numba.cuda.simulator.cudadrv import devicearray as _sim_devicearray

        if not hasattr(_sim_devicearray, "DeviceNDArray"):
            _sim_devicearray.DeviceNDArray = _sim_devicearray.FakeCUDAArray
    except Exception:  # noqa: BLE001 - the job reports its own import errors
        pass

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" and os.environ.get("HPCEVAL_PROBE_OUT"):
    import atexit
    import threading

    threading.stack_size(4 * 1024 * 1024)
    _launches = []

    def _write():
        try:
            with open(os.environ["HPCEVAL_PROBE_OUT"], "a") as out:
                out.write("hpceval-probe 1\n")
                for name in _launches:
                    out.write(f"K 0 0 {name}\n")
        except OSError:
            pass

    try:
        from numba.cuda.simulator import kernel as _kernel

        _original_call = _kernel.FakeCUDAKernel.__call__

        def _counting_call(self, *args):
            if not self._device:
                _launches.append(f"sim:{getattr(self.fn, '__name__', '?')} grid={self.grid_dim} block={self.block_dim}")
            return _original_call(self, *args)

        _kernel.FakeCUDAKernel.__call__ = _counting_call
        atexit.register(_write)
    except Exception:  # noqa: BLE001 - without the probe the job still runs; the harness sees no probe file
        pass
