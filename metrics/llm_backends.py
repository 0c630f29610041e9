"""Where the LLM judge's answers come from: an OpenAI-compatible endpoint or a local model.

Both backends turn a list of prompts into a list of raw answer texts and say
who answers (:meth:`identity`) and how (:meth:`settings`), which go into the
cache key. Decoding is deterministic where the backend allows it: temperature
0 and a fixed seed for endpoints (the seed is a request to the server, which
may ignore it), greedy decoding in fp32 for local models.

**Endpoint** (``backend=openai``): ``POST {base_url}/chat/completions`` with
one user message, through :mod:`urllib` only (no ``openai`` package). The API
key is read from the environment variable named by ``api_key_env`` at request
time; it is never an option value, so it never reaches a spec, a signature,
a cache key or an error message. HTTP 429, any 5xx, a connection error, a
timeout and a body that is not a chat completion are retried up to
``retries`` times, waiting ``backoff * 2**attempt`` seconds (or the server's
``Retry-After`` when longer; at most 60 s), each retry announced on stderr
with the address and the attempt (:func:`gecmetrics.progress.note`); then, or
at once for other HTTP errors (400, 401, 404, ...), one line saying what
failed and what to do. A refused connection before the server has ever
answered is not retried: nothing listens at the address (a server not
started, a wrong port), and waiting would only hide it for half a minute.

**Local** (``backend=transformers``): a causal LM loaded in fp32 by the neural
core's offline-first loaders (:mod:`gecmetrics.neural.models`; torch and
transformers imported only when used) from a folder or a hub id, its chat
template applied when it has one, batches left-padded, greedy decoding.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from gecmetrics.errors import GecMetricsError
from gecmetrics.formatting import plural
from gecmetrics.neural.device import resolve_device
from gecmetrics.neural.extra import require_transformers
from gecmetrics.neural.models import ModelRef, load_model, load_tokenizer, no_grad
from gecmetrics.progress import note

MAX_WAIT = 60.0  # seconds: the longest single wait between retries
RETRY_STATUS = frozenset({429}) | frozenset(range(500, 600))


class EndpointError(GecMetricsError):
    """The endpoint failed for good (after retries, or an error retrying cannot fix)."""


class _Retryable(Exception):
    def __init__(self, message: str, wait: float | None = None, refused: bool = False) -> None:
        super().__init__(message)
        self.wait = wait
        self.refused = refused  # nothing listening: no connection was made


def _snippet(raw: bytes | str, limit: int = 120) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible server and how to ask it: the llm-judge options that
    reach the HTTP requests (one value, so the backend takes one argument)."""

    base_url: str
    model: str
    api_key_env: str
    timeout: float
    retries: int
    backoff: float
    seed: int | None
    temperature: float
    max_tokens: int
    workers: int = 1


class OpenAIBackend:
    """Chat completions from any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, ...)."""

    name = "openai"

    def __init__(self, endpoint: Endpoint, sleep: Callable[[float], None] = time.sleep,
                 notify: Callable[[str], None] = note) -> None:
        e = endpoint
        self.url = e.base_url.rstrip("/") + "/chat/completions"
        self.base_url = e.base_url.rstrip("/")
        self.model = e.model
        self.api_key_env = e.api_key_env
        self.timeout, self.retries, self.backoff = e.timeout, e.retries, e.backoff
        self.seed, self.temperature, self.max_tokens = e.seed, e.temperature, e.max_tokens
        self.workers = e.workers
        self.sleep = sleep
        self.notify = notify  # where each retry is announced (stderr)
        self.calls = 0  # HTTP requests sent (tests: a cached rerun sends none)
        self.answered = threading.Event()  # the server has answered once (any status)

    def identity(self) -> str:
        return f"openai|{self.base_url}|{self.model}"

    def settings(self) -> str:
        return f"temperature={self.temperature}|seed={self.seed}|max_tokens={self.max_tokens}"

    def body(self, prompt: str) -> dict[str, Any]:
        """The request body for one prompt (tests read it to see what is sent)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    def complete(self, prompts: Sequence[str], wheres: Sequence[str]) -> list[str]:
        """The answer to each prompt (``wheres`` name the sentences for errors)."""
        if self.workers <= 1 or len(prompts) <= 1:
            return [self._one(p, w) for p, w in zip(prompts, wheres, strict=True)]
        pool = ThreadPoolExecutor(max_workers=self.workers)
        futures = [pool.submit(self._one, p, w) for p, w in zip(prompts, wheres, strict=True)]
        try:
            return [f.result() for f in futures]
        finally:  # on a failure, do not wait for (or retry) the prompts not yet sent
            pool.shutdown(wait=True, cancel_futures=True)

    def _one(self, prompt: str, where: str) -> str:
        data = json.dumps(self.body(prompt)).encode("utf-8")
        last, wait = "", 0.0
        for attempt in range(self.retries + 1):
            if attempt:
                self.sleep(min(MAX_WAIT, wait))
            try:
                return self._post(data, where)
            except _Retryable as err:
                if err.refused and not self.answered.is_set():
                    raise EndpointError(
                        f"llm-judge: nothing is listening at {self.base_url} (connection "
                        "refused); start the server there, or give its address with the "
                        "option base_url=URL") from None
                last = str(err)
                wait = max(self.backoff * 2 ** attempt, err.wait or 0.0)
                if attempt < self.retries:
                    self.notify(f"note: llm-judge: {self.url} failed ({last}); retry "
                                f"{attempt + 1} of {self.retries} in {min(MAX_WAIT, wait):g} s")
        raise EndpointError(
            f"llm-judge: {where}: {self.url} failed {plural(self.retries + 1, 'time')} "
            f"(last: {last}); "
            "check that the server is up and the model is served, or allow more with "
            "retries=N / timeout=SECONDS")

    def _post(self, data: bytes, where: str) -> str:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        self.calls += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                self.answered.set()
                raw = response.read()
        except urllib.error.HTTPError as err:
            self.answered.set()
            body = _snippet(err.read() or b"")
            if err.code in RETRY_STATUS:
                raise _Retryable(f"HTTP {err.code} {body!r}", _retry_after(err.headers)) from None
            hint = {401: f"set a valid API key in the environment variable {self.api_key_env}",
                    403: f"check the API key in {self.api_key_env} and its access to "
                         f"model {self.model!r}",
                    404: f"check base_url ({self.base_url}) and model ({self.model!r})"
                    }.get(err.code, "check the options base_url, model and max_tokens")
            raise EndpointError(f"llm-judge: {where}: {self.url} answered HTTP {err.code} "
                                f"{body!r}; {hint}") from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                TimeoutError) as err:
            reason = getattr(err, "reason", None) or err
            raise _Retryable(f"{type(err).__name__}: {reason}",
                             refused=isinstance(reason, ConnectionRefusedError)) from None
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            raise _Retryable(f"a body that is not a chat completion: {_snippet(raw)!r}")
        return content


class TransformersBackend:
    """Greedy answers of a local causal LM (transformers), batched, fp32."""

    name = "transformers"

    def __init__(self, model: str, revision: str | None, *, device: str, max_tokens: int,
                 batch_size: int) -> None:
        self.model_name, self.revision = model, revision
        self.device_option, self.max_tokens, self.batch_size = device, max_tokens, batch_size
        self._model: Any = None
        self._tokenizer: Any = None
        self.calls = 0  # generate() calls (tests: a cached rerun makes none)
        self.sent: list[str] = []  # the exact texts given to the tokenizer, for tests

    def identity(self) -> str:
        return "transformers|" + ModelRef(self.model_name, self.revision).identity()

    def settings(self) -> str:
        return f"greedy|fp32|max_new_tokens={self.max_tokens}"

    def _load(self) -> None:
        """Tokenizer and fp32 model through the neural core's offline-first loaders."""
        if self._model is not None:
            return

        transformers = require_transformers("llm-judge")
        ref = ModelRef(self.model_name, self.revision)
        self.device = resolve_device(self.device_option, "llm-judge")
        self._tokenizer = load_tokenizer(ref, "llm-judge")
        self._model = load_model(ref, "llm-judge", cls=transformers.AutoModelForCausalLM,
                                 device=self.device, dtype="float32")
        self._tokenizer.padding_side = "left"
        if self._tokenizer.pad_token is None:
            self._tokenizer.pad_token = self._tokenizer.eos_token

    def text(self, prompt: str) -> str:
        """The model input for ``prompt``: its chat template when it has one."""
        if getattr(self._tokenizer, "chat_template", None):
            return str(self._tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False,
                add_generation_prompt=True))
        return prompt

    def complete(self, prompts: Sequence[str], wheres: Sequence[str]) -> list[str]:
        self._load()
        tok, model = self._tokenizer, self._model
        out: list[str] = []
        for i in range(0, len(prompts), self.batch_size):
            texts = [self.text(p) for p in prompts[i:i + self.batch_size]]
            self.sent.extend(texts)
            enc = tok(texts, return_tensors="pt", padding=True,
                      add_special_tokens=not getattr(tok, "chat_template", None))
            enc = {k: v.to(self.device) for k, v in enc.items()}
            self.calls += 1
            with no_grad("llm-judge"):
                generated = model.generate(**enc, do_sample=False, max_new_tokens=self.max_tokens,
                                           pad_token_id=tok.pad_token_id)
            new = generated[:, enc["input_ids"].shape[1]:]
            out.extend(tok.batch_decode(new, skip_special_tokens=True))
        return out
