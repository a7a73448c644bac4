//! What a crawler crawls for, read from the catalogue's `function` text, with a table of hand
//! overrides where the text is vague or misleading.

/// What a crawler crawls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Purpose {
    /// Collecting content to train AI models, or to sell as data sets (which are trained on).
    Training,
    /// Indexing for an AI search or answer engine.
    Search,
    /// Fetching on a user's request: assistants, agents, coding tools.
    Agent,
    /// Anything else, or not said.
    Other,
}

impl Purpose {
    /// Every purpose, in the order reports group them.
    pub const ALL: [Purpose; 4] = [
        Purpose::Training,
        Purpose::Search,
        Purpose::Agent,
        Purpose::Other,
    ];

    /// `"training"`, `"search"`, `"agent"` or `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Training => "training",
            Purpose::Search => "search",
            Purpose::Agent => "agent",
            Purpose::Other => "other",
        }
    }

    /// Reads [`Purpose::as_str`]'s names (and `ai-search`, `user`).
    pub fn from_name(name: &str) -> Option<Purpose> {
        match name.to_ascii_lowercase().as_str() {
            "training" | "train" => Some(Purpose::Training),
            "search" | "ai-search" => Some(Purpose::Search),
            "agent" | "agents" | "user" => Some(Purpose::Agent),
            "other" => Some(Purpose::Other),
            _ => None,
        }
    }
}

/// Where a crawler's [`Purpose`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PurposeSource {
    /// The keywords of its `function` text.
    Function,
    /// The hand-reviewed table ([`OVERRIDES`]), with its reason.
    Override(&'static str),
}

/// Crawlers whose `function` text is vague or says something else than what the operator
/// documents: (name, purpose, why). Matched on the catalogue key, case-insensitively.
pub const OVERRIDES: &[(&str, Purpose, &str)] = &[
    ("Amazonbot", Purpose::Training, "Amazon: content may be used to train Amazon's AI models; the text names only Alexa answers"),
    ("Applebot-Extended", Purpose::Training, "Apple: the token controls use for training Apple's foundation models; it fetches nothing itself"),
    ("facebookexternalhit", Purpose::Agent, "fetches a page when a user shares its link (previews); the text only suspects more"),
    ("GoogleOther", Purpose::Other, "Google: generic crawler for internal research and development; not documented as training"),
    ("GoogleOther-Image", Purpose::Other, "as GoogleOther, for images"),
    ("GoogleOther-Video", Purpose::Other, "as GoogleOther, for video"),
    ("Scrapy", Purpose::Other, "a crawling framework's default User-Agent: run by anyone, for anything"),
    ("aiHitBot", Purpose::Other, "the text names no use (company data, per the operator)"),
    ("Panscient", Purpose::Other, "business data collection; the text names no training"),
    ("panscient.com", Purpose::Other, "as Panscient"),
    ("SBIntuitionsBot", Purpose::Training, "SB Intuitions builds large language models; the text says \"AI development\""),
    ("meta-webindexer", Purpose::Search, "Meta: indexes for Meta AI's search answers; listed under AI Assistants"),
    ("DuckAssistBot", Purpose::Search, "DuckDuckGo: crawls for DuckAssist's search answers; listed under AI Assistants"),
    ("AgentTimes", Purpose::Other, "reads RSS feeds for news aggregation; \"scraper\" does not mean training here"),
    ("bedrockbot", Purpose::Agent, "Amazon Bedrock: crawls the sites a customer configures for its own knowledge base"),
    ("Google-CloudVertexBot", Purpose::Agent, "Google: crawls on a site owner's request for Vertex AI Agent Builder"),
    ("Google-Firebase", Purpose::Agent, "fetches for apps built by Firebase AI users, on their request"),
    ("ImagesiftBot", Purpose::Other, "web-intelligence products; the text names no training"),
    ("OpenAI", Purpose::Other, "the text says \"Unclear at this time.\""),
];

/// The purpose of crawler `name` with `function` text: the override table first, then
/// keywords (search, then user-triggered, then training), else [`Purpose::Other`].
pub(crate) fn classify(name: &str, function: &str) -> (Purpose, PurposeSource) {
    if let Some((_, p, why)) = OVERRIDES
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
    {
        return (*p, PurposeSource::Override(why));
    }
    let f = function.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| f.contains(w));
    let purpose = if any(&[
        "search crawler",
        "ai search",
        "search result",
        "search engine",
        "language search",
    ]) {
        Purpose::Search
    } else if any(&[
        "assistant",
        "agent",
        "user-initiated",
        "user prompts",
        "user queries",
        "takes action",
    ]) {
        Purpose::Agent
    } else if any(&[
        "train",
        "llm",
        "scrap",
        "dataset",
        "data set",
        "machine learning",
        "data provider",
        "data is sold",
    ]) {
        Purpose::Training
    } else {
        Purpose::Other
    };
    (purpose, PurposeSource::Function)
}
