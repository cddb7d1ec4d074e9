//! stability
