"""A fake mermaid.ink server for tests: real HTTP on 127.0.0.1, no internet.

mermaid-py asks GET /svg/<base64url of the text> and GET /img/<base64url>?format=png.
This server answers the first with an SVG holding the decoded text in its <desc>
(so a test can read back exactly what was sent) and the second with a tiny PNG;
`status` makes it answer an error instead, `portal` an HTML page with status 200
(what a captive portal or a misconfigured proxy does).

    with FakeInk() as ink:
        export_image("deux_tours", "d.svg", server=ink.url)
        ink.texts  # the diagram texts received, decoded
"""

from __future__ import annotations

import base64
import html
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# A valid 1x1 PNG (signature, IHDR, IDAT, IEND).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def decode(encoded: str) -> str:
    """base64url as mermaid-py writes it (padded), back to the diagram text."""
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")


class FakeInk:
    def __init__(self, status: int = 200, portal: bool = False) -> None:
        self.status = status  # 200: draw; anything else: answer that error
        self.portal = portal
        self.paths: list[str] = []  # every path asked, in order
        self.texts: list[str] = []  # the decoded diagram texts
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeInk:
        # A short poll interval: shutdown() waits for it at the end of every test.
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                         daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = urlsplit(self.path).path
                fake.paths.append(path)
                kind, _, encoded = path.strip("/").partition("/")
                text = decode(encoded)
                fake.texts.append(text)
                if fake.status != 200:
                    self._send(fake.status, b"invalid diagram", "text/plain")
                elif fake.portal:
                    self._send(200, b"<html><body>Connexion requise</body></html>", "text/html")
                elif kind == "svg":
                    svg = ('<svg xmlns="http://www.w3.org/2000/svg">'
                           f"<desc>{html.escape(text)}</desc></svg>")
                    self._send(200, svg.encode("utf-8"), "image/svg+xml")
                else:
                    self._send(200, PNG, "image/png")

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:  # keep pytest's output clean
                pass

        return Handler
