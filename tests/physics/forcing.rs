//! forcing
