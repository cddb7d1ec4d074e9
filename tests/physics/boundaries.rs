//! boundaries
