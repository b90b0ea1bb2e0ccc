"""CPython with NumPy and Numba on the CPU: the 'build' is a byte-compile, so syntax errors are build errors."""

import sys
from functools import cache

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import Toolchain, ToolInfo


class Python(Toolchain):
    name = "python"
    language = "python"

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        try:
            import numba
            import numpy
        except ImportError:
            return ToolInfo(False, how_to_get="pip install numpy numba")
        return ToolInfo(True, f"python {sys.version.split()[0]} numpy {numpy.__version__} numba {numba.__version__}")

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return [[sys.executable, "-m", "py_compile", "kernel.py"]]

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return [sys.executable, "driver.py", "cases.txt"]

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        return {**super().env(model), "NUMBA_CACHE_DIR": "/tmp/numba", "PYTHONDONTWRITEBYTECODE": "1",
                "MPLBACKEND": "Agg"}


TOOLCHAIN = Python()
