"""Runs one Scrapy crawl in its own process (a fresh Twisted reactor each time).

Usage: python crawl_spider.py CONFIG.json — CONFIG has ``groups`` (lists of URLs), ``order``,
``settings`` and ``stats_out`` (where the crawl's stats are written as JSON). ``order`` is
``"all"`` (every URL is a start URL), ``"home-first"`` (each group's first URL starts, the rest
are requested from its callback, as links found on a home page) or ``"chain"`` (each URL is
requested from the callback of the one before it) or ``"links"`` (the first URL starts; each
page yields an item and follows its links). With ``barrier`` (``{"dir", "parties"}``), the crawl
starts once that many crawl processes are ready, so that they run at the same time."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess


class ListSpider(scrapy.Spider):
    name = "list"

    def __init__(self, groups: list[list[str]], order: str, **kwargs):
        super().__init__(**kwargs)
        self.groups = groups
        self.order = order

    async def start(self):
        for group in self.groups:
            firsts = group if self.order == "all" else group[:1]  # links: the first only
            for url in firsts:
                yield scrapy.Request(url, cb_kwargs={"group": group}, dont_filter=True)

    def parse(self, response, group):
        if self.order == "links":
            # An item per page, and every link followed (the page-directives crawl).
            yield {"url": response.url}
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, cb_kwargs={"group": group})
            return
        if self.order == "all" or response.request.url != group[0] and self.order == "home-first":
            return
        if self.order == "home-first":
            rest = group[1:]
        else:  # chain
            i = group.index(response.request.url)
            rest = group[i + 1:i + 2]
        for url in rest:
            yield scrapy.Request(url, cb_kwargs={"group": group}, dont_filter=True)


def wait_for_others(directory: Path, parties: int) -> None:
    """Says this process is ready, then waits (30 s at most) until `parties` are."""
    (directory / f"ready-{id(directory)}-{time.monotonic_ns()}").touch()
    deadline = time.monotonic() + 30
    while len(list(directory.glob("ready-*"))) < parties and time.monotonic() < deadline:
        time.sleep(0.005)


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    settings = {
        "ROBOTSTXT_OBEY": True,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "INFO",
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
        "DOWNLOAD_TIMEOUT": 10,
        "RETRY_TIMES": 1,
        **config["settings"],
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(ListSpider)
    stats: dict = {}

    def closed(spider, reason):
        stats.update({k: str(v) if not isinstance(v, (int, float)) else v
                      for k, v in crawler.stats.get_stats().items()})
        stats["finish_reason"] = reason

    crawler.signals.connect(closed, signal=signals.spider_closed)
    process.crawl(crawler, groups=config["groups"], order=config.get("order", "all"))
    barrier = config.get("barrier")
    if barrier:
        wait_for_others(Path(barrier["dir"]), int(barrier["parties"]))
    process.start()
    with open(config["stats_out"], "w", encoding="utf-8") as f:
        json.dump(stats, f)


if __name__ == "__main__":
    main()
