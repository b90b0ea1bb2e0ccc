"""A built wheel carries the kernel specs, prompt templates and drivers, and finds them when installed."""

import subprocess
import sys
import zipfile

import pytest


@pytest.mark.slow
def test_wheel_carries_specs_prompts_and_drivers(tmp_path):
    repo = __import__("conftest").REPO
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
                             str(tmp_path), str(repo)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    wheel = next(tmp_path.glob("hpceval-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in ("hpceval/data/kernels_spec/models.toml", "hpceval/data/kernels_spec/axpy/spec.toml",
                     "hpceval/data/kernels_spec/axpy/reference.py",
                     "hpceval/data/kernels_spec/axpy/solutions/cpp-openmp.cpp", "hpceval/data/prompts/paper.j2",
                     "hpceval/data/prompts/chat.j2", "hpceval/bind/drivers/cpp.j2", "hpceval/bind/drivers/fortran.j2"):
        assert required in names, required
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    probe = ("import hpceval.paths as p, hpceval.spec as s; c = s.load_catalog(); "
             "print(p.kernels_dir(), len(c.kernels), len(c.models))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert str(target) in out.stdout and " 20" in out.stdout
