//! A full-size mask plane brought down to the chroma planes of a subsampled format, as R81's
//! std.MaskedMerge (with `first_plane` or a gray mask) and std.PreMultiply do it. Learned by running
//! R81 on impulses and noise: its result is, bit for bit, resize.Bilinear's chroma of a 4:4:4 clip
//! whose three planes are the mask, converted to the clip's format with the clip's
//! `_ChromaLocation` (missing or out of range: left; the mask's own is only checked) and, where the mask's `_FieldBased` says
//! interlaced (1 or 2) and the format halves the height at most, field by field. So it is zimg's
//! bilinear graph, the same one our resize namespace builds. Where `chroma_down` covers the format
//! it computes the one chroma plane both planes share without zimg (zimg converts three planes of a
//! whole frame, one a copy and one the other's twin); zimg's graph does the rest.
use std::ffi::c_int;
use std::sync::{Arc, Mutex};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::{Error, Result};

use super::chroma_down::{self, Dst, Samples, Siting, Src};
use super::zimg_sys::*;
use super::{default_params, run_graph, zimg_format, Graph, Planes, Resolved, Scratch};

/// The zimg graphs one filter needs (a frame's chroma location and field order pick one), built
/// once each, and the buffers of resampled masks, kept for the next frame.
#[derive(Default)]
pub struct ChromaMask {
    graphs: Mutex<Vec<((c_int, c_int), Arc<Graph>)>>,
    spare: Mutex<Vec<Scratch>>,
}

/// The chroma locations zimg knows (left, center, top left, top, bottom left, bottom).
const LOCATIONS: std::ops::RangeInclusive<i64> = 0..=5;

/// The mask at the chroma planes' size: one plane of ours (`chroma_down`) for both chroma
/// planes, or the three planes zimg wrote, in a buffer that goes back to its [`ChromaMask`] when
/// this is dropped.
pub struct Resampled<'a> {
    owner: &'a ChromaMask,
    buf: Option<Scratch>,
    views: [PlaneView; 3],
}

/// Where a plane lies: `height` rows of `width` samples, `stride` bytes apart.
#[derive(Clone, Copy)]
pub struct PlaneView {
    pub ptr: *const u8,
    pub stride: isize,
    pub width: usize,
    pub height: usize,
}

impl Resampled<'_> {
    /// The mask for chroma plane `p` (1 or 2), valid while `self` lives.
    pub fn view(&self, p: usize) -> PlaneView {
        self.views[p]
    }
}

impl Drop for Resampled<'_> {
    fn drop(&mut self) {
        if let Some(buf) = self.buf.take() {
            self.owner.spare.lock().expect("never poisoned").push(buf);
        }
    }
}

/// The fast path's name for a format's samples.
fn samples_of(fmt: &VSVideoFormat) -> Samples {
    match (fmt.sampleType, fmt.bytesPerSample) {
        (st, 4) if st == stFloat => Samples::F32,
        (st, _) if st == stFloat => Samples::F16,
        (_, 1) => Samples::U8,
        _ => Samples::U16 { max: ((1u32 << fmt.bitsPerSample) - 1) as u16 },
    }
}

impl ChromaMask {
    /// A zeroed 64-byte aligned buffer of at least `size` bytes, a kept one where one is large
    /// enough.
    fn buffer(&self, size: usize) -> Scratch {
        let mut spare = self.spare.lock().expect("never poisoned");
        match spare.iter().position(|b| b.size() >= size) {
            Some(i) => spare.swap_remove(i),
            None => Scratch::zeroed(size),
        }
    }

    /// `mask` (plane 0 of a mask frame, the clip's size) resampled to the chroma planes of `fmt`,
    /// a subsampled YUV format of the mask's sample type. `mask_location` is the mask's own
    /// `_ChromaLocation`, `chroma_location` and `field_based` those that site the result.
    pub fn resample(&self, mask: PlaneView, mask_location: Option<i64>, fmt: &VSVideoFormat, chroma_location: i64, field_based: i64) -> Result<Resampled<'_>> {
        let (w, h) = (mask.width, mask.height);
        let loc = if LOCATIONS.contains(&chroma_location) { chroma_location as c_int } else { 0 };
        // the mask's own location sites nothing, but R81 refuses one zimg does not know
        if let Some(v) = mask_location {
            if !LOCATIONS.contains(&v) {
                return Err(Error::whole(format!("Resize error {ZIMG_ERROR_UNRECOGNIZED_CHROMA_LOCATION}: unrecognized chroma location")));
            }
        }
        // zimg resamples interlaced chroma only up to 2x vertically; R81 then treats the frame
        // as progressive. Fields whose height the subsampling does not divide leave R81's last
        // chroma rows unwritten (whatever the memory held): those frames are resampled whole.
        let interlaced = matches!(field_based, 1 | 2) && fmt.subSamplingH <= 1 && h % (2 << fmt.subSamplingH) == 0;
        let samples = samples_of(fmt);
        // fields change nothing where the height is not resampled
        let siting = Siting { ssw: fmt.subSamplingW as u32, ssh: fmt.subSamplingH as u32, location: loc as u8, fields: interlaced && fmt.subSamplingH == 1 };
        let bps = fmt.bytesPerSample as usize;
        let (cw, ch) = (w >> siting.ssw, h >> siting.ssh);
        let cstride = (cw * bps).next_multiple_of(64);
        if chroma_down::covers(samples, &siting, w, h) {
            let buf = self.buffer(cstride * ch);
            let src = Src { ptr: mask.ptr, stride: mask.stride, width: w, height: h };
            let dst = Dst { ptr: buf.ptr, stride: cstride as isize };
            // SAFETY: the mask plane holds h rows of w samples; `buf` holds ch rows of `cstride`
            // bytes, 64-byte aligned, and is ours alone.
            unsafe { chroma_down::downsample(src, dst, samples, &siting) };
            let v = PlaneView { ptr: buf.ptr, stride: cstride as isize, width: cw, height: ch };
            return Ok(Resampled { owner: self, buf: Some(buf), views: [v; 3] });
        }
        // zimg writes all three planes of `fmt` at the mask's size: luma first, then the chroma
        let stride = (w * bps).next_multiple_of(64);
        let buf = self.buffer(stride * h + 2 * cstride * ch);
        let luma = buf.ptr;
        // SAFETY: the buffer holds the luma plane and the two chroma planes after it.
        let (u, v) = unsafe { (luma.add(stride * h), luma.add(stride * h + cstride * ch)) };
        let to: Planes<*mut u8> = [(luma, stride as isize), (u, cstride as isize), (v, cstride as isize)];
        // SAFETY: the mask plane, and the planes of `fmt` at its size just laid out.
        unsafe { self.zimg_into((mask.ptr, mask.stride), w as u32, h as u32, fmt, loc, interlaced, to)? };
        let view = |ptr: *mut u8| PlaneView { ptr, stride: cstride as isize, width: cw, height: ch };
        let views = [PlaneView { ptr: luma, stride: stride as isize, width: w, height: h }, view(u), view(v)];
        Ok(Resampled { owner: self, buf: Some(buf), views })
    }

    /// zimg's conversion of the mask plane at `src` into the three planes `to` of `fmt`.
    ///
    /// # Safety
    /// `src` is a plane of h rows of w samples of `fmt`'s type; `to` are writable planes of
    /// `fmt` at that size.
    pub(crate) unsafe fn zimg_into(&self, src: (*const u8, isize), w: u32, h: u32, fmt: &VSVideoFormat, loc: c_int, interlaced: bool, to: Planes<*mut u8>) -> Result<()> {
        let (rows, parities) = if interlaced { (h / 2, vec![ZIMG_FIELD_TOP, ZIMG_FIELD_BOTTOM]) } else { (h, vec![ZIMG_FIELD_PROGRESSIVE]) };
        for (i, &parity) in parities.iter().enumerate() {
            let graph = self.graph(fmt, w, rows, loc, parity)?;
            let (row0, step) = if interlaced { (i as isize, 2) } else { (0, 1) };
            // SAFETY: row `row0` lies inside every plane (the caller's contract).
            let from: Planes<*const u8> = [(unsafe { src.0.offset(row0 * src.1) }, src.1 * step); 3];
            // SAFETY: as above.
            let to_rows: Planes<*mut u8> = to.map(|(ptr, stride)| (unsafe { ptr.offset(row0 * stride) }, stride * step));
            run_graph(&graph, &from, &to_rows)?;
        }
        Ok(())
    }

    fn graph(&self, fmt: &VSVideoFormat, w: u32, h: u32, loc: c_int, parity: c_int) -> Result<Arc<Graph>> {
        if let Some((_, g)) = self.graphs.lock().expect("never poisoned").iter().find(|(k, _)| *k == (loc, parity)) {
            return Ok(g.clone());
        }
        // the 4:4:4 format of the mask's samples (zimg reads no more of a format than this)
        let full = VSVideoFormat { subSamplingW: 0, subSamplingH: 0, ..*fmt };
        // what resize assumes of YUV without properties: unspecified colours, limited range
        let colours = Resolved { matrix: 2, transfer: 2, primaries: 2, range: 0, chromaloc: loc };
        let (src, dst) = (zimg_format(&full, w, h, &colours, parity)?, zimg_format(fmt, w, h, &colours, parity)?);
        let mut gp = default_params();
        gp.resample_filter = ZIMG_RESIZE_BILINEAR;
        gp.resample_filter_uv = ZIMG_RESIZE_BILINEAR;
        gp.dither_type = ZIMG_DITHER_NONE;
        gp.cpu_type = ZIMG_CPU_AUTO_64B;
        // SAFETY: valid formats and parameters of this API version.
        let ptr = unsafe { zimg_filter_graph_build(&src, &dst, &gp) };
        if ptr.is_null() {
            let (code, msg) = last_error();
            return Err(Error::whole(format!("Resize error {code}: {msg}")));
        }
        let mut tmp_size = 0usize;
        // SAFETY: `ptr` is a graph just built.
        unsafe { zimg_filter_graph_get_tmp_size(ptr, &mut tmp_size) };
        let g = Arc::new(Graph { ptr, tmp_size });
        self.graphs.lock().expect("never poisoned").push(((loc, parity), g.clone()));
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The YUV format of these samples and subsampling, as the core's queryVideoFormat gives it.
    fn yuv(st: i32, bits: i32, ssw: i32, ssh: i32) -> VSVideoFormat {
        let bytes = if bits <= 8 { 1 } else if bits <= 16 { 2 } else { 4 };
        VSVideoFormat { colorFamily: cfYUV, sampleType: st, bitsPerSample: bits, bytesPerSample: bytes, subSamplingW: ssw, subSamplingH: ssh, numPlanes: 3 }
    }

    /// A deterministic stream of 64-bit values (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Float samples that stress the arithmetic: noise in 0..1 and the values where rounding,
    /// signs, overflow and NaN show.
    fn float_sample(r: &mut Rng, extremes: bool) -> f32 {
        const SPECIAL: [f32; 14] = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-40, -1e-40, 3e38, -3e38, 1e20, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 0.999_999_94];
        let v = r.next();
        if extremes && v % 4 == 0 {
            SPECIAL[(v >> 8) as usize % SPECIAL.len()]
        } else {
            (v >> 40) as f32 / (1u64 << 24) as f32 * if extremes { 4.0 } else { 1.0 }
        }
    }

    /// 64-byte aligned bytes, as zimg wants its planes.
    #[derive(Clone, Copy)]
    #[repr(align(64))]
    struct Block(#[allow(dead_code)] [u8; 64]);

    fn aligned(n: usize) -> Vec<Block> {
        vec![Block([0; 64]); n.div_ceil(64)]
    }

    fn bytes_mut(b: &mut [Block]) -> &mut [u8] {
        // SAFETY: blocks are plain bytes.
        unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast(), b.len() * 64) }
    }

    /// One plane of `w` by `h` samples, rows `stride` bytes apart.
    fn plane(fmt: &VSVideoFormat, w: usize, h: usize, stride: usize, r: &mut Rng, extremes: bool) -> Vec<Block> {
        let mut blocks = aligned(stride * h);
        let out = bytes_mut(&mut blocks);
        for y in 0..h {
            for x in 0..w {
                let at = y * stride + x * fmt.bytesPerSample as usize;
                let v = r.next();
                match (fmt.sampleType == stFloat, fmt.bytesPerSample) {
                    (true, 4) => out[at..at + 4].copy_from_slice(&float_sample(r, extremes).to_le_bytes()),
                    (true, _) => {
                        let h = vsvk_plugin_api::simd::f32_to_half(float_sample(r, extremes));
                        out[at..at + 2].copy_from_slice(&h.to_le_bytes())
                    }
                    (false, 1) => out[at] = if extremes { [0, 255, 1, 254, 128][v as usize % 5] } else { v as u8 },
                    (false, _) => {
                        let max = (1u64 << fmt.bitsPerSample) - 1;
                        // samples above the depth's maximum too: zimg clamps after each pass
                        let s = if extremes { [0, max, max - 1, 65535, 1][v as usize % 5] } else if v % 8 == 0 { v >> 48 } else { (v >> 20) % (max + 1) };
                        out[at..at + 2].copy_from_slice(&(s as u16).to_le_bytes())
                    }
                }
            }
        }
        blocks
    }

    /// Every format family, subsampling, location, field mode and a few sizes: our plane and
    /// zimg's plane 1, byte for byte (NaN's bits included).
    #[test]
    fn fast_path_is_zimg() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut covered = 0;
        let mut failed = Vec::new();
        for (st, bits) in [(stInteger, 8), (stInteger, 10), (stInteger, 16), (stFloat, 32), (stFloat, 16)] {
            for (ssw, ssh) in [(1, 1), (1, 0), (0, 1)] {
                let fmt = yuv(st, bits, ssw, ssh);
                let bps = fmt.bytesPerSample as usize;
                for (w, h) in [(8, 8), (10, 12), (34, 20), (64, 36), (18, 16), (6, 6), (12, 24), (14, 28)] {
                    for loc in 0..=5u8 {
                        for fields in [false, true] {
                            for extremes in [false, true] {
                                let siting = Siting { ssw: ssw as u32, ssh: ssh as u32, location: loc, fields: fields && ssh == 1 };
                                let interlaced = fields && h % (2 << ssh) == 0;
                                if !chroma_down::covers(samples_of(&fmt), &siting, w, h) || siting.fields != (interlaced && ssh == 1) {
                                    continue;
                                }
                                covered += 1;
                                let stride = (w * bps).next_multiple_of(64);
                                let src = plane(&fmt, w, h, stride, &mut r, extremes);
                                let (cw, ch) = (w >> ssw, h >> ssh);
                                let cstride = (cw * bps).next_multiple_of(64);
                                let (mut zy, mut zu, mut zv) = (aligned(stride * h), aligned(cstride * ch), aligned(cstride * ch));
                                let to = [(zy.as_mut_ptr().cast(), stride as isize), (zu.as_mut_ptr().cast(), cstride as isize), (zv.as_mut_ptr().cast(), cstride as isize)];
                                // a filter's graphs are of one format and size: a new set each time
                                let cm = ChromaMask::default();
                                // SAFETY: the planes of `fmt` at w by h, as allocated just above.
                                unsafe { cm.zimg_into((src.as_ptr().cast(), stride as isize), w as u32, h as u32, &fmt, loc as c_int, interlaced, to) }.expect("zimg runs");
                                let mut ours = vec![0u64; cstride * ch / 8 + 1];
                                let s = Src { ptr: src.as_ptr().cast(), stride: stride as isize, width: w, height: h };
                                let d = Dst { ptr: ours.as_mut_ptr().cast(), stride: cstride as isize };
                                // SAFETY: as above; `ours` is 8-byte aligned.
                                unsafe { chroma_down::downsample(s, d, samples_of(&fmt), &siting) };
                                // SAFETY: `ours` holds at least cstride * ch bytes.
                                let ours = unsafe { std::slice::from_raw_parts(ours.as_ptr().cast::<u8>(), cstride * ch) };
                                let zu = bytes_mut(&mut zu);
                                // NaN is NaN: which of the NaNs an operation met it passes on depends on
                                // the order the compiler gave its operands
                                let same = |a: &[u8], b: &[u8]| {
                                    let nan = |x: &[u8]| match x.len() {
                                        4 => f32::from_le_bytes(x.try_into().unwrap()).is_nan(),
                                        2 if st == stFloat => u16::from_le_bytes(x.try_into().unwrap()) & 0x7fff > 0x7c00,
                                        _ => false,
                                    };
                                    a == b || (nan(a) && nan(b))
                                };
                                if let Some(y) = (0..ch).find(|y| (0..cw).any(|x| {
                                    let at = y * cstride + x * bps..y * cstride + (x + 1) * bps;
                                    !same(&ours[at.clone()], &zu[at])
                                })) {
                                    let at = (0..cw).map(|x| y * cstride + x * bps).find(|&a| !same(&ours[a..a + bps], &zu[a..a + bps])).unwrap();
                                    let show = |b: &[u8]| if bps == 4 { format!("{:?}", f32::from_le_bytes(b[at..at + 4].try_into().unwrap())) } else { format!("{:?}", &b[at..at + bps]) };
                                    failed.push(format!("{st}/{bits} bits {ssw},{ssh} {w}x{h} location {loc} fields {fields} extremes {extremes}: row {y} col {}: ours {} zimg {}", (at - y * cstride) / bps, show(ours), show(zu)));
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(failed.is_empty(), "{} cases differ from zimg:\n{}", failed.len(), failed.join("\n"));
        // everything but float off AVX2 machines: 5 sizes, 6 locations, 2 kinds of samples, field modes where they apply
        assert!(covered >= 3 * 3 * 7 * 6 * 2, "only {covered} cases covered");
    }
}
