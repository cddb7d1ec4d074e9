//! Row loops compiled for the widest vectors the CPU has: [`wide`] runs a [`Row`] in a function
//! built for AVX-512 or AVX2 where the CPU has them (sixteen or eight lanes instead of SSE2's
//! four). No fused multiply-add is enabled, so results are bit-identical to the baseline build
//! at every width; [`cap_vectors`] narrows them (benchmarks, and the test that proves it).

use std::sync::atomic::{AtomicU8, Ordering};

/// The vector instructions the CPU solver's row loops are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Vectors {
    /// The target's baseline (SSE2 on x86-64): four lanes.
    Baseline,
    /// AVX2: eight lanes.
    Avx2,
    /// AVX-512 (its foundation, `avx512f`): sixteen lanes.
    Avx512,
}

impl Vectors {
    /// The name the command line uses: `baseline`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Vectors::Baseline => "baseline",
            Vectors::Avx2 => "avx2",
            Vectors::Avx512 => "avx512",
        }
    }

    /// The widest the CPU running this has.
    pub fn detected() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Vectors::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Vectors::Avx2;
            }
        }
        Vectors::Baseline
    }
}

/// The widest vectors allowed, as `Vectors as u8` (`u8::MAX`: no cap).
static CAP: AtomicU8 = AtomicU8::new(u8::MAX);

/// Caps the vectors the CPU solver uses, for every simulation in the process (e.g. to compare
/// widths in a benchmark); results do not change, only speed. `None` lifts the cap.
pub fn cap_vectors(widest: Option<Vectors>) {
    CAP.store(widest.map_or(u8::MAX, |v| v as u8), Ordering::Relaxed);
}

/// The vectors the CPU solver uses now: the widest the CPU has, within [`cap_vectors`].
pub fn vectors() -> Vectors {
    let detected = Vectors::detected();
    match CAP.load(Ordering::Relaxed) {
        0 => Vectors::Baseline.min(detected),
        1 => Vectors::Avx2.min(detected),
        _ => detected,
    }
}

/// A row of faces or cells computed in one loop the compiler can vectorise.
pub(crate) trait Row {
    /// Computes the row into `out` and returns what it reduces to (the largest speed, or 0).
    /// Implementations are `#[inline(always)]`, so [`wide`] compiles them for each width.
    fn run(&self, out: &mut [f32]) -> f32;
}

/// Runs `row` into `out`, compiled for the widest [`vectors`].
#[inline(always)]
pub(crate) fn wide<R: Row>(row: &R, out: &mut [f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    match vectors() {
        Vectors::Avx512 => {
            #[target_feature(enable = "avx512f")]
            fn avx512<R: Row>(row: &R, out: &mut [f32]) -> f32 {
                row.run(out)
            }
            // SAFETY: the CPU has AVX-512F (`vectors` never exceeds what it detects).
            return unsafe { avx512(row, out) };
        }
        Vectors::Avx2 => {
            #[target_feature(enable = "avx2")]
            fn avx2<R: Row>(row: &R, out: &mut [f32]) -> f32 {
                row.run(out)
            }
            // SAFETY: the CPU has AVX2 (`vectors` never exceeds what it detects).
            return unsafe { avx2(row, out) };
        }
        Vectors::Baseline => {}
    }
    row.run(out)
}

/// `if c { a } else { b }` without a branch, so loops over unpredictable signs vectorise.
#[inline(always)]
pub(crate) fn select(c: bool, a: f32, b: f32) -> f32 {
    f32::from_bits(select_bits(c, a.to_bits(), b.to_bits()))
}

/// [`select`] on raw bits.
#[inline(always)]
pub(crate) fn select_bits(c: bool, a: u32, b: u32) -> u32 {
    let m = (c as u32).wrapping_neg();
    (a & m) | (b & !m)
}
