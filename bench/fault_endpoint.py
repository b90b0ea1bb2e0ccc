"""An OpenAI-compatible endpoint that answers with known code and injects faults at random (bench/soak.py).

Why: a run against a real server meets 500s, 429s with Retry-After, dropped connections, truncated JSON and slow
answers, and none of them may lose, duplicate or change a suggestion. The soak needs answers whose verdicts are
known and stable, so the endpoint answers every chat request for a planned prompt with that prompt's reference
solution (even samples) or one of its automatic mutants (odd samples), chosen by the prompt and the sample index
only: a retried, resumed or repeated request gets the same text, and an undisturbed run the same verdicts.

    server = FaultEndpoint(prompt_texts_to_answers, fault_rate=0.3, seed=14); server.url; server.close()
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("500", "429", "drop", "slow", "badjson")


class FaultEndpoint:
    """answers: prompt text -> candidate code blocks (sample i gets answers[i % len])."""

    def __init__(self, answers: dict[str, list[str]], fault_rate: float = 0.3, seed: int = 0):
        self.answers = answers
        self.fault_rate = fault_rate
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counts: Counter = Counter()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                endpoint.reply(self, 200, {"object": "list", "data": [{"id": "soak", "object": "model"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                endpoint.answer(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def reply(h: BaseHTTPRequestHandler, status: int, obj: dict, headers: dict | None = None) -> None:
        data = json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        h.end_headers()
        h.wfile.write(data)

    def answer(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        with self.lock:
            fault = self.rng.choice(FAULTS) if self.rng.random() < self.fault_rate else None
            self.counts[fault or "ok"] += 1
        if fault == "500":
            return self.reply(h, 500, {"error": {"message": "injected internal error"}})
        if fault == "429":
            return self.reply(h, 429, {"error": {"message": "injected rate limit"}}, {"retry-after": "1"})
        if fault == "drop":
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return None
        if fault == "badjson":
            data = b'{"id": "x", "choices": [{"message": {"content": "unterminated'
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return None
        if fault == "slow":
            time.sleep(2.0)
        text = body["messages"][-1]["content"] if "messages" in body else body.get("prompt", "")
        candidates = self.answers.get(text) or ["no code for this prompt"]
        n = int(body.get("n", 1))
        choices = [{"index": i, "message": {"role": "assistant", "content": candidates[i % len(candidates)]},
                    "finish_reason": "stop"} for i in range(n)]
        usage = {"prompt_tokens": 10, "completion_tokens": 50 * n, "total_tokens": 10 + 50 * n}
        return self.reply(h, 200, {"id": "soak", "object": "chat.completion", "created": 0,
                                   "model": body.get("model"), "choices": choices, "usage": usage})
