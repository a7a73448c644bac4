//! Discovery walk (placeholder; being written).
