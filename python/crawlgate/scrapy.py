"""Scrapy integration: a ``ROBOTSTXT_PARSER`` backend and a robots.txt downloader middleware.

Two ways to use crawlgate in a Scrapy project (``settings.py``)::

    # 1. Only the parser: Scrapy's own middleware, crawlgate's matching.
    ROBOTSTXT_OBEY = True
    ROBOTSTXT_PARSER = "crawlgate.scrapy.RobotParser"

    # 2. The middleware: also the failure ladder, refreshes and crawl-delay.
    ROBOTSTXT_OBEY = True
    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "crawlgate.scrapy.RobotsTxtMiddleware": 100,
    }

Settings read (all optional):

- ``CRAWLGATE_MODE``: ``"rfc"`` (default) or ``"google"``.
- ``CRAWLGATE_STRICT``: while robots.txt is unreachable with no good version, disallow all
  instead of allowing all (default ``False``).
- ``CRAWLGATE_REFRESH_AFTER``: seconds a fetched robots.txt is used before it is fetched again
  (default 86400, 24 hours; a shorter ``Cache-Control: max-age`` wins, but never below
  ``CRAWLGATE_MIN_REFRESH``, default 60).
- ``CRAWLGATE_RETRY_AFTER``: seconds between fetches while robots.txt is failing (default 3600).
- ``CRAWLGATE_OBEY_CRAWL_DELAY``: set the download slot's delay to the engine's spacing
  (default ``True``): the largest of ``crawl-delay``, ``request-rate`` and
  ``CRAWLGATE_DEFAULT_DELAY`` (the floor, default 1 second, as the Rust engine's
  ``GateOptions::default_delay``; 0 spaces only by what robots.txt asks), capped at
  ``CRAWLGATE_MAX_CRAWL_DELAY`` (default 60 seconds), never below ``DOWNLOAD_DELAY``.
- ``CRAWLGATE_CLOCK``: import path of a function returning seconds since the epoch (default
  ``time.time``), so that tests can move time.

A third way, the engine's gate (``crawlgate.RobotsCache``): robots.txt fetched by the Rust
engine, once per origin (once per fleet with Redis), and every request spaced per origin by
crawl-delay, request-rate, the ``CRAWLGATE_DEFAULT_DELAY`` floor and backoff after 429/503
(``Retry-After`` honoured), in one process or, with ``CRAWLGATE_STATE = "redis://…"``, across
processes. It needs Scrapy's asyncio reactor (the default since Scrapy 2.13)::

    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "crawlgate.scrapy.GateMiddleware": 950,
    }

Its settings (all optional): ``CRAWLGATE_STATE`` (``None``: in memory; a file path; a
``redis://`` URL; else the ``CRAWLGATE_STATE`` environment variable), ``CRAWLGATE_MODE``,
``CRAWLGATE_DEFAULT_DELAY`` (1 s), ``CRAWLGATE_MAX_CRAWL_DELAY`` (60 s),
``CRAWLGATE_POLITENESS_KEY`` (which requests are spaced as one: ``"origin"``, the default,
``"host"``, ``"domain"`` for the registrable domain, or ``"ip"`` for the server's address),
``CRAWLGATE_MAX_CONCURRENCY`` (requests in flight per politeness key, 1: in the process, and
with Redis across every process on it), ``CRAWLGATE_BACKOFF_BASE`` (the first backoff after a
429 or 503 without ``Retry-After``, 60 s, doubling per such answer in a row, ±10 %…),
``CRAWLGATE_BACKOFF_MAX`` (…up to 86400 s, one day), ``CRAWLGATE_MAX_RETRY_AFTER`` (3600 s),
``CRAWLGATE_REDIS_PREFIX``, ``CRAWLGATE_GATE_ENABLED`` (``True``). The product token obeyed is that of ``ROBOTSTXT_USER_AGENT`` or ``USER_AGENT``;
robots.txt is fetched by the engine's own HTTP client with ``USER_AGENT`` and obeyed whatever
``ROBOTSTXT_OBEY`` says.

Page directives (what a page says may be done with it: ``X-Robots-Tag``/``Robots-Tag``, robots
``<meta>``, ``noai``, TDMRep, ``Content-Usage``) are honoured by a spider middleware::

    SPIDER_MIDDLEWARES = {"crawlgate.scrapy.PageDirectivesMiddleware": 100}

- ``CRAWLGATE_PAGE_AGENT``: the product token the directives are read for (default: the token
  of ``USER_AGENT``).
- ``CRAWLGATE_PAGE_NOFOLLOW``: drop the requests a callback yields from a ``nofollow`` page
  (default ``True``).
- ``CRAWLGATE_PAGE_NOINDEX`` and ``CRAWLGATE_PAGE_NOAI``: ``"mark"`` (default: a dict item gets
  ``crawlgate_page``, ``{"index", "follow", "ai_reserved"}``), ``"drop"`` (the items of such a
  page are dropped) or ``"ignore"``. A page is AI-reserved by ``noai``, ``noml``,
  ``tdm-reservation: 1`` or ``Content-Usage: train-ai=n``.

The page's ``PageDirectives`` is in ``response.meta["crawlgate_page"]``.

Scrapy is imported only by the classes that need it: ``import crawlgate`` works without it.
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any, Callable

from ._crawlgate import (
    DEFAULT_DELAY,
    MAX_DELAY,
    Disallowed,
    Judgement,
    OriginState,
    PageDirectives,
    Permit,
    ProductToken,
    Robots,
    RobotsCache,
    page_directives,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

__all__ = [
    "GateMiddleware",
    "OriginCache",
    "PageDirectivesMiddleware",
    "RobotParser",
    "RobotsTxtMiddleware",
    "agent_token",
]

logger = logging.getLogger(__name__)

_tokens: dict[str | bytes, ProductToken] = {}


def agent_token(user_agent: str | bytes) -> ProductToken:
    """The product token of a User-Agent header (``Scrapy/2.11 (+https://scrapy.org)`` →
    ``scrapy``). A header with no crawler token in it (a browser's own) is taken verbatim, so
    that only the ``*`` group applies to it. Results are cached."""
    token = _tokens.get(user_agent)
    if token is not None:
        return token
    text = (
        user_agent.decode("utf-8", errors="replace")
        if isinstance(user_agent, bytes)
        else user_agent
    )
    try:
        token = ProductToken.from_user_agent(text)
    except ValueError:
        token = ProductToken.verbatim(text)
    if len(_tokens) < 1024:
        _tokens[user_agent] = token
    return token


def _mode(crawler: Any) -> str:
    settings = getattr(crawler, "settings", None)
    if settings is None:
        return "rfc"
    return str(settings.get("CRAWLGATE_MODE", "rfc") or "rfc")


class RobotParser:
    """A ``ROBOTSTXT_PARSER`` backend (the ``scrapy.robotstxt.RobotParser`` interface).

    The body is parsed as bytes, never decoded first: a file that is not UTF-8 keeps its
    valid lines. Scrapy's own middleware still decides what to do with a failed fetch (it
    parses a 503 or 404 page as if it were robots.txt); use :class:`RobotsTxtMiddleware` for
    the failure ladder.
    """

    def __init__(self, robotstxt_body: bytes | str, mode: str = "rfc") -> None:
        self.robots: Robots = Robots.parse(robotstxt_body or b"", mode=mode)

    @classmethod
    def from_crawler(cls, crawler: Crawler | None, robotstxt_body: bytes) -> RobotParser:
        return cls(robotstxt_body, _mode(crawler))

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.robots.allowed(agent_token(user_agent), url)

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.robots.crawl_delay(agent_token(user_agent))


_MAX_AGE = re.compile(rb"(?:^|,)\s*max-age\s*=\s*\"?(\d+)", re.IGNORECASE)


def _max_age(cache_control: bytes | None) -> float | None:
    if not cache_control:
        return None
    m = _MAX_AGE.search(cache_control)
    return float(m.group(1)) if m else None


class _Origin:
    __slots__ = ("state", "next_fetch", "ready", "fetching", "skipped")

    def __init__(self, state: OriginState) -> None:
        self.state = state
        self.next_fetch = 0.0
        self.ready: Any = None  # a Deferred while the first fetch runs
        self.fetching = False
        self.skipped = False  # robots.txt request ignored locally: obey nothing (as Scrapy)


class OriginCache:
    """Per-origin ladder state and refresh schedule, independent of Scrapy (for tests and
    other frameworks). ``clock`` returns seconds since the epoch."""

    def __init__(
        self,
        *,
        mode: str = "rfc",
        strict: bool = False,
        refresh_after: float = 86400.0,
        min_refresh: float = 60.0,
        retry_after: float = 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if mode.lower() not in ("rfc", "google"):
            raise ValueError(f"unknown mode {mode!r}: expected 'rfc' or 'google'")
        self.mode = mode
        self.strict = strict
        self.refresh_after = float(refresh_after)
        self.min_refresh = float(min_refresh)
        self.retry_after = float(retry_after)
        self.clock = clock
        self.origins: dict[str, _Origin] = {}

    def origin(self, key: str) -> tuple[_Origin, bool]:
        """The origin of ``key`` and whether it was just created."""
        o = self.origins.get(key)
        if o is not None:
            return o, False
        o = _Origin(OriginState(strict=self.strict))
        self.origins[key] = o
        return o, True

    def due(self, key: str, now: float | None = None) -> bool:
        o = self.origins.get(key)
        if o is None:
            return True
        now = self.clock() if now is None else now
        return not o.fetching and now >= o.next_fetch

    def record_response(
        self,
        key: str,
        url: str,
        status: int,
        body: bytes,
        cache_control: bytes | None = None,
        now: float | None = None,
    ) -> None:
        now = self.clock() if now is None else now
        o, _ = self.origin(key)
        o.state.record(now, status, body, url=url, mode=self.mode)
        if o.state.failing_since is not None:
            o.next_fetch = now + self.retry_after
        else:
            every = self.refresh_after
            age = _max_age(cache_control)
            if age is not None:
                every = min(every, age)
            o.next_fetch = now + max(every, self.min_refresh)

    def record_failure(
        self, key: str, url: str, error: str, kind: str = "other", now: float | None = None
    ) -> None:
        now = self.clock() if now is None else now
        o, _ = self.origin(key)
        o.state.record(now, error=error, error_kind=kind, url=url)
        o.next_fetch = now + self.retry_after

    def judgement(self, key: str, now: float | None = None) -> Judgement:
        now = self.clock() if now is None else now
        o, _ = self.origin(key)
        return o.state.verdict_at(now)


def _seconds(settings: Any, name: str) -> float | None:
    """A setting in seconds, or None when unset (the engine's default applies)."""
    return None if settings.get(name) is None else settings.getfloat(name)


def _error_kind(exc: BaseException) -> str:
    try:
        from twisted.internet import error as terr
    except ImportError:  # pragma: no cover - Scrapy always has Twisted
        return "other"
    if isinstance(exc, terr.DNSLookupError):
        return "dns"
    if isinstance(exc, (terr.TimeoutError, TimeoutError)):
        return "timeout"
    if isinstance(exc, (terr.ConnectError, ConnectionError)):
        return "connect"
    name = type(exc).__name__.lower()
    if "ssl" in name or "tls" in name:
        return "tls"
    if "response" in name or "partial" in name or "lost" in name:
        return "body"
    return "other"


class RobotsTxtMiddleware:
    """A replacement for Scrapy's ``RobotsTxtMiddleware`` that applies the failure ladder.

    Same structure as Scrapy's: robots.txt is fetched with a high-priority request per netloc
    (``dont_obey_robotstxt``), requests wait for it, and disallowed requests raise
    ``IgnoreRequest``. Different: the response status decides (2xx: the rules; 4xx: allow
    all; 429/5xx/network error: nothing for 12 hours, then the last good version for 30
    days), robots.txt is fetched again after 24 hours (or a shorter ``max-age``) in long crawls,
    and ``crawl-delay``/``request-rate`` set the download slot's delay.
    """

    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler) -> None:
        from scrapy.exceptions import NotConfigured
        from scrapy.utils.misc import load_object

        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self._stats = crawler.stats
        self._default_useragent: str = settings.get("USER_AGENT") or "Scrapy"
        self._robotstxt_useragent: str | None = settings.get("ROBOTSTXT_USER_AGENT")
        clock = settings.get("CRAWLGATE_CLOCK")
        if isinstance(clock, str):
            clock = load_object(clock)
        self.cache = OriginCache(
            mode=str(settings.get("CRAWLGATE_MODE", "rfc") or "rfc"),
            strict=settings.getbool("CRAWLGATE_STRICT", False),
            refresh_after=settings.getfloat("CRAWLGATE_REFRESH_AFTER", 86400.0),
            min_refresh=settings.getfloat("CRAWLGATE_MIN_REFRESH", 60.0),
            retry_after=settings.getfloat("CRAWLGATE_RETRY_AFTER", 3600.0),
            clock=clock or time.time,
        )
        self._obey_delay = settings.getbool("CRAWLGATE_OBEY_CRAWL_DELAY", True)
        self._default_delay = settings.getfloat("CRAWLGATE_DEFAULT_DELAY", DEFAULT_DELAY)
        self._max_delay = settings.getfloat("CRAWLGATE_MAX_CRAWL_DELAY", MAX_DELAY)
        self._base_delay = settings.getfloat("DOWNLOAD_DELAY", 0.0)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsTxtMiddleware:
        return cls(crawler)

    def _useragent(self, request: Request) -> str | bytes:
        ua: str | bytes | None = self._robotstxt_useragent
        if not ua:
            ua = request.headers.get(b"User-Agent", self._default_useragent)
        return ua or self._default_useragent

    async def process_request(self, request: Request, spider: Any = None) -> None:
        from scrapy.exceptions import IgnoreRequest
        from scrapy.utils.defer import maybe_deferred_to_future
        from scrapy.utils.httpobj import urlparse_cached

        if request.meta.get("dont_obey_robotstxt"):
            return None
        if request.url.startswith(("data:", "file:")):
            return None
        parsed = urlparse_cached(request)
        netloc = parsed.netloc
        origin, created = self.cache.origin(netloc)
        if created:
            from twisted.internet.defer import Deferred

            origin.ready = Deferred()
            await self._fetch(origin, request, parsed.scheme, netloc)
        elif origin.ready is not None and not origin.ready.called:
            await maybe_deferred_to_future(origin.ready)
        elif self.cache.due(netloc):
            # Refresh in the background; this request goes on with what is known.
            from scrapy.utils.defer import deferred_from_coro

            deferred_from_coro(self._fetch(origin, request, parsed.scheme, netloc))
        if origin.skipped:
            return None

        judgement = self.cache.judgement(netloc)
        self._stats.inc_value(f"crawlgate/verdict/{judgement.reason}")
        decision = judgement.check(agent_token(self._useragent(request)), request.url)
        if not decision.allowed:
            logger.debug(
                "Forbidden by robots.txt (%(why)s): %(request)s",
                {"why": judgement.message, "request": request},
                extra={"spider": self.crawler.spider},
            )
            self._stats.inc_value("robotstxt/forbidden")
            if judgement.verdict == "disallow-all":
                self._stats.inc_value("crawlgate/forbidden_by_ladder")
            raise IgnoreRequest(f"Forbidden by robots.txt ({judgement.message})")
        return None

    async def _fetch(self, origin: _Origin, request: Request, scheme: str, netloc: str) -> None:
        from scrapy.exceptions import IgnoreRequest
        from scrapy.http import Request as ScrapyRequest

        origin.fetching = True
        url = f"{scheme}://{netloc}/robots.txt"
        kwargs: dict[str, Any] = {}
        try:
            from scrapy.http.request import NO_CALLBACK

            kwargs["callback"] = NO_CALLBACK
        except ImportError:  # pragma: no cover - Scrapy < 2.8
            pass
        robotsreq = ScrapyRequest(
            url,
            priority=self.DOWNLOAD_PRIORITY,
            meta={"dont_obey_robotstxt": True},
            dont_filter=True,
            **kwargs,
        )
        try:
            try:
                response = await self._download(robotsreq)
            except IgnoreRequest:
                # Something local dropped the request (as Scrapy: obey nothing).
                origin.skipped = True
            except Exception as e:  # the network, not the site's answer
                logger.warning(
                    "Error downloading %(url)s: %(error)s", {"url": url, "error": e},
                    extra={"spider": self.crawler.spider},
                )
                self._stats.inc_value(f"robotstxt/exception_count/{type(e)}")
                self.cache.record_failure(netloc, url, f"{type(e).__name__}: {e}", _error_kind(e))
            else:
                self._stats.inc_value("robotstxt/response_count")
                self._stats.inc_value(
                    f"robotstxt/response_status_count/{response.status}"
                )
                origin.skipped = False
                self.cache.record_response(
                    netloc,
                    url,
                    response.status,
                    response.body,
                    response.headers.get(b"Cache-Control"),
                )
                self._apply_delay(origin, request, netloc)
            self._stats.inc_value("robotstxt/request_count")
        except Exception:  # never leave waiters hanging
            logger.exception("crawlgate: recording robots.txt of %s failed", netloc)
        finally:
            origin.fetching = False
            if origin.ready is not None and not origin.ready.called:
                origin.ready.callback(None)

    async def _download(self, request: Request) -> Response:
        engine = self.crawler.engine
        assert engine is not None
        if hasattr(engine, "download_async"):
            return await engine.download_async(request)
        from scrapy.utils.defer import maybe_deferred_to_future  # Scrapy < 2.13

        return await maybe_deferred_to_future(engine.download(request))

    def _apply_delay(self, origin: _Origin, request: Request, netloc: str) -> None:
        if not self._obey_delay:
            return
        judgement = self.cache.judgement(netloc)
        # The engine's spacing rule (as RobotsCache.acquire spaces): the largest of crawl-delay,
        # request-rate and the default_delay floor, capped. Without rules (no robots.txt), the
        # floor alone.
        robots = judgement.robots or Robots.allow_all(self.cache.mode)
        token = agent_token(self._useragent(request))
        spacing = robots.spacing(token, default_delay=self._default_delay, max_delay=self._max_delay)
        delay = spacing.delay
        if delay <= 0:
            return
        engine = self.crawler.engine
        downloader = getattr(engine, "downloader", None)
        if downloader is None:
            return
        key = downloader.get_slot_key(request)
        wanted = max(delay, self._base_delay)
        slot = downloader.slots.get(key)
        if slot is not None:
            if slot.delay < wanted or getattr(slot, "jitter", 0.0):
                slot.delay = wanted
                # A crawl-delay is a minimum, not an average.
                if hasattr(slot, "jitter"):
                    slot.jitter = 0.0
                elif hasattr(slot, "randomize_delay"):  # Scrapy < 2.14
                    slot.randomize_delay = False
        else:
            conf = downloader.per_slot_settings.setdefault(key, {})
            if float(conf.get("delay", 0.0)) < wanted:
                conf["delay"] = wanted
                conf["jitter"] = 0.0
        self._stats.set_value(f"crawlgate/crawl_delay/{key}", wanted)
        logger.debug("spacing %.3fs (%s) for slot %s", wanted, spacing.source, key)


_PERMIT = "crawlgate_permit"


class GateMiddleware:
    """A downloader middleware that asks crawlgate's engine before every request: may it be
    fetched (robots.txt and the failure rules, fetched and cached by the engine), and when (the
    origin's next slot). The request waits for its permit in ``process_request``, before it
    reaches Scrapy's download slot; ``process_response`` records the status (a 429 or 503
    backs the origin off, for its ``Retry-After`` when it has one), ``process_exception`` a
    request that got no response.

    Put it after ``RetryMiddleware`` (550) and ``RedirectMiddleware`` (600), e.g. at 950, so
    that it sees every response as the site sent it (a retried 429 waits for the backoff).
    The wait is on asyncio: Scrapy must run its asyncio reactor (the default since 2.13).
    Scrapy's ``DOWNLOAD_DELAY`` and AutoThrottle still apply after the permit: the larger
    delay wins.
    """

    def __init__(self, crawler: Crawler) -> None:
        from scrapy import signals
        from scrapy.exceptions import NotConfigured

        settings = crawler.settings
        if not settings.getbool("CRAWLGATE_GATE_ENABLED", True):
            raise NotConfigured
        try:
            from scrapy.utils.reactor import is_asyncio_reactor_installed

            asyncio_reactor = is_asyncio_reactor_installed()
        except Exception:  # pragma: no cover - no reactor installed yet, or an older Scrapy
            asyncio_reactor = True
        if not asyncio_reactor:
            raise RuntimeError(
                "crawlgate.scrapy.GateMiddleware awaits asyncio futures: set TWISTED_REACTOR = "
                "'twisted.internet.asyncioreactor.AsyncioSelectorReactor'"
            )
        self.crawler = crawler
        self._stats = crawler.stats
        user_agent = str(settings.get("USER_AGENT") or "Scrapy")
        agent = settings.get("ROBOTSTXT_USER_AGENT") or user_agent
        state = settings.get("CRAWLGATE_STATE") or os.environ.get("CRAWLGATE_STATE") or None
        prefix = settings.get("CRAWLGATE_REDIS_PREFIX")
        self.cache = RobotsCache(
            state,
            agent=agent_token(agent),
            user_agent=user_agent,
            mode=str(settings.get("CRAWLGATE_MODE", "rfc") or "rfc"),
            default_delay=settings.getfloat("CRAWLGATE_DEFAULT_DELAY", DEFAULT_DELAY),
            max_delay=settings.getfloat("CRAWLGATE_MAX_CRAWL_DELAY", MAX_DELAY),
            max_concurrency=settings.getint("CRAWLGATE_MAX_CONCURRENCY", 1),
            backoff_base=_seconds(settings, "CRAWLGATE_BACKOFF_BASE"),
            backoff_max=_seconds(settings, "CRAWLGATE_BACKOFF_MAX"),
            max_retry_after=settings.getfloat("CRAWLGATE_MAX_RETRY_AFTER", 3600.0),
            redis_prefix=str(prefix) if prefix else None,
            key=str(settings.get("CRAWLGATE_POLITENESS_KEY") or "origin"),
        )
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> GateMiddleware:
        return cls(crawler)

    async def process_request(self, request: Request, spider: Any = None) -> None:
        from scrapy.exceptions import IgnoreRequest

        if request.meta.get("dont_obey_robotstxt") or not request.url.startswith(("http://", "https://")):
            return None
        try:
            permit = await self.cache.acquire(request.url)
        except Disallowed as e:
            self._stats.inc_value("robotstxt/forbidden")
            self._stats.inc_value("crawlgate/gate/disallowed")
            logger.debug(
                "Forbidden by robots.txt (%(why)s): %(request)s",
                {"why": e, "request": request},
                extra={"spider": self.crawler.spider},
            )
            raise IgnoreRequest(str(e)) from None
        except ValueError:  # no robots.txt origin: nothing to obey
            return None
        request.meta[_PERMIT] = permit
        self._stats.inc_value("crawlgate/gate/permits")
        if permit.waited > 0:
            self._stats.inc_value("crawlgate/gate/waited_ms", round(permit.waited * 1000))
        return None

    async def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        permit = request.meta.pop(_PERMIT, None)
        if isinstance(permit, Permit) and permit.active:
            recorded = await permit.record(response.status, retry_after=response.headers.get(b"Retry-After"))
            if recorded.kind == "backed-off":
                self._stats.inc_value("crawlgate/gate/backoffs")
                logger.info(
                    "%(origin)s answered %(status)d: no request to it for %(backoff).1fs",
                    {"origin": permit.origin, "status": response.status, "backoff": recorded.backoff or 0.0},
                    extra={"spider": self.crawler.spider},
                )
        return response

    async def process_exception(self, request: Request, exception: BaseException, spider: Any = None) -> None:
        from scrapy.exceptions import IgnoreRequest

        permit = request.meta.pop(_PERMIT, None)
        if isinstance(permit, Permit) and permit.active:
            if isinstance(exception, IgnoreRequest):
                permit.release()  # dropped here, never sent
            else:
                await permit.record_unreachable()
        return None

    async def _spider_closed(self, spider: Any = None, reason: str = "") -> None:
        try:
            await self.cache.flush()
        except OSError as e:
            logger.warning("crawlgate: the crawl state was not all written: %s", e)


def ai_reserved(d: PageDirectives) -> bool:
    """Whether a page reserves AI use: ``noai``, ``noml``, TDMRep ``tdm-reservation: 1`` or
    ``Content-Usage: train-ai=n``."""
    return d.noai or d.noml or d.tdm_reservation is True or d.train_ai == "disallowed"


class PageDirectivesMiddleware:
    """Spider middleware: reads each response's page directives for the crawler's token and
    honours them (see the module's settings)."""

    MODES = ("mark", "drop", "ignore")

    def __init__(self, agent: ProductToken, nofollow: bool, noindex: str, noai: str, stats: Any = None) -> None:
        for name, mode in (("CRAWLGATE_PAGE_NOINDEX", noindex), ("CRAWLGATE_PAGE_NOAI", noai)):
            if mode not in self.MODES:
                raise ValueError(f"{name} must be one of {', '.join(self.MODES)}, not {mode!r}")
        self.agent = agent
        self.nofollow = nofollow
        self.noindex = noindex
        self.noai = noai
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageDirectivesMiddleware:
        s = crawler.settings
        agent = s.get("CRAWLGATE_PAGE_AGENT") or s.get("USER_AGENT") or "scrapy"
        return cls(
            agent_token(agent),
            s.getbool("CRAWLGATE_PAGE_NOFOLLOW", True),
            s.get("CRAWLGATE_PAGE_NOINDEX", "mark"),
            s.get("CRAWLGATE_PAGE_NOAI", "mark"),
            crawler.stats,
        )

    def _inc(self, key: str) -> None:
        if self.stats is not None:
            self.stats.inc_value(f"crawlgate/page/{key}")

    def directives(self, response: Response) -> PageDirectives:
        """The response's directives, read once and kept in its ``meta``."""
        meta = response.meta
        found = meta.get("crawlgate_page")
        if isinstance(found, PageDirectives):
            return found
        headers = [(k, v) for k, values in response.headers.items() for v in values]
        content_type = (response.headers.get(b"Content-Type") or b"").lower()
        body = response.body if b"html" in content_type else None
        d = page_directives(headers, body, self.agent)
        meta["crawlgate_page"] = d
        return d

    def _each(self, response: Response, x: Any, d: PageDirectives) -> Any:
        from scrapy import Request

        if isinstance(x, Request):
            if self.nofollow and not d.follow:
                self._inc("nofollow_dropped")
                return None
            return x
        reserved = ai_reserved(d)
        if (not d.index and self.noindex == "drop") or (reserved and self.noai == "drop"):
            self._inc("items_dropped")
            return None
        marks = (not d.index and self.noindex == "mark") or (reserved and self.noai == "mark")
        if marks and isinstance(x, dict):
            x["crawlgate_page"] = {"index": d.index, "follow": d.follow, "ai_reserved": reserved}
            self._inc("items_marked")
        return x

    def process_spider_output(self, response: Response, result: Any, spider: Any = None) -> Any:
        d = self.directives(response)
        for x in result:
            kept = self._each(response, x, d)
            if kept is not None:
                yield kept

    async def process_spider_output_async(self, response: Response, result: Any, spider: Any = None) -> Any:
        d = self.directives(response)
        async for x in result:
            kept = self._each(response, x, d)
            if kept is not None:
                yield kept
