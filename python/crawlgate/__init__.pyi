from ._crawlgate import (
    DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES,
    AgentRules as AgentRules,
    Decision as Decision,
    Diagnostic as Diagnostic,
    Judgement as Judgement,
    OriginState as OriginState,
    ProductToken as ProductToken,
    RequestRate as RequestRate,
    Robots as Robots,
    Rule as Rule,
    __version__ as __version__,
    robots_txt_url as robots_txt_url,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "AgentRules",
    "Decision",
    "Diagnostic",
    "Judgement",
    "OriginState",
    "ProductToken",
    "RequestRate",
    "Robots",
    "Rule",
    "__version__",
    "robots_txt_url",
]
