"""Evidence is redacted before it is stored: no host account or host name survives into the results."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpceval.contracts import Evaluation, Verdict
from hpceval.redact import PLACEHOLDER, host_identifiers, redact_text, redacted, regular_names

PASSWD = """root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash
alice:x:1000:1000:Alice Liddell,,,:/home/alice:/bin/bash
bob:x:1001:1001::/home/bob:/bin/zsh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
"""
GROUP = "root:x:0:\nusers:x:100:\nalice:x:1000:\nhpcteam:x:1200:alice,bob\nnogroup:x:65534:\n"


def test_regular_accounts_groups_and_real_names_are_identifiers_system_ones_are_not():
    assert regular_names(PASSWD, GROUP) == {"alice", "bob", "Alice Liddell", "hpcteam"}


def test_whole_words_are_replaced_and_nothing_else():
    words = regular_names(PASSWD, GROUP) | {"node17.cluster.example.org", "node17"}
    text = ("alice:x:1000:1000:Alice Liddell,,,:/home/alice:/bin/bash\nbob@node17.cluster.example.org; node17; "
            "root:x:0:0 nobody postgres; alicex malice bobcat node170")
    out = redact_text(text, words)
    r = PLACEHOLDER
    assert out == (f"{r}:x:1000:1000:{r},,,:/home/{r}:/bin/bash\n{r}@{r}; {r}; "
                   "root:x:0:0 nobody postgres; alicex malice bobcat node170")


def test_generic_and_short_names_are_kept():
    assert redact_text("localhost sandbox root a", {"localhost", "sandbox", "root", "a"}) == "localhost sandbox root a"


def test_an_evaluation_keeps_everything_but_the_identifiers():
    words = host_identifiers()
    if not words:
        pytest.skip("this host has no regular account and no host name to redact")
    evaluation = Evaluation(verdict=Verdict.runtime_error, evidence=f"boom in /home/{words[0]}/x", toolchain="gcc")
    clean = redacted(evaluation)
    assert clean.evidence == f"boom in /home/{PLACEHOLDER}/x" and clean.toolchain == "gcc"
    assert redacted(clean) is clean


def test_stored_evidence_names_no_host_home_folder(evaluator, catalog):
    """End to end: a job lists /home into its error: it sees an empty tmpfs (executors/local.py), and whatever it
    could name would be redacted."""
    homes = [p.name for p in Path("/home").iterdir()] if Path("/home").is_dir() else []
    named = [h for h in homes if h in host_identifiers()]
    if not named:
        pytest.skip("no home folder of a regular account here")
    code = ("import os\n\nimport numpy as np\n\n\ndef saxpy(n, a, x, y):\n"
            "    raise RuntimeError('homes: ' + ' '.join(sorted(os.listdir('/home'))))\n")
    e = evaluator.evaluate(code, catalog.kernels["axpy"], catalog.models["python-numpy"])
    assert e.verdict == Verdict.runtime_error and "homes:" in e.evidence, e.evidence
    assert not [h for h in named if h in e.evidence.replace(PLACEHOLDER, " ").split()], e.evidence


def test_cache_paths_in_evidence_are_relative_to_the_cache(monkeypatch, tmp_path):
    """A compiler error inside a cached Kokkos build names $HPCEVAL_CACHE, not this machine's folder."""
    from hpceval.redact import CACHE_NAME

    monkeypatch.setenv("HPCEVAL_CACHE", str(tmp_path / "cache"))
    header = tmp_path / "cache" / "kokkos-3.4.01-openmp-serial" / "include" / "Kokkos_View.hpp"
    e = redacted(Evaluation(verdict=Verdict.build_error, evidence=f"{header}:894:7: error: no type named 'type'"))
    assert str(tmp_path) not in e.evidence
    assert e.evidence.startswith(f"{CACHE_NAME}/kokkos-3.4.01-openmp-serial/include/Kokkos_View.hpp:894:7")


def test_checkout_paths_in_evidence_are_relative_to_the_checkout():
    """A traceback through a package installed beside the checkout (the GPU machine's .gpu-site) names no folder of
    the machine, and a report made from a store written before this redaction existed does not either."""
    from hpceval.paths import PACKAGE_DIR
    from hpceval.redact import relative_paths

    root = PACKAGE_DIR.parent.parent
    if not (root / "pyproject.toml").is_file():
        pytest.skip("hpceval is installed, not run from its checkout")
    text = f'  File "{root}/.gpu-site/pycuda/compiler.py", line 362, in __init__'
    assert relative_paths(text) == '  File ".gpu-site/pycuda/compiler.py", line 362, in __init__'


def test_reports_read_old_evidence_without_machine_paths(tmp_path):
    import pandas as pd

    from hpceval.report.load import load_results
    from hpceval.store import RESULT_COLUMNS
    from hpceval.toolchains.cuda import cache_dir

    header = f"{cache_dir()}/kokkos-3.4.01-openmp-serial/include/Kokkos_View.hpp:894:7: error"
    row = {"run_id": "r1", "llm": "reference", "language": "cpp", "model": "cpp-kokkos", "kernel": "axpy",
           "style": "paper", "hint": "none", "prompt_id": "axpy/cpp-kokkos/paper/none", "rank": 1,
           "verdict": "build_error", "evidence": header}
    pd.DataFrame([row]).reindex(columns=RESULT_COLUMNS).to_csv(tmp_path / "evaluations.csv", index=False)
    evidence = load_results([tmp_path])["evidence"].iloc[0]
    assert str(cache_dir()) not in evidence and evidence.startswith("$HPCEVAL_CACHE/kokkos-3.4.01")
