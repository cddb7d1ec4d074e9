//! lake_at_rest
