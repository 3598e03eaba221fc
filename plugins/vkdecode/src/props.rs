//! R81's frame properties from what the decoder reports. FFmpeg's colour enums are ITU-T H.273's
//! code points, which are VapourSynth's too; only range and chroma location are renumbered.
use vsvk_plugin_api::frame::PropsMut;

use crate::source::Meta;

/// H.273's "unspecified"; reserved values are left out as well.
const UNSPECIFIED: i32 = 2;

fn reduce(mut num: i64, mut den: i64) -> (i64, i64) {
    let (mut a, mut b) = (num.abs(), den.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    if a > 1 {
        num /= a;
        den /= a;
    }
    (num, den)
}

/// Sets the frame's properties; `time_base` is the stream's (num, den).
pub fn apply(p: &mut PropsMut<'_>, m: &Meta, time_base: (i32, i32)) {
    let (tn, td) = (time_base.0 as i64, time_base.1 as i64);
    if m.duration > 0 && td > 0 {
        let (n, d) = reduce(m.duration * tn, td);
        p.set_int("_DurationNum", n);
        p.set_int("_DurationDen", d);
    }
    if td > 0 {
        p.set_float("_AbsoluteTime", m.pts as f64 * tn as f64 / td as f64);
    }
    p.set_str("_PictType", &m.pict_type.to_string());
    p.set_int("_FieldBased", if !m.interlaced { 0 } else if m.top_field_first { 2 } else { 1 });
    if m.matrix != UNSPECIFIED && m.matrix != 3 && (0..=14).contains(&m.matrix) {
        p.set_int("_Matrix", m.matrix as i64);
    }
    if m.transfer != UNSPECIFIED && (1..=18).contains(&m.transfer) && m.transfer != 3 {
        p.set_int("_Transfer", m.transfer as i64);
    }
    if m.primaries != UNSPECIFIED && (1..=22).contains(&m.primaries) && m.primaries != 3 {
        p.set_int("_Primaries", m.primaries as i64);
    }
    // FFmpeg: 1 MPEG (limited), 2 JPEG (full). API 4.2's `_Range` (0 limited, 1 full), which
    // R81 also shows under the older name `_ColorRange` (0 full, 1 limited).
    match m.range {
        1 => p.set_int("_Range", 0),
        2 => p.set_int("_Range", 1),
        _ => {}
    }
    // FFmpeg counts from 1 (left) in VapourSynth's order
    if (1..=6).contains(&m.chroma_location) {
        p.set_int("_ChromaLocation", (m.chroma_location - 1) as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::reduce;

    #[test]
    fn durations_reduce() {
        assert_eq!(reduce(1001 * 1, 24000), (1001, 24000));
        assert_eq!(reduce(512, 12288), (1, 24));
        assert_eq!(reduce(40, 1000), (1, 25));
    }
}
