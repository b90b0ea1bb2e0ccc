"""Import the follow-up study's Llama-2-70B dumps (arXiv 2309.07103) into replay JSONL.

Why a second importer: the follow-up study asked Llama-2 for the same kernels and published its answers in a
format of its own (../shared/corpus/llama2-sample/README.md), which the Copilot panel parser would mis-read
without a word (no panel headers, so every model section became one headerless "inline completion"). A dump is
`<KERNEL>/<Language>/GeneratedCode.<ext>`:

    //=========...          <- banner per programming model: a row of '=' in a comment,
    //   OpenMP Programming Model                     the model's name,
    //=========...                                    another row
    // Prompt: "Create 3 code suggestions using the following parameters: C++ OpenMP AXPY function."
    // SUGGESTION 1 // ----------------------------------
    <a whole answer: includes, the kernel, often a main and prose comments>
    // SUGGESTION 2 // ---- ...

The comment leader follows the language (`//`, `!`, `#`). Records follow the replay schema (docs/replay.md, the
`hpceval.llm.replay` loader) like the Copilot importer's: `prompt_id` "<kernel>/<model>/paper/none", rank 1..3 in
the order of the dump. Each answer is a whole file, not a completion after the prompt's keyword, so it is filed
under the hint-less paper prompt (a completion of "# saxpy numpy\\ndef" would read "def import numpy"); the
study's prompt and its keyword stay in `meta.study_prompt` / `meta.study_hint`. Author markers and banners never
stay in a suggestion (importers.markers).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from rich.table import Table

from hpceval.importers.copilot import (
    KEYWORD,
    REPLAY_SCHEMA,
    UNKNOWN_MODEL_WORDS,
    _find_word,
    _kernel_words,
    _model_words,
    block_sha,
    counts_table,
    dump_sources,
    has_function,
    is_comment_only,
)
from hpceval.importers.markers import cut_block, source_meta
from hpceval.spec import Catalog, catalog

LLM = "llama-2-70b-2023"
_LEAD = r"(?://+|!+|#+)"
BANNER_RULE = re.compile(rf"^\s*{_LEAD}\s*={{10,}}\s*$")
MODEL_LINE = re.compile(rf"^\s*{_LEAD}\s*(?P<name>.+?)\s+programming\s+model\s*$", re.IGNORECASE)
PROMPT_LINE = re.compile(rf"^\s*{_LEAD}\s*prompt\s*:\s*\"?(?P<prompt>.*?)\"?\s*$", re.IGNORECASE)
SUGGESTION_LINE = re.compile(rf"^\s*{_LEAD}\s*suggestion\s*#?\s*(?P<n>\d+)\b.*$", re.IGNORECASE)
SIGNATURE = re.compile(r"^\s*(?://+|!+|#+)\s*suggestion\s*#?\s*\d+", re.IGNORECASE | re.MULTILINE)
STUDY_PROMPT = re.compile(r"create\s+\d+\s+code\s+suggestions", re.IGNORECASE)


def looks_like_llama2(text: str) -> bool:
    """The format's signature: `SUGGESTION N` comment lines under a "Create N code suggestions" prompt or a model
    banner."""
    return bool(SIGNATURE.search(text)) and bool(STUDY_PROMPT.search(text) or re.search(
        r"programming\s+model", text, re.IGNORECASE))


def _normal_words(text: str) -> str:
    return " ".join(re.sub(r"[()\[\]{}\",.:;]", " ", text).replace("-", " ").split())


def _model(words: str, lang: str, vocab) -> tuple[str, str | None]:
    found = _find_word(words, vocab)
    if found:
        return found
    low = words.lower()
    other = next((w for w in UNKNOWN_MODEL_WORDS if re.search(rf"\b{re.escape(w)}\b", low)), None)
    return (other, f"{lang}-{other}") if other else ("", None)


def parse_llama2(text: str, lang: str, rel: str, cat: Catalog | None = None,
                 fallback_kernel: str | None = None) -> list[dict]:
    """One dict per suggestion of one dump file: section, model, kernel, study prompt, rank, block, markers."""
    cat = cat or catalog()
    kernel_vocab, model_vocab = _kernel_words(cat), _model_words(cat, lang)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    starts = [0]  # character offset of each line
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    section = {"banner": "", "prompt": "", "line": 0, "index": 0}
    out: list[dict] = []
    current: dict | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            start = starts[current["line"]]  # the line after the SUGGESTION line
            cut = cut_block(text, start, start + len("\n".join(current.pop("lines"))), lang)
            current.update(block=cut.code, markers=cut.markers, source=cut)
            out.append(current)
        current = None

    after_rule = False  # a model line counts only right under a banner rule (not a comment of an answer)
    for number, line in enumerate(lines, 1):
        if BANNER_RULE.match(line):
            close()
            after_rule = True
            continue
        m = MODEL_LINE.match(line)
        if m and after_rule:
            section = {"banner": m.group("name").strip(), "prompt": "", "line": number, "index": section["index"] + 1}
            continue
        if line.strip():
            after_rule = False
        p = PROMPT_LINE.match(line)
        if p and STUDY_PROMPT.search(line):
            close()
            section = {**section, "prompt": p.group("prompt").strip(), "line": section["line"] or number}
            if not section["banner"]:
                section["index"] += 1
            continue
        s = SUGGESTION_LINE.match(line)
        if s:
            close()
            current = {"section": dict(section), "n": int(s.group("n")), "line": number, "lines": []}
            continue
        if current is not None:
            current["lines"].append(line)
    close()
    for rec in out:
        sec = rec.pop("section")
        words = _normal_words(sec["prompt"].split(":", 1)[-1] if sec["prompt"] else sec["banner"])
        kernel = _find_word(words, kernel_vocab)
        model_words, model = _model(words, lang, model_vocab)
        if model is None and sec["banner"]:
            model_words, model = _model(_normal_words(sec["banner"]), lang, model_vocab)
        hint = "keyword" if re.search(rf"\b({KEYWORD[lang]}|def|subroutine|function)\b", words, re.IGNORECASE) else "none"
        rec.update(file=rel, language=lang, kernel=kernel[1] if kernel else fallback_kernel,
                   model=model or f"{lang}-unspecified", model_words=model_words, study_prompt=sec["prompt"],
                   banner=sec["banner"], study_hint=hint, section=sec["index"])
    return out


def records(source: Path, cat: Catalog | None = None, files: list[Path] | None = None) -> list[dict]:
    """Replay records of every suggestion in a Llama-2 dump folder (or one dump file; or the given `files`)."""
    cat = cat or catalog()
    out: list[dict] = []
    next_rank: dict[str, int] = defaultdict(int)
    for path, rel, lang, fallback in dump_sources(source, cat, files):
        for s in parse_llama2(path.read_text(encoding="utf-8", errors="replace"), lang, rel, cat, fallback):
            if not s["block"].strip():
                continue
            pid = f"{s['kernel'] or 'unknown'}/{s['model']}/paper/none"
            next_rank[pid] += 1
            meta = {"source": "llama2", "file": rel, "panel": s["section"], "panel_rank": s["n"], "line": s["line"],
                    "key": f"{rel}#{s['section']}.{s['n']}", "sha": block_sha(s["block"]),
                    "study_prompt": s["study_prompt"], "study_hint": s["study_hint"], "banner": s["banner"],
                    "model_words": s["model_words"], "declared_n": None, "total": None, "duplicates_hidden": False,
                    "header": False, "shown": None, "markers_removed": s["markers"], **source_meta(s["source"]),
                    "comment_only": is_comment_only(s["block"], lang), "has_function": has_function(s["block"], lang),
                    "block": s["block"]}
            out.append({"schema": REPLAY_SCHEMA, "llm": LLM, "prompt_id": pid, "language": lang,
                        "model": s["model"], "kernel": s["kernel"], "style": "paper", "hint": "none",
                        "rank": next_rank[pid], "text": s["block"] + "\n", "meta": meta})
    return out


def import_llama2(source: Path, out: Path, files: list[Path] | None = None) -> Table:
    """Parse the Llama-2 dumps under `source` (all, or the given `files`), write replay JSONL to `out`, return the
    counts table."""
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    recs = records(source, files=files)
    if not recs:
        raise FileNotFoundError(f"{source}: no Llama-2 dumps found (expected <KERNEL>/<Language>/GeneratedCode.*)")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    tmp.replace(out)
    return counts_table(recs, f"Llama-2 suggestions in {source.name}")
