"""Plan stage: expand kernels x programming models x styles x hints into prompts rendered from prompts/.

`paper` reproduces the study's completion prompts (`// saxpy OpenMP`, keyword variants); `chat` asks an
instruction-tuned model for one code block with the canonical signature of the kernel spec.
"""

from __future__ import annotations

from collections.abc import Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from hpceval.contracts import Prompt
from hpceval.paths import prompts_dir
from hpceval.spec import Catalog, KernelSpec, Language, Param, ProgrammingModel, UnknownNameError

STYLES = ("paper", "chat")
HINTS = ("none", "keyword")


def _env() -> Environment:
    return Environment(loader=FileSystemLoader(prompts_dir()), undefined=StrictUndefined, trim_blocks=True,
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
        text = env.get_template("chat.j2").render(signature=signature(kernel, lang).rstrip(), **context)
    return Prompt(prompt_id=prompt_id(kernel.id, model.id, style, hint), kernel=kernel.id, model=model.id,
                  language=lang.id, style=style, hint=hint, text=text)


def _check(values: Iterable[str], valid: tuple[str, ...], what: str) -> list[str]:
    out = []
    for v in values:
        if v not in valid:
            raise UnknownNameError(f"unknown {what} {v!r}; valid: {', '.join(valid)}")
        out.append(v)
    return out


def plan(catalog: Catalog, kernels: list[KernelSpec], models: list[ProgrammingModel], styles: Iterable[str],
         hints: Iterable[str]) -> list[Prompt]:
    """Every prompt of the matrix, in a stable order (kernel, model, style, hint).

    A hint a language does not have (Julia has no keyword variant in the study) is skipped, not duplicated.
    """
    styles = _check(styles, STYLES, "style")
    hints = _check(hints, HINTS, "hint")
    prompts = []
    for kernel in kernels:
        for model in models:
            lang = catalog.languages[model.language]
            for style in styles:
                for hint in hints:
                    if hint == "keyword" and not lang.keyword:
                        continue
                    prompts.append(render(kernel, model, lang, style, hint))
    return prompts
