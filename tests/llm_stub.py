"""A stub OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM-judge tests.

It records every request (body and headers) and answers from a script: queued
faults first (an HTTP status, a malformed body, a slow answer, an unparsable
answer), then the default judge, which rates each target by a rule the tests
compute independently: ``1 + len(target) % 5``. The targets are read back from
the ``targetN: text`` lines of the prompt.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def rule(target: str) -> int:
    """The stub's judgement of one target (1-5)."""
    return 1 + len(target) % 5


def targets_of(prompt: str) -> list[str]:
    return re.findall(r"^target\d+: (.*)$", prompt, flags=re.MULTILINE)


def completion(content: str) -> bytes:
    return json.dumps({"id": "stub", "object": "chat.completion",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]
                       }).encode()


def judge(prompt: str) -> str:
    scores = {f"target{i}_score": rule(t) for i, t in enumerate(targets_of(prompt), 1)}
    return "Here you are:\n```json\n" + json.dumps(scores) + "\n```"


class Stub:
    """``with Stub() as stub:`` serves on ``stub.base_url`` until the block ends."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.faults: list[tuple[str, Any]] = []  # ("status", code) / ("raw", bytes) / ...
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with stub.lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    fault = stub.faults.pop(0) if stub.faults else None
                if self.path != "/v1/chat/completions":
                    return self._send(404, b'{"error": "no such route"}')
                prompt = body["messages"][-1]["content"]
                if fault is None:
                    return self._send(200, completion(judge(prompt)))
                kind, value = fault
                if kind == "status":
                    return self._send(value, b'{"error": {"message": "stub says no"}}',
                                      {"Retry-After": "0"} if value == 429 else None)
                if kind == "raw":
                    return self._send(200, value)
                if kind == "answer":
                    return self._send(200, completion(value))
                if kind == "sleep":
                    time.sleep(value)
                    return self._send(200, completion(judge(prompt)))
                raise AssertionError(kind)

            def _send(self, code: int, data: bytes, extra: dict | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def prompts(self) -> list[str]:
        return [r["messages"][-1]["content"] for r in self.requests]
