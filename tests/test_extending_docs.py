"""docs/extending.md is executable: every file it shows is the file in docs/examples/ (so the doc cannot drift from
what is tested), and every command of its `bash` blocks runs and succeeds; the reference runs it shows grade
every solution `correct` (a new kernel, a new model linked with its `libs`, a new prompt style)."""

from __future__ import annotations

import csv
import os
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hpceval.cli import app

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "extending.md"
FILE_BLOCK = re.compile(r"<!-- file: (\S+) -->\n(`{3,4})\w*\n(.*?)\n\2\n", re.S)
BASH_BLOCK = re.compile(r"```bash\n(.*?)\n```", re.S)


def commands() -> list[str]:
    return [line for block in BASH_BLOCK.findall(DOC.read_text()) for line in block.splitlines() if line.strip()]


def test_every_file_shown_is_the_example_file():
    shown = FILE_BLOCK.findall(DOC.read_text())
    assert len(shown) >= 8
    for rel, _, text in shown:
        assert (REPO / rel).read_text().rstrip() == text.rstrip(), rel
    examples = {str(p.relative_to(REPO)) for p in (REPO / "docs" / "examples").rglob("*") if p.is_file()
                and "__pycache__" not in p.parts}
    assert examples == {rel for rel, _, _ in shown}  # every example file is in the doc


@pytest.mark.parametrize("command", commands())
def test_doc_command_runs(command, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    words = shlex.split(command)
    env = {}
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0] == "hpceval"
    for name in ("HPCEVAL_KERNELS_SPEC", "HPCEVAL_PROMPTS_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    args = [str(tmp_path / w.removeprefix("results/")) if w.startswith("results/") else w for w in words[1:]]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    if "--out" in args:
        rows = list(csv.DictReader(open(Path(args[args.index("--out") + 1]) / "evaluations.csv")))
        assert rows and all(r["verdict"] == "correct" for r in rows), [(r["model"], r["evidence"]) for r in rows]
    if args[:2] == ["list", "kernels"]:
        assert "stencil2d" in result.output
    if args[:2] == ["list", "models"]:
        assert "cpp-tbb" in result.output
    if args[:2] == ["list", "styles"]:
        assert "terse" in result.output
    if "--text" in args:
        assert "Implement AXPY in C++ with OpenMP" in result.output
    if "--dry-run" in args:
        assert "2 prompts" in result.output and "terse" in result.output
    # a command leaves the process as it found it: --kernels-dir/--prompts-dir do not outlive it
    assert os.environ.get("HPCEVAL_KERNELS_SPEC") == env.get("HPCEVAL_KERNELS_SPEC")
    assert os.environ.get("HPCEVAL_PROMPTS_DIR") == env.get("HPCEVAL_PROMPTS_DIR")


def test_the_model_without_its_libs_does_not_link(tmp_path, monkeypatch):
    """The worked model's `libs` matters: with it removed, its solution is a build_error, not correct."""
    import shutil

    folder = tmp_path / "kernels"
    shutil.copytree(REPO / "docs" / "examples" / "kernels", folder)
    models = folder / "models.toml"
    models.write_text(models.read_text().replace('libs = ["tbb"]', "libs = []"))
    monkeypatch.delenv("HPCEVAL_KERNELS_SPEC", raising=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", "--llm", "reference", "--kernels-dir", str(folder), "--kernels",
                                      "stencil2d", "--models", "cpp-tbb", "--no-timing", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(open(out / "evaluations.csv")))
    assert [r["verdict"] for r in rows] == ["build_error"], rows
    assert "undefined reference to" in rows[0]["evidence"], rows[0]["evidence"]  # what is missing, not only ld's exit


@pytest.mark.parametrize("args", [
    ["list", "kernels"],
    ["list", "prompts", "--kernels", "stencil2d", "--models", "cpp-tbb", "--style", "terse"],
    ["run", "--llm", "reference", "--kernels", "stencil2d", "--models", "cpp-tbb", "--style", "terse", "--dry-run"],
    ["run", "--llm", "reference", "--kernels", "nosuchkernel"],  # a command that fails restores it as well
])
def test_user_folders_do_not_outlive_the_command(args, tmp_path, monkeypatch):
    """In one process (CliRunner, a program embedding the CLI) the user's folders are the command's alone: after
    it, the environment and the process-wide catalog are the built-in ones again, and the built-in kernels all
    still have their references."""
    from hpceval.spec import catalog

    for name in ("HPCEVAL_KERNELS_SPEC", "HPCEVAL_PROMPTS_DIR"):
        monkeypatch.delenv(name, raising=False)
    before = dict(os.environ)
    folders = ["--kernels-dir", str(REPO / "docs" / "examples" / "kernels"),
               "--prompts-dir", str(REPO / "docs" / "examples" / "prompts")]
    if args[0] == "list" and args[1] == "kernels":
        folders = folders[:2]
    result = CliRunner().invoke(app, [*args, *folders, *(["--out", str(tmp_path / "o")] if args[0] == "run" else [])])
    assert result.exit_code == (2 if "nosuchkernel" in args else 0), result.output
    assert dict(os.environ) == before
    assert "stencil2d" not in catalog().kernels and "cpp-tbb" not in catalog().models


def test_a_user_kernel_without_a_reference_for_a_model_is_reported_not_a_crash(tmp_path, monkeypatch):
    """The example kernel has no Fortran reference: the reference backend, the environment canaries and the
    self-test, which walk every selected kernel's references, say so for that cell and go on with the others."""
    monkeypatch.delenv("HPCEVAL_KERNELS_SPEC", raising=False)
    folder = ["--kernels-dir", str(REPO / "docs" / "examples" / "kernels"), "--kernels", "stencil2d"]
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", "--llm", "reference", *folder, "--models", "cpp-openmp,fortran-openmp",
                                      "--no-timing", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = {r["model"]: r for r in csv.DictReader(open(out / "evaluations.csv"))}
    assert rows["cpp-openmp"]["verdict"] == "correct", rows["cpp-openmp"]["evidence"]
    assert rows["fortran-openmp"]["verdict"] == "infra_error"  # outside the score, with why
    assert "no reference solution fortran-openmp.f90 for stencil2d" in rows["fortran-openmp"]["evidence"]
    result = CliRunner().invoke(app, ["selftest", *folder, "--models", "fortran-openmp"])
    assert "Traceback" not in result.output and not isinstance(result.exception, FileNotFoundError), result.output
    row = [line for line in result.output.splitlines() if "stencil2d" in line]
    assert row and "–" in row[0] and "✓" not in row[0], result.output  # the cell says: no reference solution
