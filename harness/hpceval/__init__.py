"""hpceval: measure how well LLMs write HPC kernels.

The pipeline (plan -> generate -> extract -> bind -> build -> run -> validate -> score -> report)
is described in README.md and docs/; each stage lives in one module or sub-package of this package.
"""

__version__ = "0.1.0"


def _starting_as_program() -> bool:
    """`hpceval ...` or `python -m hpceval.<module>` (argv[0] is "-m" while the package is imported for it)."""
    import sys

    first = sys.argv[0] if sys.argv else ""
    return first == "-m" or first.endswith(("/hpceval", "/hpceval/cli.py"))


if _starting_as_program():  # before typer and rich load: a Ctrl-C while starting up exits quietly (lifecycle.py)
    from hpceval import lifecycle as _lifecycle

    _lifecycle.install_signal_handlers()
