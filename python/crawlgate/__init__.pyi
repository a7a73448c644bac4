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
from .client import Client as Client, ServiceError as ServiceError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "AgentRules",
    "Client",
    "Decision",
    "Diagnostic",
    "Judgement",
    "OriginState",
    "ProductToken",
    "RequestRate",
    "Robots",
    "Rule",
    "ServiceError",
    "__version__",
    "robots_txt_url",
]
