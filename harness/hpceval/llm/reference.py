"""The `reference` backend: answers every prompt with the kernel's known-correct solution.

It makes `hpceval run --llm reference` exercise generation-free evaluation end to end; a prompt whose
programming model has no reference solution gets a generation error, not a fake suggestion.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hpceval.contracts import Prompt, Suggestion
from hpceval.llm.base import GenerationParams
from hpceval.spec import catalog


class ReferenceBackend:
    name = "reference"

    def describe(self) -> dict[str, Any]:
        return {"backend": "reference", "model": "reference-solutions"}

    def generate(self, prompts: list[Prompt], params: GenerationParams,
                 on_done: Callable[[Suggestion], None] | None = None) -> Iterator[Suggestion]:
        cat = catalog()
        for prompt in prompts:
            spec, model = cat.kernels[prompt.kernel], cat.models[prompt.model]
            path = spec.solution_path(model, cat)
            if path.is_file():
                text = path.read_text()
                yield Suggestion(prompt_id=prompt.prompt_id, rank=1, text=text, code=text,
                                 meta={"source": str(path.relative_to(spec.folder.parent)), "complete": True})
            else:
                yield Suggestion(prompt_id=prompt.prompt_id, rank=1, text="",
                                 error=f"no reference solution {path.name} for {prompt.kernel}")

    def close(self) -> None:
        pass
