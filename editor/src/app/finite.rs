//! Number fields that take only finite numbers.

/// A [`egui::DragValue`] that takes only finite numbers typed into it: `NaN` or `inf` leave
/// the value as it was (egui's own parser accepts them, and its clamp then set the field to the
/// top of its range: a floater's density to 50 000 kg/m³, a blocker).
pub(crate) fn number<N: egui::emath::Numeric>(value: &mut N) -> egui::DragValue<'_> {
    // A value outside the field's range (a hand-written or older file's, valid to the
    // runtime) stays as it is until the designer edits it: clamping it as the field is drawn
    // would change the level, mark it modified and make an undo step of its own.
    (egui::DragValue::new(value).custom_parser(finite_number)).clamp_existing_to_range(false)
}

/// egui's number parsing (spaces ignored, `−` read as `-`), finite numbers only, and only those
/// an `f32` holds (the level's fields are `f32`: `1e39` became `inf` there, a body's position
/// with it, and the level would not save).
fn finite_number(text: &str) -> Option<f64> {
    let text: String = (text.chars())
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    (text.parse::<f64>().ok()).filter(|v| v.is_finite() && v.abs() <= f64::from(f32::MAX))
}

#[cfg(test)]
mod tests {
    use super::finite_number;

    #[test]
    fn typed_numbers_are_read_as_egui_reads_them_and_only_finite_ones_taken() {
        assert_eq!(finite_number(" 1 000.5 "), Some(1000.5));
        assert_eq!(finite_number("−2"), Some(-2.0));
        assert_eq!(finite_number("1e3"), Some(1000.0));
        for bad in [
            "NaN", "nan", "inf", "-inf", "infinity", "1e400", "1e39", "-4e38", "", "abc",
        ] {
            assert_eq!(finite_number(bad), None, "{bad}");
        }
    }
}
