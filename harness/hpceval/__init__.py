"""hpceval: measure how well LLMs write HPC kernels.

The pipeline (plan -> generate -> extract -> bind -> build -> run -> validate -> score -> report)
is described in README.md; each stage lives in one module or sub-package of this package.
"""

__version__ = "0.1.0"
