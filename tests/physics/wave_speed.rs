//! wave_speed
