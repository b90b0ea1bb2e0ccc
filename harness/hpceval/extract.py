"""Extract stage: turn a raw LLM answer into source code.

Chat answers: the fenced block that defines the requested function (plus blocks with its helpers), prose and
<think> sections dropped. Completions: the text is stitched after its prompt, since the prompt may already have
opened the function (the study's `subroutine` / `def` keyword hints).
"""

from __future__ import annotations

import re

from hpceval.contracts import Prompt

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language tag, body) of every fenced block; an unterminated last block (cut by max_tokens) counts."""
    return [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(text)]


def extract(text: str, prompt: Prompt, function: str) -> str:
    """The code of a suggestion ('' when there is none)."""
    text = _THINK.sub("", text)
    if prompt.style == "paper":
        return stitch_completion(prompt.text, text)
    blocks = fenced_blocks(text)
    if not blocks:
        return text.strip() if _looks_like_code(text) else ""
    defining = [body for _, body in blocks if re.search(rf"\b{re.escape(function)}\b", body)]
    if defining:
        helpers = [body for _, body in blocks if body not in defining and not _is_main_only(body)]
        return "\n\n".join(helpers + defining).strip() + "\n"
    return blocks[0][1].strip() + "\n"


def stitch_completion(prompt_text: str, completion: str) -> str:
    """Prompt + completion, unless the completion already repeats the prompt or is a full program."""
    if completion.lstrip().startswith(prompt_text.strip()):
        return completion
    return prompt_text + completion


def _looks_like_code(text: str) -> bool:
    return bool(re.search(r"[;{}()=]\s*$|^\s*(def|void|subroutine|function|#include|import)\b", text, re.MULTILINE))


def _is_main_only(body: str) -> bool:
    return bool(re.search(r"\bint\s+main\s*\(|^\s*program\s+\w+|__name__\s*==", body, re.MULTILINE))
