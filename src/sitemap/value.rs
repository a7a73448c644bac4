//! Checks of sitemap values (placeholder; being written).
