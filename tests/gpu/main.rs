//! The GPU solver against the CPU solver and the physics checks, on lavapipe in CI (any Vulkan
//! adapter works): parity after 1000 steps for both solvers on scenes with every forcing and
//! edge kind and on the sample projects, the volume ledger over 10^4 steps, Ritter's dam break,
//! the lake at rest, incremental edits, blocking bodies against the CPU, and 10^5-step long
//! runs of every sample project, clamped steps caught up, friction laws and river outlets, and
//! the fused flow pass against the three it replaces.

mod analytic;
mod balance;
mod blocking;
mod capture;
mod clamp;
mod dry_strips;
mod edits;
mod erosion;
mod fusion;
mod gauges;
mod hydrograph;
mod long_run;
mod maps;
mod pairs;
mod parity;
mod structures;
mod support;
