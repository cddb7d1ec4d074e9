//! Number fields that take only finite numbers.

use std::cell::RefCell;
use std::rc::Rc;

/// A [`egui::DragValue`] that takes only finite numbers typed into it: `NaN` or `inf` leave
/// the value as it was (egui's own parser accepts them, and its clamp then set the field to the
/// top of its range: a floater's density to 50 000 kg/m³, a blocker).
///
/// Text left as the field showed it gives back the value itself: egui reads the text back as
/// the field loses focus, and a value with more digits than the field shows (a source placed
/// by a click at x 37.4123 m, shown "37.41") moved to the rounded one, a click in and out
/// making an undo step and marking the level modified. (Text typed back to what the field
/// shows, "1.23" over 1.234, keeps the value too: the two differ below what the field shows.)
pub(crate) fn number<N: egui::emath::Numeric>(value: &mut N) -> egui::DragValue<'_> {
    // What the field showed this frame, and the value it showed (egui formats the value
    // before it reads a text left back).
    let showed: Rc<RefCell<Option<(String, f64)>>> = Rc::default();
    let seen = showed.clone();
    // A value outside the field's range (a hand-written or older file's, valid to the
    // runtime) stays as it is until the designer edits it: clamping it as the field is drawn
    // would change the level, mark it modified and make an undo step of its own.
    egui::DragValue::new(value)
        .custom_parser(move |text| match &*showed.borrow() {
            Some((shown, value)) if shown == text => Some(*value),
            _ => finite_number(text),
        })
        .custom_formatter(move |value, decimals| {
            let text = shown(value, decimals);
            *seen.borrow_mut() = Some((text.clone(), value));
            text
        })
        .clamp_existing_to_range(false)
}

/// A field's text: egui's at the decimals the field shows, unless that reads back as a value
/// off by more than a thousandth (0.005 m³/s shown "0.00"), then the value's own shortest
/// digits: egui takes the text back when the field loses focus, so a click in and out rewrote
/// such a value, rounded to nothing, as an undo step. (A position's last millimetres are kept
/// to the field's decimals: the inspector keeps its width.)
fn shown(value: f64, decimals: std::ops::RangeInclusive<usize>) -> String {
    let text = egui::emath::format_with_decimals_in_range(value, decimals);
    match finite_number(&text) {
        Some(read) if (read - value).abs() <= 1e-3 * value.abs() => text,
        // The level's fields are `f32`: a value one holds is written as an `f32`'s digits.
        _ if value as f32 as f64 == value => format!("{}", value as f32),
        _ => format!("{value}"),
    }
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
    use super::{finite_number, shown};

    #[test]
    fn a_fields_text_reads_back_as_its_value() {
        // Shown at two decimals, 0.005 read back as 0 when the field lost focus.
        let values = [
            0.005f32,
            0.0005,
            1.0e-4,
            0.333_333_34,
            5.0,
            2.5,
            9.999_999e6,
            45.123_456,
        ];
        for v in values {
            let text = shown(v as f64, 0..=2);
            let back = finite_number(&text).expect("a number") as f32;
            assert!((back - v).abs() <= 1e-3 * v.abs(), "{v} shown {text:?}");
        }
        assert_eq!(shown(5.0, 0..=2), "5");
        assert_eq!(shown(0.005f32 as f64, 0..=2), "0.005");
        assert_eq!(shown(45.123_456f32 as f64, 0..=2), "45.12");
    }

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
