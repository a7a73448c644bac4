//! Fetching sitemaps (placeholder; being written).
