//! Row loops compiled for the widest vectors the CPU has: [`wide`] runs a [`Row`] in a function
//! built for AVX2 where the CPU has it (eight lanes instead of SSE2's four). No fused
//! multiply-add is enabled, so results are bit-identical to the baseline build.

/// A row of faces or cells computed in one loop the compiler can vectorise.
pub(crate) trait Row {
    /// Computes the row into `out` and returns what it reduces to (the largest speed, or 0).
    /// Implementations are `#[inline(always)]`, so [`wide`] compiles them for AVX2.
    fn run(&self, out: &mut [f32]) -> f32;
}

/// Runs `row` into `out`, compiled for AVX2 where the CPU has it.
#[inline(always)]
pub(crate) fn wide<R: Row>(row: &R, out: &mut [f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn avx2<R: Row>(row: &R, out: &mut [f32]) -> f32 {
            row.run(out)
        }
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2(row, out) };
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
