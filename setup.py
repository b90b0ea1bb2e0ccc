"""Copies kernels_spec/ and prompts/ into the wheel as hpceval/data/ (editable installs read them in place)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
DATA_DIRS = ("kernels_spec", "prompts")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        for name in DATA_DIRS:
            target = Path(self.build_lib) / "hpceval" / "data" / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithData})
