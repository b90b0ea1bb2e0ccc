"""Import the study's GitHub Copilot panel dumps into replay JSONL.

A dump is plain text (whatever its extension): panel after panel of

    <comment prompt, e.g. "// saxpy OpenMP function" or "! Prompt: saxpy OpenACC\\nsubroutine">
    [keyword line, author marker]
    Synthesizing N/10 solutions (Duplicates hidden)       <- Copilot's panel header, N = suggestions shown
    =======
    <suggestion 1>
    =======
    <suggestion 2> ...

The files were partly reformatted by an editor, so the parser relies on no layout: headers may be split over
lines and indented, prompts may be split over several comment lines, lack the "Prompt:" marker, sit on the same
line as the end of the previous suggestion, or have no header at all (an inline completion pasted after the
prompt: one suggestion); "No synthesized solutions found." is an empty panel. Language comes from the file
extension (else the folder names), kernel and programming model from the prompt's words (the folder names are
only a fallback for the kernel), mapped to the catalog's ids.

Replay records (one JSON object per line; the schema "hpceval.replay/1" of `hpceval.llm.replay`):

    schema, llm "hpceval.replay/1", "github-copilot-2023"
    prompt_id   "<kernel>/<model>/paper/<hint>", the id `hpceval run --style paper` plans for that prompt
    language, model, kernel, style ("paper"), hint ("keyword" | "none")
    rank        1-based order of the suggestion in its panel; when several panels of the dump map to the same
                prompt id (the authors retried a prompt) later panels continue the numbering
    text        the completion *of the harness's own paper prompt*: what follows "// saxpy OpenMP\\n" or, with
                the keyword hint, what follows "def" / "subroutine" (the panel repeats the keyword, which is cut)
    meta        source "copilot", file, panel, panel_rank, line, key (file#panel.rank, stable), sha (content hash
                of the block), study_prompt (the prompt as written in the dump), declared_n (N of the header or
                null), total, duplicates_hidden, shown (blocks found), comment_only, block (the suggestion as shown)
"""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rich.table import Table

from hpceval.importers.markers import SourceBlock, cut_block, source_meta
from hpceval.spec import Catalog, catalog

REPLAY_SCHEMA = "hpceval.replay/1"
LLM = "github-copilot-2023"  # the study's model: GitHub Copilot (OpenAI Codex), queried in early 2023

LANG_BY_EXT = {
    ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c": "cpp", ".cu": "cpp", ".hpp": "cpp", ".h": "cpp", ".hip": "cpp",
    ".f90": "fortran", ".f95": "fortran", ".f03": "fortran", ".f08": "fortran", ".f": "fortran", ".for": "fortran",
    ".py": "python", ".jl": "julia",
}
LANG_BY_DIR = {"cxx": "cpp", "cpp": "cpp", "c++": "cpp", "c": "cpp", "fortran": "fortran", "python": "python",
               "julia": "julia"}
LINE_COMMENT = {"cpp": "//", "fortran": "!", "python": "#", "julia": "#"}
KEYWORD = {"cpp": "function", "fortran": "subroutine", "python": "def", "julia": "function"}

# Kernels of the study that may not (yet) have a spec folder: words -> kernel id.
EXTRA_KERNEL_WORDS = {
    "conjugate gradients": "cg", "conjugate gradient": "cg", "cg": "cg", "jacobi": "jacobi", "spmv": "spmv",
    "gemm": "gemm", "gemv": "gemv", "saxpy": "axpy", "axpy": "axpy", "daxpy": "axpy",
}
# Programming-model words of the study that are spelled differently from the catalog's `words`.
EXTRA_MODEL_WORDS = {
    "cpp": {"openmp target": "cpp-openmp-offload", "openmp target offload": "cpp-openmp-offload",
            "openmp offloading": "cpp-openmp-offload", "sycl": "cpp-sycl", "dpc++": "cpp-sycl"},
    "fortran": {"openmp target": "fortran-openmp-offload", "openmp offloading": "fortran-openmp-offload"},
    "python": {"cuda python": "python-pycuda"},
    "julia": {"threads": "julia-threads", "cuda.jl": "julia-cuda", "oneapi": "julia-oneapi",
              "oneapi.jl": "julia-oneapi", "amdgpu.jl": "julia-amdgpu"},
}
# Model words the catalog does not know in any language: mapped to "<language>-<word>" so nothing is lost.
UNKNOWN_MODEL_WORDS = ("oneapi", "opencl", "mpi", "hip", "cuda", "sycl", "kokkos", "threads", "openmp", "openacc",
                       "numba", "numpy", "cupy", "pycuda", "thrust", "kernelabstractions", "amdgpu")

HEADER = re.compile(r"Synthe[a-z]*\s+(\d+)\s*/\s*(\d+)\s*solutions?[ \t]*(\(\s*duplicates\s+hidden\s*\))?"
                    r"|No\s+synthe[a-z]*\s+solutions?\s+found\.?", re.IGNORECASE)
MARKER = re.compile(r"(//+|!+|#+|/\*+)[ \t]*prompt\b[ \t]*:?", re.IGNORECASE)
# "=======", also as an editor's reformatter left it ("== == == =")
SEPARATOR = re.compile(r"^[ \t]*(?:=[ \t]*){5,9}$", re.MULTILINE)
AUTHOR_MARKER = re.compile(r"^(#{2,}.*|[-*]{3,}|```\w*|.*\b(beginning|end) of (the )?output\b.*)$", re.IGNORECASE)


@dataclass
class Panel:
    """One Copilot panel of a dump (or one inline completion without header)."""

    file: str
    index: int
    line: int
    prompt: str
    language: str
    kernel: str | None
    model: str | None
    model_words: str
    hint: str
    declared_n: int | None
    total: int | None
    duplicates_hidden: bool
    header: bool
    blocks: list[str] = field(default_factory=list)
    empty_blocks: int = 0
    markers: list[list[str]] = field(default_factory=list)  # per block, the author markers removed from it
    # per block, as shown in the dump (markers included), in the form its sha has always been taken of
    raw_blocks: list[str] = field(default_factory=list)
    sources: list[SourceBlock] = field(default_factory=list)  # per block, where it lies in the dump


@dataclass
class _Anchor:
    prompt_start: int
    prompt_end: int
    body_start: int
    header: re.Match | None


# ----------------------------------------------------------------------------------------------- vocabulary
def _kernel_words(cat: Catalog) -> list[tuple[str, str]]:
    words: dict[str, str] = dict(EXTRA_KERNEL_WORDS)
    for spec in cat.kernels.values():
        for w in (spec.id, spec.function, spec.words, *spec.aliases):
            words[w.lower()] = spec.id
    return sorted(words.items(), key=lambda kv: -len(kv[0]))


def _model_words(cat: Catalog, lang: str) -> list[tuple[str, str]]:
    words: dict[str, str] = {}
    for model in cat.models.values():
        if model.language == lang:
            for w in (model.words, model.name, *model.aliases):
                words.setdefault(w.lower().replace("-", " "), model.id)
                words.setdefault(w.lower(), model.id)
    words.update(EXTRA_MODEL_WORDS.get(lang, {}))
    return sorted(words.items(), key=lambda kv: -len(kv[0]))


def _find_word(text: str, vocab: list[tuple[str, str]]) -> tuple[str, str] | None:
    low = text.lower()
    for word, ident in vocab:
        if re.search(rf"(?<![\w.]){re.escape(word)}(?![\w])", low):
            return word, ident
    return None


# ----------------------------------------------------------------------------------------------- parsing
def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _is_comment(line: str, lang: str) -> bool:
    s = line.strip()
    return s.startswith(LINE_COMMENT[lang]) or s.startswith(("//", "/*", "*")) and lang == "cpp"


def _is_keyword_line(line: str, lang: str) -> bool:
    s = line.strip().lower().replace("\\n", "").replace("\\", "")
    return s in {KEYWORD[lang], "def", "subroutine", "function"}


def _prompt_before(text: str, pos: int, lang: str, kernel_vocab) -> tuple[int, int]:
    """(start, end) of the prompt that precedes a panel header at `pos`; start == end when there is none."""
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = text[line_start:pos]
    marker = None
    collected: list[tuple[int, int]] = []
    if prefix.strip():
        found = list(MARKER.finditer(prefix))
        if found:
            return line_start + found[-1].start(), pos
        collected.append((line_start, pos))
    end = line_start - 1
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        s = line.strip()
        end = start - 1
        if not s:
            if collected:
                break
            continue
        found = list(MARKER.finditer(line))
        if found:
            marker = start + found[-1].start()
            break
        if AUTHOR_MARKER.match(s) and not collected:
            continue
        if _is_comment(line, lang) or _is_keyword_line(line, lang):
            collected.append((start, start + len(line)))
            if len(collected) > 12:
                break
            continue
        break
    if marker is not None:
        return marker, pos
    if not collected:
        return pos, pos
    collected.reverse()
    with_kernel = [c for c in collected if _find_word(text[c[0]:c[1]], kernel_vocab)]
    first = with_kernel[-1] if with_kernel else collected[-1]
    return first[0], pos


def _marker_prompt(text: str, m: re.Match, lang: str, kernel_vocab) -> int:
    """End offset of a headerless prompt that starts at marker `m` (continuation lines when it was split)."""
    end = text.find("\n", m.end())
    end = len(text) if end < 0 else end
    lines = 0
    while not _find_word(text[m.end():end], kernel_vocab) and lines < 4 and end < len(text):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        line = text[end + 1:nxt]
        if not _is_comment(line, lang):
            break
        end, lines = nxt, lines + 1
    return end


def _anchors(text: str, lang: str, kernel_vocab) -> list[_Anchor]:
    anchors = []
    for h in HEADER.finditer(text):
        start, _ = _prompt_before(text, h.start(), lang, kernel_vocab)
        end_of_line = text.find("\n", h.end())
        anchors.append(_Anchor(start, h.start(), len(text) if end_of_line < 0 else end_of_line, h))
    anchors.sort(key=lambda a: a.prompt_start)
    # Headerless prompts: a marker at the start of a line, with a kernel word, that is neither part of a header's
    # prompt nor inside a non-last suggestion of a panel (Copilot itself sometimes writes "// Prompt: ...").
    extra = []
    for m in MARKER.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:m.start()].strip():
            continue
        if any(text.rfind("\n", 0, a.prompt_start) + 1 <= m.start() < a.body_start for a in anchors):
            continue
        end = _marker_prompt(text, m, lang, kernel_vocab)
        if not _find_word(text[m.end():end], kernel_vocab):
            continue
        owner = [a for a in anchors if a.body_start <= m.start()]
        if owner:
            a = owner[-1]
            following = [b.prompt_start for b in anchors if b.prompt_start > a.prompt_start]
            region_end = min(following) if following else len(text)
            last_sep = [s.start() for s in SEPARATOR.finditer(text, a.body_start, region_end)]
            if last_sep and m.start() < last_sep[-1]:
                continue
        extra.append(_Anchor(m.start(), end, end, None))
    return sorted(anchors + extra, key=lambda a: a.prompt_start)


def _display_block(block: str) -> str:
    """The block as the sha of a suggestion has always been taken (dedented, trailing blanks dropped), so that hand
    grades keyed by that sha keep matching. Only the sha: the code itself is never reindented."""
    lines = block.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return textwrap.dedent("\n".join(line.rstrip() for line in lines))


def _prompt_words(prompt: str, lang: str) -> str:
    text = MARKER.sub(" ", prompt)
    text = text.replace("\\n", " ").replace("\\", " ")
    text = re.sub(r"(//+|!+|#+|/\*+|\*+/)", " ", text)
    return " ".join(text.split())


def _hint(words: str, prompt: str, lang: str) -> str:
    low = words.lower()
    keyword = KEYWORD[lang]
    if re.search(rf"\b{keyword}\b", low) or re.search(rf"\\n?\s*{keyword}\b|\\d(ef)?\b", prompt.lower()):
        return "keyword"
    return "none"


def detect_language(path: Path) -> str | None:
    lang = LANG_BY_EXT.get(path.suffix.lower())
    if lang:
        return lang
    for part in reversed(path.parts[:-1]):
        if part.lower() in LANG_BY_DIR:
            return LANG_BY_DIR[part.lower()]
    return None


def _kernel_from_path(path: Path, kernel_vocab) -> str | None:
    for part in [path.stem, *reversed(path.parts[:-1])]:
        found = _find_word(part.replace("_", " "), kernel_vocab)
        if found:
            return found[1]
    return None


_EQ_LINE = re.compile(r"^[ \t]*(?:=[ \t]*)+$")


def _mend_separators(text: str) -> str:
    """A reformatter split some "=======" over lines ("== == ==" / "="): join such runs into one line by turning
    their inner newlines into spaces. Same length, same offsets: the blocks are cut from the unmended text, byte
    for byte, at the positions found in this one."""
    lines = text.split("\n")
    joined = []
    i = 0
    while i < len(lines):
        j = i
        if _EQ_LINE.match(lines[i]):
            while j + 1 < len(lines) and _EQ_LINE.match(lines[j + 1]) and j + 1 - i < 3:
                j += 1
            if j > i and not 5 <= sum(ln.count("=") for ln in lines[i:j + 1]) <= 9:
                j = i
        joined.append(" ".join(lines[i:j + 1]))
        i = j + 1
    return "\n".join(joined)


def parse_dump(text: str, lang: str, rel: str, cat: Catalog | None = None, fallback_kernel: str | None = None
               ) -> list[Panel]:
    """Every panel of one dump file, in order."""
    cat = cat or catalog()
    original = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _mend_separators(original)  # where the panels and separators are; the code is cut from `original`
    kernel_vocab = _kernel_words(cat)
    model_vocab = _model_words(cat, lang)
    anchors = _anchors(text, lang, kernel_vocab)
    panels = []
    for i, a in enumerate(anchors):
        end = anchors[i + 1].prompt_start if i + 1 < len(anchors) else len(text)
        prompt = text[a.prompt_start:a.prompt_end].strip()
        words = _prompt_words(prompt, lang)
        kernel = _find_word(words, kernel_vocab)
        model = _find_word(words, model_vocab)
        model_words, model_id = (model[0], model[1]) if model else ("", None)
        if model is None:
            low = words.lower()
            other = next((w for w in UNKNOWN_MODEL_WORDS if re.search(rf"\b{re.escape(w)}\b", low)), None)
            if other:
                model_words, model_id = other, f"{lang}-{other}"
        region_start = a.body_start
        region = text[region_start:max(region_start, end)]
        seps = list(SEPARATOR.finditer(region))
        bounds = [(0, seps[0].start())] + [(s.end(), seps[j + 1].start() if j + 1 < len(seps) else len(region))
                                            for j, s in enumerate(seps)] if seps else [(0, len(region))]
        if seps and not region[:seps[0].start()].strip():
            bounds = bounds[1:]
        cut = [cut_block(original, region_start + b0, region_start + b1, lang) for b0, b1 in bounds]
        kept = [c for c in cut if c.code.strip()]
        # the sha of a suggestion is taken of its whole part as shown (markers included), as it always was
        shown = [_display_block(region[b0:b1]) for c, (b0, b1) in zip(cut, bounds, strict=True) if c.code.strip()]
        blocks = [c.code for c in cut]
        h = a.header
        declared = total = None
        dup = False
        if h is not None:
            if h.group(1):
                declared, total, dup = int(h.group(1)), int(h.group(2)), bool(h.group(3))
            else:
                declared, total = 0, None
        panels.append(Panel(
            file=rel, index=i + 1, line=_line_of(original, a.prompt_start), prompt=prompt, language=lang,
            kernel=kernel[1] if kernel else fallback_kernel, model=model_id, model_words=model_words,
            hint=_hint(words, prompt, lang), declared_n=declared, total=total, duplicates_hidden=dup,
            header=h is not None, blocks=[c.code for c in kept], markers=[c.markers for c in kept],
            raw_blocks=shown, sources=kept,
            empty_blocks=sum(1 for b in blocks if not b.strip()) if h is not None and h.group(1) else 0))
    return panels


# ----------------------------------------------------------------------------------------------- classification
def strip_comments(code: str, lang: str) -> str:
    """The code without comments and string-free blank lines (a rough, language-aware strip)."""
    if lang == "cpp":
        code = re.sub(r"/\*.*?(\*/|$)", " ", code, flags=re.DOTALL)
        code = re.sub(r"//[^\n]*", "", code)
    elif lang == "fortran":
        code = re.sub(r"!(?!\$)[^\n]*", "", code)
    else:
        if lang == "julia":
            code = re.sub(r"#=.*?(=#|$)", " ", code, flags=re.DOTALL)
        code = re.sub(r'^\s*("""|\'\'\')(?:.|\n)*?(\1|$)', "", code, flags=re.MULTILINE)
        code = re.sub(r"#[^\n]*", "", code)
    return "\n".join(line for line in code.split("\n") if line.strip())


def is_comment_only(block: str, lang: str) -> bool:
    return not strip_comments(block, lang).strip()


_DEF = {
    "cpp": re.compile(r"\b\w[\w:<>]*\s*\([^;{}]*\)\s*(const\s*)?(->[^{;]*)?\{", re.DOTALL),
    "fortran": re.compile(r"^\s*(\w+(\(\w+\))?\s+)*(subroutine|function)\s+\w+", re.IGNORECASE | re.MULTILINE),
    "python": re.compile(r"^\s*def\s+\w+\s*\(", re.MULTILINE),
    "julia": re.compile(r"^\s*function\s+[\w.!]+|^\s*[\w.!]+\([^)]*\)\s*=[^=]", re.MULTILINE),
}


def has_function(block: str, lang: str) -> bool:
    """Whether the suggestion contains a complete function definition other than a main program (tree-sitter)."""
    from hpceval.bind.parse import parse

    try:
        unit = parse(block, lang)
    except Exception:  # noqa: BLE001 - a parser failure means no usable definition
        return bool(_DEF[lang].search(strip_comments(block, lang)))
    return any(not f.is_main and f.kind != "method" and "::" not in f.name for f in unit.functions)


def completion_text(block: str, lang: str, hint: str) -> str:
    """The block as a completion of the harness's paper prompt (which ends with the keyword when hinted)."""
    keyword = KEYWORD[lang] if lang in ("fortran", "python") else None
    if hint == "keyword" and keyword:
        m = re.match(rf"\s*{keyword}\b", block, re.IGNORECASE)
        if m:
            return block[m.end():]
        return "\n" + block
    return block


def block_sha(block: str) -> str:
    norm = "\n".join(line.rstrip() for line in block.strip().split("\n"))
    return hashlib.sha1(norm.encode()).hexdigest()[:12]


# ----------------------------------------------------------------------------------------------- import
def dump_files(source: Path) -> list[Path]:
    files = [p for p in sorted(source.rglob("*")) if p.is_file() and detect_language(p)
             and p.suffix.lower() not in (".md", ".txt", ".json", ".jsonl", ".csv") and not p.name.startswith(".")]
    return files


def dump_sources(source: Path, cat: Catalog, files: list[Path] | None = None
                 ) -> Iterator[tuple[Path, str, str, str | None]]:
    """Each dump file under `source` (or `source` itself, or the given `files` under it) with a known language:
    (path, its path relative to the folder, language, the kernel its path names or None). Both dump formats are
    laid out this way."""
    source = Path(source)
    files = files if files is not None else [source] if source.is_file() else dump_files(source)
    base = source.parent if source.is_file() else source
    kernel_vocab = _kernel_words(cat)
    for path in files:
        lang = detect_language(path)
        if lang is not None:
            rel = path.relative_to(base)
            yield path, rel.as_posix(), lang, _kernel_from_path(rel, kernel_vocab)


def records(source: Path, cat: Catalog | None = None, files: list[Path] | None = None) -> list[dict]:
    """Replay records of every suggestion in a dump folder (or one dump file; or the given dump `files` in it)."""
    cat = cat or catalog()
    out: list[dict] = []
    next_rank: dict[str, int] = defaultdict(int)
    for path, rel, lang, kernel in dump_sources(source, cat, files):
        text = path.read_text(encoding="utf-8", errors="replace")
        for panel in parse_dump(text, lang, rel, cat, kernel):
            out.extend(_panel_records(panel, next_rank))
            if not panel.blocks:
                out.append(_empty_panel_record(panel))
    return out


def _prompt_id(panel: Panel) -> str:
    model = panel.model or f"{panel.language}-unspecified"
    return f"{panel.kernel or 'unknown'}/{model}/paper/{panel.hint}"


def _panel_meta(panel: Panel) -> dict:
    return {"source": "copilot", "file": panel.file, "panel": panel.index, "line": panel.line,
            "study_prompt": panel.prompt, "model_words": panel.model_words, "declared_n": panel.declared_n,
            "total": panel.total, "duplicates_hidden": panel.duplicates_hidden, "header": panel.header,
            "shown": len(panel.blocks)}


def _panel_records(panel: Panel, next_rank: dict[str, int]) -> list[dict]:
    pid = _prompt_id(panel)
    recs = []
    for j, block in enumerate(panel.blocks, start=1):
        next_rank[pid] += 1
        removed = panel.markers[j - 1] if j - 1 < len(panel.markers) else []
        meta = {**_panel_meta(panel), "panel_rank": j, "key": f"{panel.file}#{panel.index}.{j}",
                "markers_removed": removed, **source_meta(panel.sources[j - 1]),
                "sha": block_sha(panel.raw_blocks[j - 1] if j - 1 < len(panel.raw_blocks) else block),
                "comment_only": is_comment_only(block, panel.language),
                "has_function": has_function(block, panel.language), "block": block}
        recs.append({"schema": REPLAY_SCHEMA, "llm": LLM, "prompt_id": pid, "language": panel.language, "model": panel.model or f"{panel.language}-unspecified",
                     "kernel": panel.kernel, "style": "paper", "hint": panel.hint, "rank": next_rank[pid],
                     "text": completion_text(block, panel.language, panel.hint), "meta": meta})
    return recs


def _empty_panel_record(panel: Panel) -> dict:
    """Empty panels are kept as a record without text (rank 0, meta.empty_panel) so the counts stay complete."""
    return {"prompt_id": _prompt_id(panel), "language": panel.language,
            "model": panel.model or f"{panel.language}-unspecified", "kernel": panel.kernel, "style": "paper",
            "hint": panel.hint, "rank": 0, "text": "", "meta": {**_panel_meta(panel), "empty_panel": True,
                                                                 "key": f"{panel.file}#{panel.index}.0", "sha": "",
                                                                 "panel_rank": 0, "comment_only": False,
                                                                 "has_function": False, "block": ""}}


def counts_table(recs: list[dict], title: str = "Copilot suggestions") -> Table:
    rows: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    seen_panels: set[tuple] = set()
    for r in recs:
        key = (r["language"], r["model"], r["kernel"] or "?")
        m = r["meta"]
        c = rows[key]
        panel = (m["file"], m["panel"])
        if panel not in seen_panels:
            seen_panels.add(panel)
            c["panels"] += 1
            c["declared"] += m.get("declared_n") or 0
            c["empty panels"] += int(bool(m.get("empty_panel")))
        if m.get("empty_panel"):
            continue
        c["suggestions"] += 1
        c["comment-only"] += int(m["comment_only"])
        c["with function"] += int(m["has_function"])
    cols = ["panels", "empty panels", "declared", "suggestions", "comment-only", "with function"]
    # panels: Copilot panels (or inline completions); empty panels: "No synthesized solutions found"; declared: the
    # sum of the headers' N; suggestions: blocks found; comment-only: blocks without code; with function: blocks
    # that define a function other than a main program (before any signature inference)
    table = Table(title=title)
    for name in ("language", "model", "kernel", *cols):
        table.add_column(name, justify="right" if name in cols else "left")
    total = defaultdict(int)
    for key in sorted(rows):
        table.add_row(*key, *(str(rows[key][c]) for c in cols))
        for c in cols:
            total[c] += rows[key][c]
    table.add_row("total", "", "", *(str(total[c]) for c in cols), style="bold")
    return table


def import_copilot(source: Path, out: Path, files: list[Path] | None = None) -> Table:
    """Parse the dumps under `source` (all, or the given `files`), write replay JSONL to `out`, return the counts
    table."""
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    recs = records(source, files=files)
    if not recs:
        raise FileNotFoundError(f"{source}: no Copilot dumps found (expected *.cpp/*.f90/*.py/*.jl panel dumps)")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w") as f:
        for r in recs:
            if r["meta"].get("empty_panel"):
                continue
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    tmp.replace(out)
    return counts_table(recs, f"Copilot suggestions in {source.name}")
