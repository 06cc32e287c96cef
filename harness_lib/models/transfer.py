"""A reply's bytes, bounded in time and in size, whatever the server sends.

In time: httpx's timeout applies to each read of the socket, so a server that trickles
its headers one byte at a time, or streams `100 Continue` answers, keeps a worker thread
and its socket busy long after the call gave up. `DeadlineTransport` gives every connect,
read and write what is left of the call's time (`DEADLINE`, set by the worker): the
worker ends with the call.

In size: httpx inflates each chunk with no limit on what it becomes, and applies every
layer of `Content-Encoding: gzip, gzip`: 7 kB of double gzip would take 1 GB of memory.
`read_body` reads the raw bytes and inflates them itself, one encoding only (gzip,
deflate or none), each chunk at most to what is left under the cap.

>>> inflate = Inflate("gzip", room=1000)
>>> import gzip, zlib
>>> inflate.feed(gzip.compress(b"x" * 10)) + inflate.end()
b'xxxxxxxxxx'
>>> raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
>>> Inflate("deflate", room=1000).feed(raw.compress(b"ok") + raw.flush())
b'ok'
>>> Inflate("gzip", room=1000).feed(gzip.compress(b"x" * 5000))
Traceback (most recent call last):
    ...
harness_lib.errors.ApiError: HTTP 200 : reply too large
"""

from __future__ import annotations

import contextvars
import time
import typing
import zlib

import httpcore
import httpx

from ..errors import ApiError, ModelTimeout
from ..text import french_number

# When the call in this thread must be over (time.monotonic()); None: no deadline here.
DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)
BROKEN = ("La réponse de {url} est illisible : elle annonce une compression "
          "(Content-Encoding « {encoding} ») que son contenu ne respecte pas, ou que le "
          "harness ne lit pas (une seule compression : gzip ou deflate). Réessayez, ou "
          "vérifiez base_url.")
TOO_LARGE = ("La réponse dépasse {cap} octets une fois décompressée : ce n’est pas une "
             "réponse de modèle (serveur défaillant ?). Vérifiez base_url.")


class Inflate:
    """One Content-Encoding undone, chunk by chunk, never past `room` bytes in all."""

    def __init__(self, encoding: str, room: int, status: int = 200, url: str = "") -> None:
        layers = [e.strip().lower() for e in encoding.split(",") if e.strip()]
        layers = [e for e in layers if e != "identity"]
        self.room, self.status, self.cap = room, status, room
        self.broken = ApiError(None, f"undecodable Content-Encoding: {encoding[:80]}",
                               explication=BROKEN.format(url=url, encoding=encoding[:80]))
        if len(layers) > 1 or (layers and layers[0] not in ("gzip", "x-gzip", "deflate")):
            raise self.broken  # `gzip, gzip` is how a 7 kB body becomes 1 GB
        self.zlib = None if not layers else zlib.decompressobj(
            16 + zlib.MAX_WBITS if "gzip" in layers[0] else zlib.MAX_WBITS)
        self.raw_deflate_next = layers == ["deflate"]  # until its first bytes decode
        self.seen = False  # an empty body under a Content-Encoding is an empty body

    def feed(self, chunk: bytes) -> bytes:
        """The bytes `chunk` stands for; ApiError past the cap or if they do not decode."""
        self.seen = self.seen or bool(chunk)
        try:
            out = chunk if self.zlib is None else self.zlib.decompress(chunk, self.room + 1)
        except zlib.error as exc:
            if not self.raw_deflate_next:
                raise self.broken from exc
            self.raw_deflate_next, self.zlib = False, zlib.decompressobj(-zlib.MAX_WBITS)
            return self.feed(chunk)  # `deflate` without its zlib header, as some servers send
        self.raw_deflate_next = False
        self.room -= len(out)
        if self.room < 0:
            raise ApiError(self.status, "reply too large",
                           explication=TOO_LARGE.format(cap=french_number(self.cap)))
        return out

    def end(self) -> bytes:
        """What is left once every chunk came; ApiError if the compressed data stopped short."""
        if self.zlib is None or not self.seen:
            return b""
        if not self.zlib.eof:
            raise self.broken
        return self.feed(b"")


def read_body(response: httpx.Response, deadline: float, timeout: float, cap: int,
              url: str = "") -> bytes:
    """The decoded body, cut at the deadline or past `cap` decoded bytes (ApiError)."""
    if response.is_stream_consumed:  # already in memory: an in-process transport's reply
        data = response.content
        Inflate("", cap, response.status_code).feed(data)  # the cap holds here too
        return data
    inflate = Inflate(response.headers.get("Content-Encoding", ""), cap,
                      response.status_code, url)
    body = bytearray()
    for chunk in response.iter_raw():
        body += inflate.feed(chunk)
        if time.monotonic() > deadline:
            raise ModelTimeout(timeout)
    return bytes(body + inflate.end())


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """`timeout`, shortened to what is left of this thread's call; `error` once it is over."""
    deadline = DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the call's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    """A socket whose every operation ends by the call's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: typing.Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname,
                                             _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's own sockets, each wrapped in a `_Stream`."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: typing.Iterable[typing.Any] | None = None
                    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, _left(
            timeout, httpcore.ConnectTimeout), local_address, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport (TLS checked, keep-alive), its sockets bounded by DEADLINE."""

    def __init__(self) -> None:  # httpx.HTTPTransport's defaults, but the network backend
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(), network_backend=_Backend(),
            max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
