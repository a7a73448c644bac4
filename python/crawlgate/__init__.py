"""crawlgate: an RFC 9309 robots.txt parser and matcher (Rust), with google/robotstxt's
behaviour on request (``mode="google"``), diagnostics, and the crawl failure ladder.

>>> from crawlgate import Robots
>>> robots = Robots.parse(b"User-agent: *\\nDisallow: /private\\n")
>>> d = robots.check("MyBot/1.0", "https://example.com/private/x")
>>> d.allowed, d.line, d.rule.text
(False, 2, 'Disallow: /private')

Scrapy integration lives in :mod:`crawlgate.scrapy` (imported only when used); a client of
``crawlgate serve`` is :class:`crawlgate.Client`.
"""

from ._crawlgate import (
    DEFAULT_DELAY,
    DEFAULT_MAX_BYTES,
    MAX_DELAY,
    AgentRules,
    Answer,
    CrawlPolicy,
    Decision,
    Diagnostic,
    Disallowed,
    Edge,
    Judgement,
    OriginState,
    PageDirectives,
    PageSource,
    Permit,
    PolicyWarning,
    ProductToken,
    Recorded,
    RequestRate,
    Robots,
    RobotsCache,
    Rule,
    Spacing,
    TdmPolicy,
    __version__,
    page_directives,
    robots_txt_url,
)
from .client import Client, ServiceError

__all__ = [
    "DEFAULT_DELAY",
    "DEFAULT_MAX_BYTES",
    "MAX_DELAY",
    "AgentRules",
    "Answer",
    "Client",
    "CrawlPolicy",
    "Decision",
    "Diagnostic",
    "Disallowed",
    "Edge",
    "Judgement",
    "OriginState",
    "PageDirectives",
    "PageSource",
    "Permit",
    "PolicyWarning",
    "ProductToken",
    "Recorded",
    "RequestRate",
    "Robots",
    "RobotsCache",
    "Rule",
    "Spacing",
    "TdmPolicy",
    "ServiceError",
    "__version__",
    "page_directives",
    "robots_txt_url",
]
