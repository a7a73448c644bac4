"""Local HTTP test sites: one ``http.server`` per site, in a thread, on a loopback address and a
random port. Each logs the path and arrival time (monotonic) of every request it receives. A
route is one response, or a list of responses given in turn (the last one repeated)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Route = tuple[int, bytes, dict[str, str]]


class Site:
    def __init__(self, host: str, routes: dict[str, Route | list[Route]], default: Route | None = None) -> None:
        self.routes = routes
        self.default = default or (200, b"<html><body>a page</body></html>", {"Content-Type": "text/html"})
        self.log: list[tuple[str, float]] = []
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                with site.lock:
                    site.log.append((self.path, time.monotonic()))
                    route = site.routes.get(self.path, site.default)
                    if isinstance(route, list):
                        route = route.pop(0) if len(route) > 1 else route[0]
                status, body, headers = route
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.host, self.port = self.server.server_address[:2]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def paths(self) -> list[str]:
        with self.lock:
            return [p for p, _ in self.log]

    def page_times(self) -> list[float]:
        with self.lock:
            return [t for p, t in self.log if p != "/robots.txt"]

    def page_log(self) -> list[tuple[str, float]]:
        """``(path, arrival)`` of every request but robots.txt's, in arrival order."""
        with self.lock:
            return sorted(((p, t) for p, t in self.log if p != "/robots.txt"), key=lambda e: e[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def text(status: int, body: bytes, content_type: str = "text/plain") -> Route:
    return (status, body, {"Content-Type": content_type})
