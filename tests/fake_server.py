"""A fake OpenAI-compatible server for tests: real HTTP on 127.0.0.1, scripted answers.

It speaks Chat Completions like OpenRouter (POST .../chat/completions, GET .../models),
answers from a queue of scripted replies and faults, and records every request, so a
test can check what was really sent on the wire. No internet, no key needed.

    with FakeServer() as fake:               # or the `fake_openai` fixture (conftest.py)
        fake.push(tool_reply(("read_file", {"path": "README.md"})))
        fake.push(error_body("Rate limit exceeded", 429), status=429,
                  headers={"Retry-After": "1"})
        fake.push(text_reply("Le README présente le projet."))
        model = OpenRouterModel(base_url=fake.url, api_key="test")
        ...
        fake.chat_requests[0].body["messages"]  # what the model received

Faults, as keywords of `push` (see `Reply`): `status`, `headers`, `delay` (seconds
before answering), `truncate` (send only the first N bytes of the body while announcing
the full length, then hang up), `drop` (hang up without answering), `trickle` (seconds
between two bytes of the body: a server that never quite stops talking), `endless`
(after the body, send blanks until the client hangs up: a stream that never ends),
`trickle_headers` (seconds between two bytes of the status line and headers: the body
never starts in time), `interim` (how many `100 Continue` answers come first, one every
`trickle_headers` seconds, or at once); a `str` or `bytes` body is sent as is (an HTML
error page, a JSON cut short, a gzip bomb with its `Content-Encoding` in `headers`...).

Like OpenRouter, it accepts calls from a web page (CORS: any origin, the harness's headers),
for the JupyterLite site's test, where the browser makes the requests; the browser's
preflights (OPTIONS) are answered and not recorded: they are not the client's requests.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_MODEL = "fake/model"
_ids = itertools.count(1)  # tool call and completion ids stay unique across replies


@dataclass
class Reply:
    """One scripted answer of the fake server."""

    body: Any = None  # dict or list -> JSON; str or bytes -> sent as is
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    truncate: int | None = None
    drop: bool = False
    trickle: float = 0.0
    endless: bool = False
    trickle_headers: float = 0.0
    interim: int = 0


@dataclass
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case: "authorization", "content-type"
    body: Any  # the parsed JSON, else the raw text, else None


def completion_body(
    message: dict[str, Any],
    finish_reason: str = "stop",
    usage: dict[str, Any] | None = None,
    model: str = FAKE_MODEL,
) -> dict[str, Any]:
    """A complete Chat Completions answer (valid for openai's `ChatCompletion`)."""
    usage = usage or {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
    return {
        "id": f"gen-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": usage,
    }


def text_reply(content: str, *, finish_reason: str = "stop", **kwargs: Any) -> dict[str, Any]:
    """An assistant answer with text only (kwargs: usage, model)."""
    message = {"role": "assistant", "content": content}
    return completion_body(message, finish_reason, **kwargs)


def tool_reply(
    *calls: tuple[str, dict[str, Any]], content: str | None = None, **kwargs: Any
) -> dict[str, Any]:
    """An assistant answer asking for tools: tool_reply(("read_file", {"path": "a.txt"}))."""
    tool_calls = [
        {
            "id": f"call_fake_{next(_ids)}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        for name, arguments in calls
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    return completion_body(message, "tool_calls", **kwargs)


def error_body(
    message: str, code: int = 400, *, raw: Any = None, provider: str = "FakeProvider"
) -> dict[str, Any]:
    """An error body shaped like OpenRouter's; `raw` is the provider's own body, if any."""
    error: dict[str, Any] = {"message": message, "code": code}
    if raw is not None:  # OpenRouter forwards the provider's body as a JSON string
        raw = raw if isinstance(raw, str) else json.dumps(raw)
        error["metadata"] = {"raw": raw, "provider_name": provider}
    return {"error": error}


class FakeServer:
    """A threaded HTTP server on a free port; `url` is the base_url to give a client."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.default = Reply(text_reply("ok"))  # answered when the queue is empty
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def push(self, body: Any = None, **fault: Any) -> None:
        """Queue one answer: push(text_reply("Bonjour")), push(status=503, body=...)."""
        self.replies.append(Reply(body, **fault))

    def next_reply(self) -> Reply:
        try:
            return self.replies.popleft()
        except IndexError:
            return self.default

    def start(self) -> FakeServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self  # type: ignore[attr-defined]
        # A short poll interval: stop() waits for the loop to notice, 0.5 s by default.
        serve = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)
        serve.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # wakes up handlers waiting in a `delay`
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.0: one request per connection, so each fault hits exactly one request."""

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        fake = self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            model = {"id": FAKE_MODEL, "object": "model", "created": 0, "owned_by": "fake"}
            self._answer(Reply({"object": "list", "data": [model]}), fake)
        else:
            self._answer(Reply(error_body("Not Found", 404), status=404), fake)

    def do_OPTIONS(self) -> None:  # a browser's preflight, before a call from a page
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST")
        self.send_header("Access-Control-Allow-Headers",
                         "authorization, content-type, http-referer, x-title")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        text = self.rfile.read(length).decode("utf-8", errors="replace")
        try:
            body = json.loads(text)
        except ValueError:
            body = text
        fake = self._record(body)
        if self.path.rstrip("/").endswith("/chat/completions"):
            self._answer(fake.next_reply(), fake)
        else:
            self._answer(Reply(error_body("Not Found", 404), status=404), fake)

    def _record(self, body: Any) -> FakeServer:
        fake: FakeServer = self.server.fake  # type: ignore[attr-defined]
        headers = {name.lower(): value for name, value in self.headers.items()}
        fake.requests.append(Received(self.command, self.path, headers, body))
        return fake

    def _answer(self, reply: Reply, fake: FakeServer) -> None:
        if reply.delay and fake.stopping.wait(reply.delay):
            return  # the server is stopping: no need to answer
        if reply.drop:
            return  # hang up without a word
        data = reply.body if isinstance(reply.body, (str, bytes)) else json.dumps(reply.body)
        data = data.encode() if isinstance(data, str) else data
        is_text = isinstance(reply.body, (str, bytes))
        headers = {"Content-Type": "text/plain" if is_text else "application/json",
                   "Access-Control-Allow-Origin": "*"}
        if not reply.endless:  # HTTP/1.0 without a length: the body ends when we hang up
            headers["Content-Length"] = str(len(data))
        headers |= reply.headers
        try:
            if reply.trickle_headers or reply.interim:
                self._slow_head(reply, headers, fake)
                return
            self.send_response(reply.status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self._body(data if reply.truncate is None else data[: reply.truncate], reply, fake)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (its timeout): nothing to do

    def _slow_head(self, reply: Reply, headers: dict[str, str], fake: FakeServer) -> None:
        """`interim` 100 Continue answers, then the real head, `trickle_headers` s per byte."""
        head = b"HTTP/1.1 100 Continue\r\n\r\n" * reply.interim
        head += f"HTTP/1.0 {reply.status} OK\r\n".encode()
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()).encode()
        step = 1 if reply.trickle_headers else len(b"HTTP/1.1 100 Continue\r\n\r\n")
        for k in range(0, len(head), step):
            self.wfile.write(head[k : k + step])
            self.wfile.flush()
            if fake.stopping.wait(reply.trickle_headers or 0.05):
                return

    def _body(self, data: bytes, reply: Reply, fake: FakeServer) -> None:
        if not reply.trickle:
            self.wfile.write(data)
        for k in range(len(data) if reply.trickle else 0):  # one byte at a time
            self.wfile.write(data[k : k + 1])
            self.wfile.flush()
            if fake.stopping.wait(reply.trickle):
                return
        while reply.endless and not fake.stopping.wait(0.005):  # JSON allows any blank
            self.wfile.write(b" " * 1024)
            self.wfile.flush()
