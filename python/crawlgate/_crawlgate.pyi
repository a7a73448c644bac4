"""Type stubs for the native module ``crawlgate._crawlgate`` (Rust, PyO3)."""

from datetime import datetime
from collections.abc import Awaitable, Iterable, Mapping
from os import PathLike
from typing import Any, Literal, final

# "rfc" or "google", case-insensitively.
Mode = str
# A RobotsCache's politeness key: "origin", "host", "domain" or "ip", case-insensitively.
PolitenessKey = str
# A ProductToken as it is; a str/bytes agent as the Robots' mode reads it: mode="google" takes
# any string, compared whole (google/robotstxt's API), mode="rfc" a product token or a
# User-Agent header (ValueError when it has none).
Agent = str | bytes | ProductToken
Url = str | bytes
Time = float | int | datetime
Body = bytes | bytearray | str

DEFAULT_MAX_BYTES: int
# The gate's defaults, from the engine (GateOptions::default()): the spacing floor and cap, in
# seconds.
DEFAULT_DELAY: float
MAX_DELAY: float
__version__: str

@final
class ProductToken:
    """A crawler's product token (``[A-Za-z0-9_-]+``), compared case-insensitively."""

    def __new__(cls, token: str) -> ProductToken:
        """Validates ``token``; raises ``ValueError`` if it is not a product token."""
    @staticmethod
    def from_user_agent(header: str) -> ProductToken:
        """The token read from a User-Agent header; ``ValueError`` if there is none."""
    @staticmethod
    def verbatim(agent: str) -> ProductToken:
        """Any string, unvalidated, compared whole, case-insensitively (google/robotstxt's
        API); in RFC mode also with a group's whole ``user-agent`` value that is not a token
        (``User-agent: UnicödeBöt``)."""
    @property
    def value(self) -> str:
        """The token, lowercased."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Rule:
    """An ``allow`` or ``disallow`` rule as the file wrote it."""

    @property
    def kind(self) -> Literal["allow", "disallow"]: ...
    @property
    def allow(self) -> bool: ...
    @property
    def line(self) -> int:
        """1-based line."""
    @property
    def text(self) -> str:
        """The line as written, without comment and surrounding whitespace."""
    @property
    def pattern(self) -> str:
        """The path pattern as written."""
    @property
    def index_html(self) -> bool:
        """Google mode: the ``/dir/$`` rule derived from ``Allow: /dir/index.html``."""

@final
class Decision:
    """The answer to "may this agent fetch this URL?". Truthy when allowed."""

    @property
    def allowed(self) -> bool: ...
    @property
    def group(self) -> Literal["token", "star", "none"]: ...
    @property
    def reason(
        self,
    ) -> Literal["rule", "no-matching-rule", "no-group", "robots-txt", "allow-all", "disallow-all"]: ...
    @property
    def rule(self) -> Rule | None:
        """The deciding rule, if a rule decided."""
    @property
    def line(self) -> int | None:
        """The deciding line, if a rule decided."""
    def __bool__(self) -> bool: ...

@final
class Diagnostic:
    """One problem found while parsing."""

    @property
    def code(self) -> str:
        """Stable kebab-case code, e.g. ``"misspelled-key"``."""
    @property
    def severity(self) -> Literal["error", "warning"]: ...
    @property
    def line(self) -> int: ...
    @property
    def span(self) -> tuple[int, int]:
        """Byte range ``(start, end)`` in the input."""
    @property
    def message(self) -> str: ...

@final
class RequestRate:
    """A ``request-rate`` record: ``requests`` per ``seconds``."""

    @property
    def requests(self) -> int: ...
    @property
    def seconds(self) -> float: ...
    @property
    def delay(self) -> float:
        """Seconds between requests."""

@final
class AgentRules:
    """The rules that apply to one agent, resolved once."""

    @property
    def group(self) -> Literal["token", "star", "none"]: ...
    @property
    def rules(self) -> list[Rule]:
        """In precedence order (longest first, ``allow`` first on ties)."""
    def check(self, url: Url) -> Decision: ...
    def allowed(self, url: Url) -> bool: ...
    def __len__(self) -> int: ...

@final
class Robots:
    """A parsed, compiled robots.txt."""

    @staticmethod
    def parse(
        body: Body, mode: Mode = "rfc", max_bytes: int | None = None, diagnostics: bool = True
    ) -> Robots:
        """Parses a body; never fails on content (see ``diagnostics``; ``diagnostics=False``
        skips looking for problems: the same rules, parsed faster). Releases the GIL while
        it parses. ``ValueError`` for an unknown mode, ``TypeError`` for a wrong type."""
    @staticmethod
    def allow_all(mode: Mode = "rfc") -> Robots: ...
    @property
    def mode(self) -> Literal["rfc", "google"]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def bytes_used(self) -> int: ...
    @property
    def rule_count(self) -> int: ...
    @property
    def sitemaps(self) -> list[str]: ...
    @property
    def records(self) -> list[tuple[str, str, int]]:
        """``(key, value, line)`` of records outside the protocol (``crawl-delay``…)."""
    @property
    def heap_size(self) -> int: ...
    def check(self, agent: Agent, url: Url) -> Decision:
        """``ValueError`` for non-UTF-8 bytes and, in ``mode="rfc"``, an agent with no
        product token (``mode="google"`` takes any string, as google/robotstxt does)."""
    def allowed(self, agent: Agent, url: Url) -> bool: ...
    def rules_for(self, agent: Agent) -> AgentRules: ...
    def crawl_delay(self, agent: Agent) -> float | None: ...
    def request_rate(self, agent: Agent) -> RequestRate | None: ...
    def spacing(
        self,
        agent: Agent,
        *,
        default_delay: float | None = None,
        max_delay: float | None = None,
        now: Time | None = None,
    ) -> Spacing:
        """The time between two requests to an origin with these rules, as the engine's gate
        spaces them: the largest of crawl-delay, request-rate (inside its window) and
        ``default_delay`` (the floor, ``DEFAULT_DELAY``), capped at ``max_delay``."""
    def to_robots_txt(self) -> str: ...
    def __reduce__(self) -> tuple[Any, tuple[bytes | None, str, int, bool]]:
        """Pickles as its body, mode and options; unpickling parses the body again."""
    def usage(self, agent: Agent, url: Url) -> dict[str, Any]:
        """``Content-Usage`` preferences in force for ``agent`` at ``url``: ``train_ai`` and
        ``search`` (``"allowed"``, ``"disallowed"``, ``"unknown"``), ``lines``, ``allowed``."""
    def content_signals(self, agent: Agent) -> dict[str, Any]:
        """``Content-Signal``s of ``agent``'s groups: ``search``, ``ai_input``, ``ai_train``,
        ``lines``."""
    @property
    def content_usage_rules(self) -> list[tuple[int, str | None, str]]:
        """``(line, path or None, statement)`` of every ``Content-Usage`` rule."""
    @property
    def content_signal_lines(self) -> list[tuple[int, str]]: ...
    @property
    def licenses(self) -> list[tuple[str, int]]:
        """``(url, line)`` of every ``License`` record (RSL 1.0)."""
    @property
    def llm_policies(self) -> list[tuple[str, int]]: ...
    def audit(
        self, paths: Iterable[str] = ..., catalogue: str | PathLike[str] | None = None
    ) -> list[dict[str, Any]]:
        """Every catalogued AI crawler's standing, as ``crawlgate audit`` reports it."""

def _unpickle_robots(body: bytes | None, mode: str, max_bytes: int, diagnostics: bool) -> Robots: ...

@final
class WarcBatches:
    """The response records of a WARC/WARC.gz file as record batches of the input schema."""

    def __new__(
        cls,
        path: str | PathLike[str],
        *,
        rows: int = 4096,
        max_bytes: int | None = None,
        name: str | None = None,
    ) -> WarcBatches: ...
    def __iter__(self) -> WarcBatches: ...
    def __next__(self) -> Any: ...

def batch_evaluate(
    data: Any,
    *,
    agents: list[str] = ...,
    purposes: list[str] = ...,
    paths: list[str] = ...,
    mode: str = "rfc",
    rules: bool = False,
    catalogue: str | PathLike[str] | None = None,
    max_bytes: int | None = None,
    input: str = "rows",
) -> tuple[Any, Any, Any]: ...
def batch_schemas() -> dict[str, Any]: ...

@final
class Judgement:
    """What a crawler may do on an origin at a given time, and why."""

    @property
    def verdict(self) -> Literal["rules", "allow-all", "disallow-all"]: ...
    @property
    def reason(
        self,
    ) -> Literal[
        "fetched",
        "no-robots-txt",
        "not-fetched",
        "unreachable",
        "last-good-version",
        "no-good-version",
        "long-unreachable-site-up",
        "long-unreachable-site-down",
    ]: ...
    @property
    def message(self) -> str: ...
    @property
    def since(self) -> float | None:
        """Start of the current run of failures (epoch seconds), if failing."""
    @property
    def robots(self) -> Robots | None:
        """The rules to obey when ``verdict == "rules"``."""
    def check(self, agent: Agent, url: Url) -> Decision:
        """A str/bytes ``agent`` is read in the rules' mode (without rules: the latest
        ``record``'s)."""
    def allowed(self, agent: Agent, url: Url) -> bool: ...

@final
class OriginState:
    """One origin's robots.txt history and the failure ladder."""

    def __new__(
        cls,
        *,
        strict: bool = False,
        stop_period: float | None = None,
        last_good_period: float | None = None,
        availability_window: float | None = None,
    ) -> OriginState: ...
    def record(
        self,
        at: Time,
        status: int | None = None,
        body: Body | None = None,
        *,
        error: str | None = None,
        error_kind: str = "other",  # dns, connect, tls, timeout, body, other
        url: str = "",
        mode: Mode = "rfc",
        max_bytes: int | None = None,
    ) -> bool:
        """Records a fetch: its ``status`` (200–999, and a 2xx's ``body``; the status read
        as the engine's fetcher reads it: 402 disallows all, 429/5xx fail, other 3xx/4xx mean
        no robots.txt) or a network ``error``. Returns whether it started a new history
        entry."""
    def record_site_availability(self, at: Time, up: bool) -> None: ...
    def verdict_at(self, now: Time) -> Judgement: ...
    def allowed(self, agent: Agent, url: Url, now: Time) -> bool: ...
    @property
    def failing_since(self) -> float | None: ...
    @property
    def last_good_at(self) -> float | None: ...
    @property
    def last_status(self) -> int | None: ...
    @property
    def last_outcome(self) -> Literal["fetched", "not-found", "unreachable"] | None: ...
    @property
    def history_len(self) -> int: ...

def robots_txt_url(url: str) -> str:
    """The robots.txt URL of ``url``'s origin; ``ValueError`` if it has none."""

@final
class PageSource:
    """Where a page directive was found."""

    @property
    def kind(self) -> Literal["header", "meta"]: ...
    @property
    def name(self) -> str:
        """The header's or the ``<meta>``'s name, lowercase."""
    @property
    def agent(self) -> str | None:
        """The product token it is scoped to; ``None`` for every agent."""
    @property
    def raw(self) -> str:
        """The directive as written."""
    @property
    def line(self) -> int:
        """``<meta>``: its 1-based line; header: 0."""
    @property
    def offset(self) -> int: ...
    @property
    def rules(self) -> list[str]:
        """The rules it sets (``["noindex", "nofollow"]`` for ``none``)."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class PageDirectives:
    """What a page says one agent may do with it (most restrictive wins), with the sources."""

    @property
    def index(self) -> bool: ...
    @property
    def follow(self) -> bool: ...
    @property
    def archive(self) -> bool: ...
    @property
    def snippet(self) -> bool: ...
    @property
    def max_snippet(self) -> int | None: ...
    @property
    def image_index(self) -> bool: ...
    @property
    def max_image_preview(self) -> Literal["none", "standard", "large"] | None: ...
    @property
    def max_video_preview(self) -> int | None: ...
    @property
    def unavailable_after(self) -> int | None:
        """Unix seconds."""
    @property
    def translate(self) -> bool: ...
    @property
    def index_if_embedded(self) -> bool: ...
    @property
    def noai(self) -> bool: ...
    @property
    def noimageai(self) -> bool: ...
    @property
    def noml(self) -> bool: ...
    @property
    def tdm_reservation(self) -> bool | None: ...
    @property
    def tdm_policy(self) -> str | None: ...
    @property
    def train_ai(self) -> Literal["allowed", "disallowed", "unknown"]: ...
    @property
    def search(self) -> Literal["allowed", "disallowed", "unknown"]: ...
    @property
    def sources(self) -> list[PageSource]: ...
    @property
    def unknown(self) -> list[PageSource]: ...
    @property
    def problems(self) -> list[tuple[str, str, str]]:
        """``(code, severity, message)`` of each problem."""

HeaderValue = str | bytes | bytearray

def page_directives(
    headers: Mapping[str | bytes, HeaderValue | Iterable[HeaderValue]]
    | Iterable[tuple[str | bytes, HeaderValue]],
    body: bytes | bytearray | str | None,
    agent: Agent,
) -> PageDirectives:
    """A page's directives for ``agent`` from its response headers and the first bytes of its
    HTML (``None`` when it is not HTML)."""

@final
class Spacing:
    """The time between two requests to one origin, and what set it."""

    @property
    def delay(self) -> float:
        """Seconds (whole milliseconds, rounded up)."""
    @property
    def source(self) -> str:
        """``"default"`` (the floor), ``"crawl-delay"`` or ``"request-rate"``."""
    @property
    def capped(self) -> bool:
        """The source asked for more than ``max_delay``; ``delay`` is the cap."""

@final
class Answer:
    """The engine's answer for one URL. Truthy when allowed."""

    @property
    def allowed(self) -> bool: ...
    @property
    def origin(self) -> str:
        """``scheme://host[:port]``."""
    @property
    def reason(self) -> str:
        """As ``Judgement.reason``: ``"fetched"``, ``"no-robots-txt"``, ``"unreachable"``…"""
    @property
    def message(self) -> str: ...
    @property
    def rule(self) -> str | None:
        """The deciding line as written, when a rule decided."""
    @property
    def line(self) -> int | None: ...
    @property
    def kind(self) -> Literal["allow", "disallow"] | None: ...
    @property
    def crawl_delay(self) -> float | None:
        """The agent's crawl-delay as written (seconds, uncapped)."""
    @property
    def request_rate(self) -> RequestRate | None: ...
    @property
    def sitemaps(self) -> list[str]: ...
    @property
    def judged_url(self) -> str | None:
        """The URL as an HTTP client requests it, when that differs from the one given."""
    def __bool__(self) -> bool: ...

@final
class Recorded:
    """What ``Permit.record`` did."""

    @property
    def kind(self) -> Literal["backed-off", "served", "failed", "other"]: ...
    @property
    def backoff(self) -> float | None:
        """Seconds the origin is left alone from now, when backed off."""

@final
class Permit:
    """Leave to fetch one URL now. Holds one of the origin's concurrency slots until recorded
    or released."""

    @property
    def answer(self) -> Answer: ...
    @property
    def origin(self) -> str: ...
    @property
    def spacing(self) -> Spacing: ...
    @property
    def waited(self) -> float:
        """Seconds ``acquire`` waited for the slot."""
    @property
    def key(self) -> str:
        """The politeness key it was scheduled under: the origin (the default key),
        ``"host:…"``, ``"domain:…"`` or ``"ip:…"``."""
    @property
    def active(self) -> bool:
        """Not yet recorded or released."""
    def record(self, status: int, retry_after: float | str | bytes | bytearray | None = None) -> Awaitable[Recorded]:
        """Records the response's status (200–999) and ``Retry-After`` (seconds, or the
        header's value); 429/503 back the origin off. ``RuntimeError`` when already recorded
        or released."""
    def record_unreachable(self) -> Awaitable[Recorded]:
        """Records that no response came (the site is reported down; no backoff)."""
    def release(self) -> None:
        """Frees the concurrency slot without recording (the request was not sent)."""

class Disallowed(Exception):
    """``RobotsCache.acquire`` gives no permit: robots.txt disallows the URL, or the failure
    rules say not to fetch from its origin now."""

    answer: Answer
    url: str

@final
class Edge:
    """A refusal at the edge of the site, seen when robots.txt was fetched."""

    @property
    def kind(self) -> Literal["challenge", "payment-required", "unreachable"]: ...
    @property
    def status(self) -> int | None:
        """The challenge's status, or 402."""
    @property
    def marker(self) -> str | None:
        """A challenge's marker, ``name: value``."""
    @property
    def cause(self) -> str | None:
        """Why robots.txt could not be fetched (``"unreachable"``)."""
    @property
    def price(self) -> list[tuple[str, str]]:
        """A 402's price headers, ``(name, value)``, names lowercase."""

@final
class TdmPolicy:
    """TDMRep for a URL: the page's own fields over the origin's ``tdmrep.json``."""

    @property
    def reservation(self) -> Literal["reserved", "not-reserved", "unset", "unknown"]: ...
    @property
    def policy(self) -> str | None:
        """The TDM policy's URL in force."""
    @property
    def source(self) -> Literal["header", "meta", "file"]: ...
    @property
    def file(self) -> str | None:
        """The URL of ``tdmrep.json``, when it could be asked."""
    @property
    def file_reservation(self) -> Literal["reserved", "not-reserved", "unset", "unknown"] | None: ...
    @property
    def file_reason(self) -> str | None:
        """As ``Answer.reason``, over the file's fetches."""
    @property
    def rule(self) -> int | None:
        """The number of the file's rule that decided (1-based)."""
    @property
    def location(self) -> str | None:
        """That rule's ``location``."""
    @property
    def file_error(self) -> str | None:
        """Why the file could not be asked (a failure on this side)."""

@final
class PolicyWarning:
    """A warning about how the parts of a crawl policy combine."""

    @property
    def code(self) -> Literal["noindex-unseen"]: ...
    @property
    def message(self) -> str: ...

@final
class CrawlPolicy:
    """The whole crawl policy of one URL for the agent. Truthy when the URL may be fetched."""

    @property
    def url(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def allowed(self) -> bool:
        """May the agent fetch the URL (robots.txt and the edge)?"""
    @property
    def robots(self) -> Answer: ...
    @property
    def verdict(self) -> Literal["rules", "allow-all", "disallow-all"]: ...
    @property
    def edge(self) -> Edge | None: ...
    @property
    def tdm(self) -> TdmPolicy: ...
    @property
    def page(self) -> PageDirectives | None:
        """The page's directives, when its response was given."""
    @property
    def page_status(self) -> int | None: ...
    @property
    def warnings(self) -> list[PolicyWarning]: ...
    def __bool__(self) -> bool: ...

@final
class RobotsCache:
    """The crawl-policy engine with its gate, on asyncio (a tokio runtime owned by the
    module)."""

    def __new__(
        cls,
        state: str | PathLike[str] | None = None,
        *,
        agent: str | bytes | ProductToken,
        user_agent: str | None = None,
        mode: Mode = "rfc",
        default_delay: float | None = None,
        max_delay: float | None = None,
        max_concurrency: int | None = None,
        backoff_base: float | None = None,
        backoff_max: float | None = None,
        max_retry_after: float | None = None,
        timeout: float | None = None,
        public_only: bool = False,
        redis_prefix: str | None = None,
        key: PolitenessKey = "origin",
    ) -> RobotsCache:
        """``state``: ``None`` (memory), a state file path, or ``"redis://HOST[:PORT][/DB]"``
        (a fleet). ``key``: which requests share one schedule, backoff and in-flight limit
        (``max_concurrency``, fleet-wide with Redis). ``OSError`` when the file cannot be
        opened, ``ConnectionError`` when Redis cannot be reached, ``ValueError`` for bad
        options."""
    def check(self, url: Url) -> Awaitable[Answer]:
        """May the agent fetch ``url``? ``ValueError`` when it has no robots.txt origin."""
    def acquire(self, url: Url) -> Awaitable[Permit]:
        """May it, and when: a ``Permit`` once the origin's next slot has come; ``Disallowed``
        when not allowed."""
    def crawl_policy(
        self,
        url: Url,
        status: int | None = None,
        headers: Mapping[str | bytes, HeaderValue | Iterable[HeaderValue]]
        | Iterable[tuple[str | bytes, HeaderValue]]
        | None = None,
        body: bytes | bytearray | str | None = None,
    ) -> Awaitable[CrawlPolicy]:
        """The whole crawl policy of ``url``: robots.txt and the edge, TDMRep, and the page's
        directives when its response (``status``, ``headers``, the first bytes of ``body``) is
        given. ``ValueError`` when ``url`` has no origin, or headers/body come without a
        status."""
    def flush(self) -> Awaitable[None]:
        """Writes what the store has not taken yet."""
    def store_status(self) -> dict[str, Any]:
        """``available``, ``errors``, ``last_error``, ``pending``."""
    @property
    def agent(self) -> str: ...
    @property
    def default_delay(self) -> float: ...
    @property
    def max_delay(self) -> float: ...
    @property
    def max_concurrency(self) -> int:
        """Requests of one politeness key in flight at once (across the fleet with Redis)."""
    @property
    def key(self) -> PolitenessKey: ...
