"""Every bad input of issue 14 through the real CLI: exit code 2, one line that says what to do, no traceback,
and nothing in the results directory lost (a directory that did not exist is not created).

The table of inputs and messages is docs/errors.md; each test here checks one or more of its rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO

HPCEVAL = [sys.executable, "-m", "hpceval.cli"]
REFERENCE = ["--llm", "reference", "--models", "cpp-openmp", "--kernels", "axpy", "--no-timing"]


def hpceval(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*HPCEVAL, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def one_line_error(result: subprocess.CompletedProcess, *needles: str, code: int = 2) -> str:
    """The single `error: ...` line of a refused command (asserting exit code, no traceback, nothing else)."""
    everything = result.stdout + result.stderr
    assert result.returncode == code, everything[-3000:]
    assert "Traceback" not in everything
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def snapshot(folder: Path) -> dict[str, str] | None:
    """Every file under `folder` with its content hash (None when the folder does not exist)."""
    if not folder.exists():
        return None
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("n", ["0", "-1"])
def test_n_below_one_is_refused(tmp_path, n):
    out = tmp_path / "run"
    one_line_error(hpceval("run", *REFERENCE, "-n", n, "--out", str(out)), f"-n {n}", "1 or more")
    assert not out.exists()


def test_malformed_option_is_one_line(tmp_path):
    out = tmp_path / "run"
    one_line_error(hpceval("run", *REFERENCE, "-n", "abc", "--out", str(out)), "'-n'", "--help")
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- --out
def test_out_that_is_a_file(tmp_path):
    out = tmp_path / "file"
    out.write_text("keep me")
    one_line_error(hpceval("run", *REFERENCE, "--out", str(out)), "is a file, not a directory")
    assert out.read_text() == "keep me"


def test_out_under_a_file(tmp_path):
    parent = tmp_path / "file"
    parent.write_text("keep me")
    one_line_error(hpceval("run", *REFERENCE, "--out", str(parent / "sub")), "lies under", "which is a file")
    assert parent.read_text() == "keep me"


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory nobody may write, root included (chattr +i); skipped where the file system cannot do it."""
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True)
    if made.returncode != 0:
        if os.geteuid() == 0:
            pytest.skip("chattr +i not available here, and root ignores permissions")
        folder.chmod(0o555)
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], capture_output=True)
    folder.chmod(0o755)


@pytest.mark.parametrize("below", [False, True], ids=["itself", "below"])
def test_out_read_only(read_only_dir, below):
    out = read_only_dir / "sub" if below else read_only_dir
    before = snapshot(read_only_dir)
    one_line_error(hpceval("run", *REFERENCE, "--out", str(out)), "not writable", "choose another --out")
    assert snapshot(read_only_dir) == before


# ---------------------------------------------------------------------------------------------- damaged store
def make_store(folder: Path, prompts: int = 150) -> None:
    """A store with one run, `prompts` prompts, a generation and an evaluation each (no LLM, no compiler)."""
    from hpceval.contracts import Evaluation, Prompt, Suggestion, Verdict
    from hpceval.store import Store

    store = Store(folder)
    store.add_run("r1", "reference", {"seed": 1}, {})
    items = [Prompt(prompt_id=f"axpy/m{i}/chat/none", kernel="axpy", model=f"m{i}", language="cpp", style="chat",
                    hint="none", text="p" * 200) for i in range(prompts)]
    store.add_prompts("r1", items)
    for p in items:
        store.add_generations("r1", [Suggestion(prompt_id=p.prompt_id, rank=1, text="c" * 900, meta={})])
        store.put_evaluation(f"k-{p.prompt_id}", Evaluation(verdict=Verdict.correct, evidence="ok"))
        store.link("r1", p.prompt_id, 1, "c" * 900, f"k-{p.prompt_id}", "")
    store.close()


def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) * 6 // 10])
    elif how == "corrupt":
        path.write_bytes(data[:4096] + os.urandom(8192) + data[4096 + 8192:])
    elif how == "garbage":
        path.write_bytes(b"not a database at all " * 100)
    elif how == "empty":
        path.write_bytes(b"")


@pytest.fixture(scope="module")
def healthy_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("healthy")
    make_store(folder)
    return folder


@pytest.mark.parametrize("how", ["truncated", "corrupt", "garbage", "empty"])
@pytest.mark.parametrize("command", ["run", "report", "export-generations"])
def test_damaged_store_is_refused_and_kept(tmp_path, healthy_store, how, command):
    out = tmp_path / "run"
    shutil.copytree(healthy_store, out)
    damage(out / "results.sqlite", how)
    before = snapshot(out)
    args = {"run": ["run", *REFERENCE, "--out", str(out)],
            "report": ["report", str(out), "--out", str(tmp_path / "report")],
            "export-generations": ["export-generations", str(out), "--out", str(tmp_path / "g.jsonl")]}[command]
    message = one_line_error(hpceval(*args), str(out / "results.sqlite"), f"hpceval recover {out}")
    assert ("empty (0 bytes)" in message) == (how == "empty")
    assert snapshot(out) == before, "the damaged file is kept as it was, and nothing is added beside it"
    assert not (tmp_path / "report").exists() and not (tmp_path / "g.jsonl").exists()


@pytest.mark.parametrize("how", ["truncated", "corrupt"])
def test_recover_copies_what_is_readable(tmp_path, healthy_store, how):
    out = tmp_path / "run"
    shutil.copytree(healthy_store, out)
    damage(out / "results.sqlite", how)
    damaged = (out / "results.sqlite").read_bytes()
    result = hpceval("recover", str(out))
    assert result.returncode == 0, result.stderr
    assert "recovered 1 runs, 150 prompts" in result.stdout
    broken = list(out.glob("results.sqlite.broken-*"))
    assert [p.name for p in broken if not p.name.endswith(("-wal", "-shm"))] and \
        next(p for p in broken if not p.name.endswith(("-wal", "-shm"))).read_bytes() == damaged
    exported = hpceval("export-generations", str(out), "--out", str(tmp_path / "g.jsonl"))
    assert exported.returncode == 0, exported.stderr
    recovered = len((tmp_path / "g.jsonl").read_text().splitlines())
    assert 0 < recovered <= 150
    again = hpceval("recover", str(out))
    one_line_error(again, "is not damaged")


def test_recover_of_an_empty_store(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.sqlite").write_bytes(b"")
    result = hpceval("recover", str(out))
    assert result.returncode == 0 and "nothing in" in result.stdout and "start over" in result.stdout
    assert hpceval("export-generations", str(out), "--out", str(tmp_path / "g.jsonl")).returncode == 0


# ---------------------------------------------------------------------------------------------- replay files
def test_replay_not_utf8(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b'{"prompt_id": "axpy/cpp-openmp/chat/none", "rank": 1, "text": "ok"}\n'
                     b'{"prompt_id": "axpy/cpp-openmp/chat/none", "rank": 2, "text": "caf\xe9"}\n')
    out = tmp_path / "run"
    one_line_error(hpceval("run", "--llm", f"replay:{path}", "--out", str(out)), "g.jsonl:2: not UTF-8", "0xe9")
    assert not out.exists()


def test_replay_empty(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text("\n")
    out = tmp_path / "run"
    one_line_error(hpceval("run", "--llm", f"replay:{path}", "--out", str(out)), "holds no records")
    assert not out.exists()


def test_replay_matching_nothing_says_why(tmp_path):
    path = tmp_path / "g.jsonl"
    records = [{"kernel": "axpy", "model": "cpp-openmp", "style": "paper", "hint": h, "rank": r, "text": "x"}
               for h in ("none", "keyword") for r in (1, 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "run"
    one_line_error(hpceval("run", "--llm", f"replay:{path}", "--models", "cpp-openmp", "--kernels", "axpy",
                           "--out", str(out)),
                   "nothing to evaluate: 4 of 4 records", "style 'paper' (4 records) is not in --style",
                   "hint 'keyword' (2 records) is not in --hints")
    assert not out.exists()


def test_replay_partly_matching_is_noted(catalog, tmp_path):
    from hpceval.llm.replay import ReplayBackend
    from hpceval.prompts import plan

    path = tmp_path / "g.jsonl"
    records = [{"kernel": "axpy", "model": "cpp-openmp", "style": s, "hint": "none", "rank": r, "text": "x"}
               for s in ("chat", "paper") for r in (1, 2, 3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    prompts = plan(catalog, catalog.select_kernels(["axpy"]), catalog.select_models(["cpp-openmp"]), ["chat"], ["none"])
    used, note = ReplayBackend(path).plan_match(prompts, 2)
    assert used == 2
    assert "3 of 6 records in g.jsonl match no planned prompt (style 'paper' (3 records)" in note
    assert "1 records beyond -n 2 per prompt are not used" in note


# ---------------------------------------------------------------------------------------------- endpoint
def test_unreachable_base_url_fails_fast(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))  # bound and never listening: a closed port
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        out = tmp_path / "run"
        started = time.monotonic()
        result = hpceval("run", "--llm", "openai:m", "--base-url", url, "--models", "cpp-openmp", "--kernels", "axpy",
                         "--out", str(out), env={"OPENAI_API_KEY": "x"})
    one_line_error(result, f"cannot reach {url}", "start the server or fix --base-url")
    assert time.monotonic() - started < 20
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- names
@pytest.mark.parametrize("option, value, message", [
    ("--style", "foo", "unknown style 'foo'"),
    ("--hints", "loud", "unknown hint 'loud'"),
    ("--models", "opnemp", "unknown programming model 'opnemp'"),
    ("--kernels", "saxpyy", "unknown kernel 'saxpyy'"),
])
def test_unknown_names_create_nothing(tmp_path, option, value, message):
    out = tmp_path / "run"
    result = hpceval("run", "--llm", "reference", option, value, "--out", str(out))
    one_line_error(result, message, "valid:")
    assert "generate" not in result.stdout, "refused before the progress bars"
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- kernel specs
AXPY = (REPO / "kernels_spec" / "axpy" / "spec.toml").read_text()
VALIDATION = "validation = [{ n = 1 }, { n = 7 }, { n = 31 }, { n = 257 }, { n = 1000 }, { n = 4099 }]"


@pytest.mark.parametrize("broken, reason", [
    (AXPY.replace(VALIDATION, "validation = []"), "sizes.validation: needs at least one validation size"),
    (AXPY.replace('shape = ["n"]\ndoc = "input vector"', 'shape = ["len"]\ndoc = "input vector"'),
     "params.x.shape: 'len' names len, which is not an integer scalar parameter"),
    (AXPY.replace('name = "a"', 'name = "x"'), "params: parameter 'x' is defined twice"),
    (AXPY.replace('flops = "2*n"', 'flops = "2*n*"'), "flops: '2*n*' is not an expression"),
    (AXPY.replace('flops = "2*n"', 'flops = "2*nn"'), "flops: '2*nn' names nn, which is not a key of sizes.timing"),
], ids=["no-validation", "unknown-dimension", "duplicate-parameter", "bad-flops", "unknown-flops-name"])
def test_broken_kernel_spec_is_refused_with_file_and_reason(tmp_path, broken, reason):
    root = tmp_path / "kernels_spec"
    shutil.copytree(REPO / "kernels_spec" / "axpy", root / "axpy")
    shutil.copy(REPO / "kernels_spec" / "models.toml", root / "models.toml")
    assert broken != AXPY
    (root / "axpy" / "spec.toml").write_text(broken)
    env = {"HPCEVAL_KERNELS_SPEC": str(root)}
    one_line_error(hpceval("list", "kernels", env=env), f"{root / 'axpy' / 'spec.toml'}: {reason}")
    out = tmp_path / "run"
    one_line_error(hpceval("run", *REFERENCE, "--out", str(out), env=env), reason)
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- listings
def test_listings_print_whole_ids_when_piped():
    from hpceval.spec import catalog

    ids = list(catalog().models)
    longest = max(ids, key=len)
    table = hpceval("list", "models")
    assert table.returncode == 0 and "…" not in table.stdout
    assert all(i in table.stdout for i in ids), "every id whole in the table"
    as_csv = hpceval("list", "models", "--format", "csv")
    assert [line.split(",")[0] for line in as_csv.stdout.splitlines()[1:]] == ids
    as_json = json.loads(hpceval("list", "models", "--format", "json").stdout)
    assert [m["id"] for m in as_json] == ids and longest in {m["id"] for m in as_json}
    prompts = json.loads(hpceval("list", "prompts", "--models", "cpp-openmp", "--kernels", "axpy", "--style", "all",
                                 "--hints", "all", "--format", "json").stdout)  # the default is run's: chat/none
    assert {p["prompt_id"] for p in prompts} == {"axpy/cpp-openmp/paper/none", "axpy/cpp-openmp/paper/keyword",
                                                 "axpy/cpp-openmp/chat/none", "axpy/cpp-openmp/chat/keyword"}
    doctor = json.loads(hpceval("doctor", "--format", "json").stdout)
    assert [row["model"] for row in doctor] == ids
    one_line_error(hpceval("list", "models", "--format", "xml"), "unknown --format 'xml'; valid: table, csv, json")
