"""A small typed client of ``crawlgate serve`` (standard library only).

>>> from crawlgate import Client
>>> client = Client("http://127.0.0.1:8477", token="...")          # doctest: +SKIP
>>> [r["allowed"] for r in client.check("MyBot", ["https://example.com/a"])]  # doctest: +SKIP
[True]

Every method returns the service's JSON records as dicts (the shapes of ``crawlgate check
--json``, ``report --json`` and ``recrawl --json``); an error answer raises
:class:`ServiceError` with its status, code, message and field.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["Client", "ServiceError"]


class ServiceError(Exception):
    """An error answer of the service: ``{"error": {"code", "message", "field"}}``."""

    def __init__(self, status: int, code: str, message: str, field: Optional[str]) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class Client:
    """A connection to ``crawlgate serve`` (kept alive, one per thread).

    ``base_url`` is ``http://HOST:PORT`` (or ``https://``); ``token`` is sent as
    ``Authorization: Bearer TOKEN`` when given; ``timeout`` is in seconds.
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8477", *, token: Optional[str] = None,
                 timeout: float = 60.0) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) base URL: {base_url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._local = threading.local()

    def _connection(self) -> http.client.HTTPConnection:
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is None:
            if self._https:
                conn = http.client.HTTPSConnection(self._host, self._port, timeout=self._timeout)
            else:
                conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Closes this thread's connection."""
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        headers = {"Accept": "application/json"}
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        for attempt in (0, 1):
            conn = self._connection()
            try:
                conn.request(method, self._prefix + path, body=data, headers=headers)
                response = conn.getresponse()
                raw = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # A kept-alive connection the server closed meanwhile: once more, anew.
                self.close()
                if attempt:
                    raise
        text = raw.decode("utf-8", "replace")
        if response.status >= 400:
            try:
                err = json.loads(text)["error"]
                raise ServiceError(response.status, str(err.get("code")), str(err.get("message")),
                                   err.get("field"))
            except (ValueError, KeyError, TypeError):
                raise ServiceError(response.status, "http", text[:200], None) from None
        if response.getheader("Content-Type", "").startswith("application/json"):
            return json.loads(text)
        return text

    def check(self, agent: str, urls: Sequence[str], *, mode: Optional[str] = None
              ) -> List[Dict[str, Any]]:
        """May ``agent`` fetch each URL? One record per URL, in order: a ``check`` record, or an
        ``error`` record (``url``, ``message``) for a URL that cannot be checked (not an absolute
        http(s) URL, a private target the service refuses)."""
        body: Dict[str, Any] = {"agent": agent, "urls": list(urls)}
        if mode is not None:
            body["mode"] = mode
        results: List[Dict[str, Any]] = self._request("POST", "/v1/check", body)["results"]
        return results

    def allowed(self, agent: str, url: str) -> bool:
        """Whether ``agent`` may fetch ``url`` now; ``ValueError`` for a URL that cannot be
        checked."""
        record = self.check(agent, [url])[0]
        if record.get("type") == "error":
            raise ValueError(record.get("message", "cannot be checked"))
        return bool(record["allowed"])

    def acquire(self, agent: str, url: str, *, wait: bool = False, slot: Optional[str] = None
                ) -> Dict[str, Any]:
        """Checks ``url`` and gives its slot of the origin's schedule. Only ``permit`` true is
        leave to fetch; otherwise wait ``wait_ms`` and ask again with ``slot=answer["slot"]``
        (asking again, on any replica, books nothing new; a backoff recorded meanwhile voids
        the slot). An answer with ``later`` set booked nothing (``slot`` is ``None``): ask
        again after ``wait_ms``. ``wait=True`` waits on the server when the slot comes within
        its ``--max-wait``. :meth:`wait_for_permit` does the asking again."""
        body: Dict[str, Any] = {"agent": agent, "url": url, "wait": wait}
        if slot is not None:
            body["slot"] = slot
        result: Dict[str, Any] = self._request("POST", "/v1/acquire", body)
        return result

    def wait_for_permit(self, agent: str, url: str, *, deadline: Optional[float] = None
                        ) -> Optional[Dict[str, Any]]:
        """Asks for ``url``'s slot until the permit comes (sending the slot id back, sleeping
        ``wait_ms`` here between asks, so that ``deadline`` holds whatever the server's
        ``--max-wait``): the answer with ``permit`` true, or ``None`` when robots.txt disallows
        the URL. ``deadline`` bounds the wait, in seconds: :class:`TimeoutError` when the
        permit would come later. It never returns an answer that is not a permit."""
        end = None if deadline is None else time.monotonic() + deadline
        slot: Optional[str] = None
        while True:
            answer = self.acquire(agent, url, slot=slot)
            if answer["permit"]:
                return answer
            if not answer["allowed"]:
                return None
            slot = answer["slot"]
            nap = answer["wait_ms"] / 1000
            if end is not None and time.monotonic() + nap > end:
                raise TimeoutError(f"no permit for {url} within {deadline} s "
                                   f"(the slot comes at {answer['not_before']})")
            time.sleep(nap)

    def record(self, url: str, status: int, *, retry_after: Union[int, str, None] = None
               ) -> Dict[str, Any]:
        """Records how a fetch went (a 429 or 503 backs the origin off for every replica).
        ``retry_after`` is the response's ``Retry-After`` as sent: seconds (``int`` or digits)
        or an HTTP-date. A 429 or 503 is always recorded: a value that is neither, or that
        asks for no wait (``0``, a past date), gets the default backoff, and the answer's
        ``warning`` says why."""
        body: Dict[str, Any] = {"url": url, "status": status}
        if retry_after is not None:
            body["retry_after"] = retry_after
        result: Dict[str, Any] = self._request("POST", "/v1/record", body)
        return result

    def robots(self, url: str) -> Dict[str, Any]:
        """The ``report`` record of ``url``'s origin, from the crawl state."""
        query = urllib.parse.urlencode({"url": url})
        result: Dict[str, Any] = self._request("GET", f"/v1/robots?{query}")
        return result

    def recrawl(self, url: str) -> Dict[str, Any]:
        """Fetches ``url``'s robots.txt now, whatever the state says: the ``fetch`` record."""
        result: Dict[str, Any] = self._request("POST", "/v1/recrawl", {"url": url})
        return result

    def healthy(self) -> bool:
        """``GET /healthz`` answers."""
        try:
            self._request("GET", "/healthz")
            return True
        except (OSError, ServiceError):
            return False

    def ready(self) -> bool:
        """``GET /readyz``: the service's state store answers."""
        try:
            self._request("GET", "/readyz")
            return True
        except (OSError, ServiceError):
            return False
