"""A small web server on 127.0.0.1 for the WebFetch tests (stdlib, a daemon thread).

Routes: ``/page`` (HTML), ``/text`` (plain text), ``/same`` (302 to ``/page``), ``/other``
(302 to the same server as ``localhost``: another host), ``/huge`` (``huge_bytes`` of HTML),
``/image`` (a PNG), ``/octet-page``, ``/octet-text`` and ``/octet-binary`` (HTML, text and
a PNG served as ``application/octet-stream``), ``/slow`` (answers only once ``release`` is
set), ``/missing`` (404).
``hits`` counts the requests per path.
"""

from __future__ import annotations

import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PAGE = (
    "<!doctype html><html><head><title>Docs</title><style>body{color:red}</style>"
    "<script>window.secret = 'do not show'</script></head><body><h1>Widget API</h1>"
    "<p>Call <code>widget.spin(3)</code> to spin <a href='/more'>three times</a>.</p>"
    "<pre><code>import widget\nwidget.spin(3)</code></pre></body></html>"
)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200


class WebServer:
    """The server; use as a context manager. ``url(path)`` is its address for ``path``."""

    def __init__(self, huge_bytes: int = 300_000) -> None:
        self.huge_bytes = huge_bytes
        self.hits: Counter[str] = Counter()
        self.release = threading.Event()
        self.slow_started = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return None

            def do_GET(self) -> None:  # noqa: N802
                server.hits[self.path] += 1
                server.handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def __enter__(self) -> WebServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path
        if path == "/page":
            self._send(h, 200, "text/html; charset=utf-8", PAGE.encode())
        elif path == "/text":
            self._send(h, 200, "text/plain", b"just text\n")
        elif path == "/same":
            self._redirect(h, "/page")
        elif path == "/other":
            self._redirect(h, self.url("/page", host="localhost"))
        elif path == "/huge":
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", str(self.huge_bytes))
            h.end_headers()
            chunk = b"<p>" + b"x" * 1017 + b"</p>\n"
            sent = 0
            try:
                while sent < self.huge_bytes:
                    piece = chunk[: self.huge_bytes - sent]
                    h.wfile.write(piece)
                    sent += len(piece)
            except OSError:
                pass  # the client stopped reading at its cap
        elif path == "/image":
            self._send(h, 200, "image/png", PNG)
        elif path == "/octet-page":
            self._send(h, 200, "application/octet-stream", b"\n  " + PAGE.encode())
        elif path == "/octet-text":
            self._send(h, 200, "application/octet-stream", "plain words, ünïcode\n".encode())
        elif path == "/octet-binary":
            self._send(h, 200, "application/octet-stream", PNG)
        elif path == "/slow":
            self.slow_started.set()
            self.release.wait(30)
            try:
                self._send(h, 200, "text/plain", b"late")
            except OSError:
                pass
        else:
            self._send(h, 404, "text/html", b"<h1>Not Found</h1><p>No such page.</p>")

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, kind: str, body: bytes) -> None:
        h.send_response(status)
        h.send_header("Content-Type", kind)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    @staticmethod
    def _redirect(h: BaseHTTPRequestHandler, location: str) -> None:
        h.send_response(302)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()
