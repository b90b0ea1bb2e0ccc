"""The harness against 40 hand grades of the Copilot sample (tests/data/copilot_grades.toml): at least 95% agree.

Each graded suggestion goes through what `hpceval run --llm replay:...` does with it: the paper prompt, extraction,
signature inference and the sandboxed build/run/validation (no timing run). One difference, on purpose: the static
checks (programming-model usage, offload data mapping) see the unit that was built (`binding.source`: the bound
function and what it uses) rather than the whole suggestion, whose other functions would otherwise answer for it
(an OpenACC saxpy without data clauses passes because a sibling function maps x). The pipeline does the same once
it hands `binding.source or code` to the evaluator (requested change). Disagreements are printed with both sides.
"""

from __future__ import annotations

import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hpceval.bind import choose_binding
from hpceval.extract import extract
from hpceval.importers.copilot import records
from hpceval.prompts import render

GRADES = Path(__file__).parent / "data" / "copilot_grades.toml"
GROUP = {"correct": "correct", "wrong_model": "wrong_model", "build_error": "incorrect", "runtime_error": "incorrect",
         "wrong_result": "incorrect", "timeout": "incorrect", "no_code": "no function", "unbindable": "no function",
         "incomplete": "no function"}


def load_grades() -> list[dict]:
    with GRADES.open("rb") as f:
        return tomllib.load(f)["grade"]


def test_grades_file_is_well_formed():
    grades = load_grades()
    assert len(grades) == 40
    assert len({g["sha"] for g in grades}) == 40
    for g in grades:
        assert g["verdict"] in GROUP and len(g["why"]) > 10 and g["key"] and g["sha"]


@pytest.fixture(scope="module")
def outcomes(copilot_sample, catalog, evaluator):
    by_sha = {}
    for r in records(copilot_sample):
        by_sha.setdefault(r["meta"].get("sha"), r)
    grades = load_grades()
    missing = [g["key"] for g in grades if g["sha"] not in by_sha]
    assert not missing, f"graded suggestions not found in the sample: {missing}"

    def judge(grade: dict):
        r = by_sha[grade["sha"]]
        spec, model = catalog.kernels[r["kernel"]], catalog.models[r["model"]]
        lang = catalog.languages[model.language]
        code = extract(r["text"], render(spec, model, lang, "paper", r["hint"]), spec.function)
        binding = choose_binding(code, spec, lang, "paper", model)
        return grade, binding, evaluator.evaluate(binding.source or code, spec, model, binding)

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(judge, grades))


def test_harness_agrees_with_hand_grades(outcomes):
    disagreements = []
    for grade, binding, evaluation in outcomes:
        assert evaluation.verdict.value != "infra_error", (grade["key"], evaluation.evidence)
        if GROUP[evaluation.verdict.value] != GROUP[grade["verdict"]]:
            disagreements.append(f"{grade['key']} ({grade['sha']}): hand {grade['verdict']} ({grade['why']}); "
                                 f"harness {evaluation.verdict.value}: {evaluation.evidence[:200]} "
                                 f"[binding: {binding.error or binding.evidence[:200]}]")
    agreement = 1 - len(disagreements) / len(outcomes)
    print(f"\nagreement {agreement:.1%} ({len(outcomes) - len(disagreements)}/{len(outcomes)})")
    for line in disagreements:
        print("  " + line)
    assert agreement >= 0.95, "\n".join(disagreements)


def test_every_unbindable_says_why(outcomes):
    for grade, binding, evaluation in outcomes:
        if evaluation.verdict.value == "unbindable":
            assert evaluation.evidence.startswith("unbindable: ") and len(evaluation.evidence) > 25, grade["key"]
        if binding.error is None:
            assert binding.mapping and binding.evidence.startswith(("bound", "canonical"))
