"""Extract stage: turn a raw LLM answer into source code.

Chat answers: <think> sections and prose dropped; of several fenced blocks (with or without a language tag) the
first one that *defines* the requested function is kept, plus the blocks of the same language that hold its
helpers (functions, types or includes the kept block uses); usage examples, shell commands and program output
are dropped. An answer without fences is kept from its first to its last line of code.

Completions (paper style): the text is stitched after its prompt, since the prompt may already have opened the
function (the study's `subroutine` / `def` keyword hints); a closing fence ends the completion, a completion that
repeats its prompt is not stitched twice.

Answers cut by the token limit are detected (an unterminated fence or <think>, unbalanced braces, a procedure
without its end) and recorded; an incomplete trailing item after a complete requested function is dropped.
No code at all (prose, comments only, an empty answer) gives '' (the verdict `no_code`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hpceval.analysis.prose import code_lines
from hpceval.contracts import Prompt

_THINK = re.compile(r"<(think|thinking|reasoning|thought)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning|thought)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning|thought)>", re.IGNORECASE)
_FENCE_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n`]*$")

LANG_TAGS = {
    "cpp": {"cpp", "c++", "cxx", "cc", "c", "h", "hpp", "cu", "cuda", "hip", "sycl", "openmp", "openacc", "kokkos"},
    "fortran": {"fortran", "f90", "f95", "f03", "f08", "f", "for", "fortran90"},
    "python": {"python", "py", "python3", "py3", "numba", "cupy"},
    "julia": {"julia", "jl"},
}
OTHER_TAGS = {"bash", "sh", "shell", "console", "zsh", "text", "txt", "plaintext", "output", "makefile", "make",
              "cmake", "json", "yaml", "toml", "diff", "ini", "bat", "powershell", "ps1", "log", "markdown", "md"}
_COMMENT = {"cpp": "//", "fortran": "!", "python": "#", "julia": "#"}
_SHELL_LINE = re.compile(r"^\s*(\$ |> |(g\+\+|gcc|clang\+\+|clang|nvcc|hipcc|icpx|nvc\+\+|gfortran|ifort|ifx|mpicc|"
                         r"mpirun|cmake|make|pip|conda|julia|python3?|export|\./)\b)")
_MAIN = re.compile(r"\bint\s+main\s*\(|^\s*program\s+\w+|^\s*if\s+__name__\s*==", re.MULTILINE | re.IGNORECASE)
_CODE_START = re.compile(
    r"^\s*(#\s*(include|pragma|define|if|ifdef|ifndef|endif)\b|template\s*<|(static|inline|extern|const|constexpr|"
    r"void|int|float|double|auto|bool|size_t|long|unsigned|struct|class|namespace|using|typedef|__global__|"
    r"__device__|__host__|return|for|while|if|else|def|class|import|from|async|@\w|subroutine|function|module|"
    r"program|end|implicit|use|integer|real|double\s+precision|logical|call|do|contains|!\$(omp|acc)|let|const|"
    r"begin|Threads|macro|export)\b|\w+\s*=[^=]|\w[\w.:]*\s*\(.*\)\s*[;{]?\s*$|[{}]\s*$)")


@dataclass
class Block:
    tag: str
    body: str
    closed: bool


@dataclass
class Extraction:
    """The code of a suggestion and how it was found (recorded as meta["extract"] of the generation)."""

    code: str
    source: str = "none"  # fenced | unfenced | completion | none
    blocks: int = 0
    kept: list[int] = field(default_factory=list)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return "ok" if self.code.strip() else "no_code"

    def record(self) -> dict[str, Any]:
        return {"status": self.status, "source": self.source, "blocks": self.blocks, "kept": self.kept,
                "truncated": self.truncated, "notes": self.notes}


def extract(text: str, prompt: Prompt, function: str) -> str:
    """The code of a suggestion ('' when there is none)."""
    return extract_details(text, prompt, function).code


def extract_details(text: str, prompt: Prompt, function: str) -> Extraction:
    """The code of a suggestion with what was kept, what was dropped and whether the answer looks cut off."""
    language = prompt.language
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    notes: list[str] = []
    text, think_cut = strip_thinking(text)
    if think_cut:
        notes.append("unterminated thinking section")
    if prompt.style == "paper":
        result = _from_completion(text, prompt, function)
    else:
        result = _from_chat(text, language, function)
    result.notes[:0] = notes
    result.truncated = result.truncated or think_cut
    if result.code and not has_code(result.code, language, prompt.text if prompt.style == "paper" else ""):
        result.notes.append("no code: only comments, prose or the prompt itself")
        result.code = ""
    if not result.code:
        result.source = "none" if not result.blocks else result.source
    return result


# ---------------------------------------------------------------------------------------------- thinking
def strip_thinking(text: str) -> tuple[str, bool]:
    """Drop <think>...</think> (and friends); a lone closing tag ends a thinking prefix (templates that open it
    in the prompt); an unclosed opening tag means the answer was cut while thinking: (text, True)."""
    text = _THINK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    opened = _THINK_OPEN.search(text)
    if opened:
        return text[:opened.start()], True
    return text, False


# ---------------------------------------------------------------------------------------------- fences
def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language tag, body) of every fenced block; an unterminated last block (cut by max_tokens) counts."""
    return [(b.tag, b.body) for b in _blocks(text)]


def _blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, tag = m.group(1), m.group(2), m.group(3).lower()
        body: list[str] = []
        j = i + 1
        closed = False
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
                closed = True
                break
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        blocks.append(Block(tag, "\n".join(body), closed))
        i = j + 1
    return blocks


def _family(tag: str) -> str | None:
    for lang, tags in LANG_TAGS.items():
        if tag in tags:
            return lang
    return "other" if tag in OTHER_TAGS else None


def defines(code: str, function: str, language: str) -> bool:
    """Whether `code` defines `function` (not just calls or declares it)."""
    f = re.escape(function)
    if language == "cpp":
        return bool(re.search(rf"\b{f}\s*\([^;{{}}]*\)\s*(const\s*)?(noexcept\s*)?(->\s*[\w:<>\s*&]+)?\{{", code)
                    or re.search(rf"\b(auto|std::function\s*<[^>]*>)\s+{f}\s*=", code))
    if language == "fortran":
        return bool(re.search(rf"^(?!\s*end\b)[^!\n]*\b(subroutine|function)\s+{f}\b", code,
                              re.IGNORECASE | re.MULTILINE))
    if language == "python":
        return bool(re.search(rf"^\s*(async\s+)?def\s+{f}\s*\(|^\s*{f}\s*=", code, re.MULTILINE))
    if language == "julia":
        return bool(re.search(rf"^\s*function\s+([\w.]+\.)?{f}\b|^\s*{f}\s*\([^)]*\)\s*(where\s*[^=]*)?=(?!=)",
                              code, re.MULTILINE))
    return bool(re.search(rf"\b{f}\b", code))


_DEF_NAMES = {
    "cpp": re.compile(r"(?:\b(?:struct|class|union|enum)\s+(\w+)|^\s*#\s*define\s+(\w+)|"
                      r"\b(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?\{)", re.MULTILINE),
    "fortran": re.compile(r"^(?!\s*end\b)[^!\n]*\b(?:subroutine|function|module|type)\s+(?:::\s*)?(\w+)",
                          re.IGNORECASE | re.MULTILINE),
    "python": re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE),
    "julia": re.compile(r"^\s*(?:function|struct|mutable\s+struct|macro|module)\s+(\w+)|^(\w+)\s*\([^)]*\)\s*=",
                        re.MULTILINE),
}
_CPP_NOT_NAMES = {"if", "for", "while", "switch", "catch", "return", "sizeof", "main"}


def defined_names(code: str, language: str) -> set[str]:
    pattern = _DEF_NAMES.get(language)
    if pattern is None:
        return set()
    names = {name for m in pattern.finditer(code) for name in m.groups() if name}
    return names - _CPP_NOT_NAMES


def _only_preamble(code: str, language: str) -> bool:
    """A block of includes / imports / use statements only (a helper for the block that needs them)."""
    lines = [ln.strip() for ln in code.split("\n") if ln.strip() and not _is_comment(ln, language)]
    if not lines:
        return False
    pre = {"cpp": r"#\s*(include|define|pragma)|using\s+namespace", "python": r"(import|from)\s",
           "julia": r"(using|import)\s", "fortran": r"(use|include)\s"}.get(language, r"$^")
    return all(re.match(pre, ln, re.IGNORECASE) for ln in lines)


def _is_shell(body: str) -> bool:
    lines = [ln for ln in body.split("\n") if ln.strip()]
    return bool(lines) and all(_SHELL_LINE.match(ln) for ln in lines)


def _from_chat(text: str, language: str, function: str) -> Extraction:
    blocks = _blocks(text)
    if not blocks:
        code, truncated = _unfenced_code(text, language)
        return Extraction(code=code, source="unfenced", truncated=truncated and bool(code))
    result = Extraction(code="", source="fenced", blocks=len(blocks))
    families = [_family(b.tag) for b in blocks]
    candidates = [i for i, b in enumerate(blocks)
                  if families[i] == language or (families[i] is None and not _is_shell(b.body))]
    if not candidates:
        candidates = [i for i, b in enumerate(blocks) if families[i] != "other" and not _is_shell(b.body)]
        if candidates:
            result.notes.append(f"no {language} block; kept a block tagged {blocks[candidates[0]].tag!r}")
    if not candidates:
        result.notes.append("only shell/output blocks")
        return result
    defining = [i for i in candidates if defines(blocks[i].body, function, language)]
    if defining:
        main = defining[0]
        if len(defining) > 1:
            result.notes.append(f"{len(defining)} blocks define {function}; kept the first")
    else:
        with_functions = [i for i in candidates if defined_names(blocks[i].body, language)]
        main = max(with_functions or candidates[:1], key=lambda i: len(blocks[i].body.strip().split("\n")))
        result.notes.append(f"no block defines {function}")
    kept = [main]
    used = set(re.findall(r"\w+", blocks[main].body))
    for i in candidates:
        if i == main or i in defining:
            continue
        body = blocks[i].body
        if _MAIN.search(body):
            continue
        names = defined_names(body, language) - {function}
        if _only_preamble(body, language) or (names and names & used):
            kept.append(i)
    kept.sort()
    result.kept = kept
    result.code = "\n\n".join(blocks[i].body.strip("\n") for i in kept).strip("\n") + "\n"
    if not blocks[kept[-1]].closed:  # a closed fence with broken code is broken code, not a cut answer
        result.truncated = True
        result.notes.append("unterminated fence")
        if not balanced(result.code, language):
            result.code = _drop_incomplete_tail(result.code, language, function, result.notes)
    return result


# ---------------------------------------------------------------------------------------------- prose
_PROSE_START = re.compile(r"^\s*([-*+] |\d+[.)] |#{1,6} |>|\*\*|Note|Here|This|The|To |In |It |I |We |You |"
                          r"Explanation|Example|Usage|Output|Compile|Key |Sure|Certainly|Below|Above|Let)", re.IGNORECASE)


def _is_prose(line: str, language: str) -> bool:
    s = line.strip()
    if not s or _is_comment(line, language) and not re.match(r"^#{1,6} [A-Z*]", s):
        return False
    if re.search(r"[;{}]\s*$", s) or _CODE_START.match(line) and not _PROSE_START.match(s):
        return False
    words = re.findall(r"[A-Za-z][a-z']*", s)
    alpha = sum(ch.isalpha() or ch == " " for ch in s) / len(s)
    return (len(words) >= 3 and alpha > 0.75) or bool(_PROSE_START.match(s)) and alpha > 0.6


def _unfenced_code(text: str, language: str) -> tuple[str, bool]:
    """From the first to the last line of code of an answer without fences ('' when it has none)."""
    lines = text.strip("\n").split("\n")
    code_lines = [i for i, ln in enumerate(lines) if ln.strip() and not _is_prose(ln, language)]
    if not code_lines:
        return "", False
    body = "\n".join(lines[code_lines[0]:code_lines[-1] + 1]).strip("\n") + "\n"
    if not _looks_like_code(body):
        return "", False
    return body, not balanced(body, language)


def _looks_like_code(text: str) -> bool:
    return bool(re.search(r"[;{}()=]\s*$|^\s*(def|void|subroutine|function|#include|import|module|program)\b",
                          text, re.MULTILINE))


# ---------------------------------------------------------------------------------------------- completions
def _from_completion(text: str, prompt: Prompt, function: str) -> Extraction:
    language = prompt.language
    lines = text.split("\n")
    fence_at = next((i for i, ln in enumerate(lines) if _FENCE_OPEN.match(ln)), None)
    if fence_at is not None:
        before = "\n".join(lines[:fence_at])
        prompt_lines = [ln for ln in prompt.text.split("\n") if ln.strip()]
        own = [ln for ln in before.split("\n") if ln.strip() and ln.strip() not in {p.strip() for p in prompt_lines}]
        if not own or all(_is_prose(ln, language) for ln in own):
            result = _from_chat(text, language, function)  # a chat answer to a completion prompt
            if result.code and not defines(result.code, function, language) and prompt.text.strip():
                keyword = _trailing_keyword(prompt.text)
                if keyword and not result.code.lstrip().lower().startswith(keyword.lower()):
                    result.code = prompt.text + result.code
            result.source = "fenced"
            return result
        text = before + "\n"  # the completion went on past a closing fence: the code ends there
    code = stitch_completion(prompt.text, text)
    notes: list[str] = []
    code = _drop_trailing_prose(code, language, notes)
    truncated = not balanced(code, language)
    if truncated:
        code = _drop_incomplete_tail(code, language, function, notes)
    return Extraction(code=code, source="completion", truncated=truncated, notes=notes)


_DIRECTIVE = re.compile(r"^\s*#\s*(?:include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error)\b", re.M)


def _drop_trailing_prose(code: str, language: str, notes: list[str]) -> str:
    """C and C++ code followed by the author's own words (a question, a pasted `uname -a`, a table): the top-level
    pieces after the last one that ends in `}` or `;` hold no `;`, brace or preprocessor directive, so they are
    no code a compiler could take, and at least one of their lines reads as a sentence: they are dropped, said in
    the notes. (Left in, their words read as types the suggestion never defines, and the suggestion was
    `incomplete`.) Prose with a brace or a `;` stays, and so does a cut-off declaration."""
    if language != "cpp":
        return code
    items = _top_level_items(code, language)
    keep = len(items)
    while keep > 1 and not re.search(r"[;{}]", _strip_comments_and_strings(items[keep - 1], language)) \
            and not _DIRECTIVE.search(items[keep - 1]):
        keep -= 1
    tail = "".join(items[keep:])
    if keep == len(items) or not re.search(r"[;}]\s*$", _strip_comments_and_strings("".join(items[:keep]),
                                                                                     language).rstrip()):
        return code
    if not balanced(tail, language) or not any(_is_prose(line, language) for line in tail.split("\n")):
        return code  # a cut-off declaration (`void f(int n,`), not words: the truncation rules decide
    notes.append("dropped the prose after the code")
    return "".join(items[:keep]).rstrip("\n") + "\n"


def _trailing_keyword(prompt_text: str) -> str | None:
    m = re.search(r"(?:^|\n)(\w+)$", prompt_text)
    return m.group(1) if m else None


def stitch_completion(prompt_text: str, completion: str) -> str:
    """Prompt + completion, unless the completion already repeats the prompt (or its trailing keyword)."""
    if prompt_text.strip() and completion.lstrip().startswith(prompt_text.strip()):
        return completion.lstrip("\n")
    keyword = _trailing_keyword(prompt_text)
    if keyword and re.match(rf"\s*{re.escape(keyword)}\b", completion, re.IGNORECASE):
        return prompt_text[: len(prompt_text) - len(keyword)] + completion.lstrip(" \t")
    if keyword and completion[:1].isalnum():
        completion = " " + completion  # "def" + "saxpy(...)": the completion started without its space
    return prompt_text + completion


# ---------------------------------------------------------------------------------------------- structure
def _is_comment(line: str, language: str) -> bool:
    s = line.strip()
    marker = _COMMENT.get(language, "//")
    return s.startswith(marker) or (language == "cpp" and (s.startswith("/*") or s.startswith("*")))


def _strip_comments_and_strings(code: str, language: str) -> str:
    if language == "cpp":
        code = re.sub(r"/\*.*?(\*/|\Z)", " ", code, flags=re.DOTALL)
        code = re.sub(r"//[^\n]*", "", code)
        code = re.sub(r"\"(\\.|[^\"\\\n])*\"|'(\\.|[^'\\\n])*'", '""', code)
    elif language == "fortran":
        code = re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", '""', code)
        code = re.sub(r"![^\n]*", "", code)
    elif language in ("python", "julia"):
        code = re.sub(r'"""[\s\S]*?("""|\Z)|\'\'\'[\s\S]*?(\'\'\'|\Z)', '""', code)
        if language == "julia":
            code = re.sub(r"#=[\s\S]*?(=#|\Z)", " ", code)
        code = re.sub(r"\"(\\.|[^\"\\\n])*\"|'(\\.|[^'\\\n])*'", '""', code)
        code = re.sub(r"#[^\n]*", "", code)
    return code


def has_code(code: str, language: str, prompt_text: str = "") -> bool:
    """Something besides comments, blank lines, prose (analysis.prose: a sentence's colon or parentheses are no
    code) and the prompt's own keyword."""
    body = _strip_comments_and_strings(code, language).strip()
    keyword = _trailing_keyword(prompt_text) if prompt_text else None
    if keyword and body.lower() == keyword.lower():
        return False
    body = code_lines(body, language)
    tokens = re.findall(r"\w+|[^\w\s]", body)
    return len(tokens) >= 3 and bool(re.search(r"[(){}=;:\[\]]", body))


def balanced(code: str, language: str) -> bool:
    """False when the code is visibly cut off: open braces/brackets, a procedure or block without its end."""
    body = _strip_comments_and_strings(code, language)
    if re.search(r'"""|\'\'\'', code) and language in ("python", "julia") and \
            (code.count('"""') % 2 or code.count("'''") % 2):
        return False
    if language in ("cpp", "julia", "python"):
        for open_, close in ("{}", "()", "[]"):
            if body.count(open_) > body.count(close):
                return False
    if language == "fortran":
        for unit in ("subroutine", "function", "module", "program"):
            starts = len(re.findall(rf"^(?!\s*end\b)[^!\n]*\b{unit}\s+\w+", body, re.IGNORECASE | re.MULTILINE))
            ends = len(re.findall(rf"^\s*end\s*{unit}\b", body, re.IGNORECASE | re.MULTILINE))
            if unit == "function":
                starts = len(re.findall(r"^(?!\s*end\b)[^!\n]*\bfunction\s+\w+\s*\(", body, re.IGNORECASE | re.MULTILINE))
            if starts > ends:
                return False
    if language == "julia":
        opens = len(re.findall(r"^\s*(function|for|while|if|let|begin|struct|module|macro|quote|try|do)\b|\bdo\b",
                               body, re.MULTILINE))
        ends = len(re.findall(r"\bend\b", body))
        if opens > ends:
            return False
    if language == "python":
        last = [ln for ln in body.split("\n") if ln.strip()]
        if last and re.search(r"[:,\\(\[{]\s*$|[+\-*/=]\s*$", last[-1]):
            return False
    return True


def _drop_incomplete_tail(code: str, language: str, function: str, notes: list[str]) -> str:
    """A cut answer whose requested function is complete: drop the incomplete item after it."""
    if not defines(code, function, language):
        return code
    items = _top_level_items(code, language)
    if len(items) < 2:
        return code
    for k in range(len(items) - 1, 0, -1):
        head = "".join(items[:k])
        if defines(head, function, language) and balanced(head, language):
            notes.append("dropped an incomplete item after the function")
            return head.rstrip("\n") + "\n"
    return code


def _common_indent(lines: list[str]) -> int:
    """The whitespace width every non-blank line starts with (as textwrap.dedent measures it, same characters)."""
    body = [ln for ln in lines if ln.strip()]
    if not body:
        return 0
    first = body[0][: len(body[0]) - len(body[0].lstrip())]
    width = len(first)
    for ln in body[1:]:
        k = 0
        while k < width and k < len(ln) and ln[k] == first[k]:
            k += 1
        width = k
    return width


def _top_level_items(code: str, language: str) -> list[str]:
    """Split source into consecutive top-level pieces (their concatenation is the code)."""
    lines = code.split("\n")
    pieces: list[str] = []
    current: list[str] = []
    # a panel indented as a whole (a completion's lines all start 74 columns in) has its top level at the
    # common indentation, not at column 0; Python keeps column 0, where its indentation is its syntax
    # (comments aside: a completion prompt's own comment line, stitched at column 0, starts no item)
    margin = 0 if language == "python" else _common_indent([ln for ln in lines if not _is_comment(ln, language)])

    def boundary(prefix: str) -> bool:
        return balanced(prefix, language) and not re.search(r"\\\s*$", prefix.rstrip("\n").split("\n")[-1])

    for idx, line in enumerate(lines):
        starts_item = (line.strip() and not line[margin:margin + 1].isspace() and not _is_comment(line, language)
                       and not line.lstrip().startswith(("}", "end", "END", "#pragma")))
        if starts_item and current and (language != "python" or not line.startswith((")", "]", "}"))):
            prefix = "\n".join(lines[:idx]) + "\n"
            if boundary(prefix):
                lead: list[str] = []  # comments right above an item belong to it
                while current and current[-1].strip() and _is_comment(current[-1], language):
                    lead.insert(0, current.pop())
                if current:
                    pieces.append("\n".join(current) + "\n")
                current = lead
        current.append(line)
    if current:
        pieces.append("\n".join(current) + ("\n" if code.endswith("\n") else ""))
    return pieces
