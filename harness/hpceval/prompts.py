"""Plan stage: expand kernels x programming models x styles x hints into prompts rendered from prompts/.

`paper` reproduces the study's completion prompts (`// saxpy OpenMP`, keyword variants); `chat` asks an
instruction-tuned model for one code block with the canonical signature of the kernel spec. A style is a template
`<style>.j2`: a user templates folder (`--prompts-dir DIR`, HPCEVAL_PROMPTS_DIR) adds styles of its own (sent as
chat prompts, rendered with the same context as chat.j2) and may include the built-in templates (signatures/).
`list prompts` and `run` share one default selection (DEFAULT_STYLES, DEFAULT_HINTS).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

from hpceval.contracts import Prompt
from hpceval.paths import prompts_dir
from hpceval.spec import Catalog, KernelSpec, Language, Param, ProgrammingModel, UnknownNameError, unknown_name

STYLES = ("paper", "chat")
HINTS = ("none", "keyword")
DEFAULT_STYLES = ("chat",)
DEFAULT_HINTS = ("none",)
PROMPTS_ENV = "HPCEVAL_PROMPTS_DIR"


def user_prompts_dir() -> Path | None:
    """The user templates folder (HPCEVAL_PROMPTS_DIR), or None."""
    value = os.environ.get(PROMPTS_ENV)
    if not value:
        return None
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise UnknownNameError(f"prompt templates folder {folder} is not a directory (--prompts-dir / {PROMPTS_ENV})")
    return folder


def all_styles() -> tuple[str, ...]:
    """The built-in styles, then each top-level `<style>.j2` of the user templates folder."""
    user = user_prompts_dir()
    extra = sorted(p.stem for p in user.glob("*.j2") if p.stem not in STYLES) if user else []
    return STYLES + tuple(extra)


def select(value: str | None, valid: tuple[str, ...], default: tuple[str, ...], what: str) -> list[str]:
    """A --style / --hints value: 'all', a comma list (each checked, with a suggestion), or the shared default."""
    if value == "all":
        return list(valid)
    names = [v.strip() for v in (value or "").split(",") if v.strip()] or list(default)
    return _check(names, valid, what)


def _env() -> Environment:
    user = user_prompts_dir()
    loaders = ([FileSystemLoader(user)] if user else []) + [FileSystemLoader(prompts_dir())]
    return Environment(loader=ChoiceLoader(loaders), undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)


def _types(kernel: KernelSpec) -> dict:
    real32 = kernel.dtype == "float32"

    def ctype(p: Param) -> str:
        return "int" if p.kind != "real" else ("float" if real32 else "double")

    def ftype(p: Param) -> str:
        return "integer" if p.kind != "real" else ("real(4)" if real32 else "real(8)")

    def pytype(p: Param) -> str:
        if not p.is_array:
            return "int" if p.kind != "real" else "float"
        return f"numpy.ndarray of {'int32' if p.kind != 'real' else kernel.dtype}"

    def jltype(p: Param) -> str:
        base = "Int32" if p.kind != "real" else ("Float32" if real32 else "Float64")
        return f"Array{{{base},{len(p.shape)}}}" if p.is_array else base

    return {"ctype": ctype, "ftype": ftype, "pytype": pytype, "jltype": jltype}


def signature(kernel: KernelSpec, lang: Language) -> str:
    return _env().get_template(f"signatures/{lang.id}.j2").render(kernel=kernel, **_types(kernel)).rstrip() + "\n"


def prompt_id(kernel: str, model: str, style: str, hint: str) -> str:
    return f"{kernel}/{model}/{style}/{hint}"


def render(kernel: KernelSpec, model: ProgrammingModel, lang: Language, style: str, hint: str) -> Prompt:
    env = _env()
    context = {"kernel": kernel, "model": model, "lang": lang, "hint": hint}
    if style == "paper":
        text = env.get_template("paper.j2").render(**context)
    else:
        text = env.get_template(f"{style}.j2").render(signature=signature(kernel, lang).rstrip(), **context)
    return Prompt(prompt_id=prompt_id(kernel.id, model.id, style, hint), kernel=kernel.id, model=model.id,
                  language=lang.id, style=style, hint=hint, text=text)


def _check(values: Iterable[str], valid: tuple[str, ...], what: str) -> list[str]:
    out = []
    for v in values:
        if v not in valid:
            raise UnknownNameError(unknown_name(what, v, valid))
        out.append(v)
    return out


def plan(catalog: Catalog, kernels: list[KernelSpec], models: list[ProgrammingModel], styles: Iterable[str],
         hints: Iterable[str]) -> list[Prompt]:
    """Every prompt of the matrix, in a stable order (kernel, model, style, hint).

    A hint a language does not have (Julia has no keyword variant in the study) is skipped, not duplicated.
    """
    chosen = _check(styles, all_styles(), "style")
    hints = _check(hints, HINTS, "hint")
    prompts = []
    for kernel in kernels:
        for model in models:
            lang = catalog.languages[model.language]
            for style in chosen:
                for hint in hints:
                    if hint == "keyword" and not lang.keyword:
                        continue
                    prompts.append(render(kernel, model, lang, style, hint))
    return prompts
