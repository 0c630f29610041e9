"""A stub OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM-judge tests.

It records every request (body and headers) and answers from a script: queued
faults first (an HTTP status, a malformed body, a slow answer, an unparsable
answer), then the default judge, which rates each target by a rule the tests
compute independently: ``1 + len(target) % 5``. The targets are read back from
the ``targetN: text`` lines of the prompt.

:func:`build_model` saves a tiny local causal LM whose greedy answer is known
(for the transformers backend; tests/test_llm_judge_local.py explains it).
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
        self.latency = 0.0  # seconds added to every answer (bench: a remote service)
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
                if stub.latency:
                    time.sleep(stub.latency)
                if fault is None:
                    return self._send(200, completion(judge(prompt)))
                kind, value = fault
                if kind == "status":
                    return self._send(value, b'{"error": {"message": "stub says no"}}',
                                      {"Retry-After": "0"} if value == 429 else None)
                if kind == "retry-after":  # a 429 asking to wait this many seconds
                    return self._send(429, b'{"error": "slow down"}', {"Retry-After": value})
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
        # shutdown() waits for the serving loop's next poll: 0.5 s by default, per test
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.01,),
                                       daemon=True)

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def prompts(self) -> list[str]:
        return [r["messages"][-1]["content"] for r in self.requests]


#: The known greedy answer of :func:`build_model`, token by token.
CHAIN = ['{"target1_score":', "4,", '"target2_score":', "2}"]


def build_model(folder: Any, chat_template: str | None = None) -> None:
    """Save a 2-layer GPT-2 (+ word-level tokenizer) that always answers CHAIN, then EOS.

    Every block's output projections are zero (the residual stream is the token
    embedding alone), position embeddings are zero, token embeddings one-hot,
    and the LM head maps each token to the next of a fixed chain: [UNK] (any
    prompt word) -> CHAIN[0] -> ... -> CHAIN[-1] -> [EOS].
    """
    import tokenizers
    import torch
    import transformers

    vocab = {"[UNK]": 0, "[EOS]": 1, **{t: i + 2 for i, t in enumerate(CHAIN)}}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]",
                                                eos_token="[EOS]", pad_token="[EOS]")
    if chat_template:
        fast.chat_template = chat_template
    fast.save_pretrained(folder)
    size = len(vocab)
    nxt = {0: 2, 1: 1, **{t: t + 1 for t in range(2, size)}}
    nxt[size - 1] = 1
    config = transformers.GPT2Config(vocab_size=size, n_positions=1024, n_embd=8, n_layer=2,
                                     n_head=2, tie_word_embeddings=False,
                                     eos_token_id=1, bos_token_id=1, pad_token_id=1)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config)
    with torch.no_grad():
        for block in model.transformer.h:
            for proj in (block.attn.c_proj, block.mlp.c_proj):
                proj.weight.zero_()
                proj.bias.zero_()
        model.transformer.wpe.weight.zero_()
        model.transformer.wte.weight.zero_()
        model.lm_head.weight.zero_()
        for t in range(size):
            model.transformer.wte.weight[t, t] = 1.0
            model.lm_head.weight[nxt[t], t] = 10.0
    model.generation_config.eos_token_id = 1
    model.generation_config.pad_token_id = 1
    model.save_pretrained(folder)
