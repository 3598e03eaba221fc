//! A decoded file as a safe type over the C shim: [`Source::open`] indexes it, [`Source::frame`]
//! returns any frame by number. The shim keeps the decoder, its index and a small cache of
//! decoded frames; everything here only checks what it returns and gives it back.
use std::ffi::{c_char, CString};
use std::path::Path;
use std::ptr::NonNull;

use crate::error::DecodeError;
use crate::ffi::*;

/// What the decoder produces, in VapourSynth's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Gray,
    Yuv,
    Rgb,
}

#[derive(Clone, Debug)]
pub struct Info {
    pub codec: String,
    pub decoder: String,
    pub container: String,
    pub width: i32,
    pub height: i32,
    pub family: Family,
    pub bits: i32,
    pub ssw: i32,
    pub ssh: i32,
    pub planes: i32,
    pub frames: i64,
    /// 0/0 when the rate varies.
    pub fps: (i64, i64),
    pub time_base: (i32, i32),
    pub threads: i32,
}

pub struct Options {
    /// Decoder threads, 0 for FFmpeg's choice.
    pub threads: i32,
    /// Decoded frames kept for random access.
    pub cache: i32,
}

pub struct Source {
    raw: NonNull<VkdSource>,
    info: Info,
}

// SAFETY: the shim's state has no thread affinity; `&mut self` on every decoding call keeps it
// to one thread at a time.
unsafe impl Send for Source {}

fn text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Source {
    pub fn open(path: &Path, opt: &Options) -> Result<Source, DecodeError> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| DecodeError::Invalid("the path contains a NUL".into()))?;
        let o = VkdOptions { threads: opt.threads, cache: opt.cache };
        let mut raw = std::ptr::null_mut();
        let mut err = [0 as c_char; 512];
        // SAFETY: valid path, options, out pointer and error buffer for the call.
        let r = unsafe { vkd_open(c.as_ptr(), &o, &mut raw, err.as_mut_ptr(), err.len() as i32) };
        let Some(raw) = NonNull::new(raw).filter(|_| r == VKD_OK) else {
            return Err(DecodeError::from_code(r, text(&err)));
        };
        // SAFETY: an open source's info lives as long as the source.
        let i = unsafe { &*vkd_info(raw.as_ptr()) };
        let family = match i.family {
            VKD_GRAY => Family::Gray,
            VKD_RGB => Family::Rgb,
            _ => Family::Yuv,
        };
        let info = Info {
            codec: text(&i.codec),
            decoder: text(&i.decoder),
            container: text(&i.container),
            width: i.width,
            height: i.height,
            family,
            bits: i.bits,
            ssw: i.ssw,
            ssh: i.ssh,
            planes: i.planes,
            frames: i.frames,
            fps: (i.fps_num, i.fps_den),
            time_base: (i.tb_num, i.tb_den),
            threads: i.threads,
        };
        Ok(Source { raw, info })
    }

    pub fn info(&self) -> &Info {
        &self.info
    }

    /// Frame `n` in presentation order.
    pub fn frame(&mut self, n: i64) -> Result<Decoded, DecodeError> {
        // SAFETY: all-zero is a valid VkdFrame (null pointers, zero numbers).
        let mut f: VkdFrame = unsafe { std::mem::zeroed() };
        let mut err = [0 as c_char; 512];
        // SAFETY: our open source, a valid out struct and error buffer.
        let r = unsafe { vkd_frame(self.raw.as_ptr(), n, &mut f, err.as_mut_ptr(), err.len() as i32) };
        if r != VKD_OK {
            return Err(DecodeError::from_code(r, text(&err)));
        }
        let d = Decoded { raw: f, planes: self.info.planes, ssw: self.info.ssw, ssh: self.info.ssh, bytes: if self.info.bits > 8 { 2 } else { 1 } };
        if d.raw.width != self.info.width || d.raw.height != self.info.height || (0..d.planes as usize).any(|p| d.raw.data[p].is_null() || d.raw.linesize[p] < 0) {
            return Err(DecodeError::Internal(format!("frame {n} came back {}x{} with unusable planes", d.raw.width, d.raw.height)));
        }
        Ok(d)
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        // SAFETY: our source, closed once; frames handed out hold their own references.
        unsafe { vkd_close(self.raw.as_ptr()) }
    }
}

/// One decoded frame: the decoder's planes, kept alive until dropped.
pub struct Decoded {
    raw: VkdFrame,
    planes: i32,
    ssw: i32,
    ssh: i32,
    bytes: usize,
}

// SAFETY: the planes belong to a reference-counted frame, readable and releasable from any thread.
unsafe impl Send for Decoded {}

/// Colour and timing metadata of a decoded frame, as the shim reports it (FFmpeg's code points).
pub struct Meta {
    pub pts: i64,
    pub duration: i64,
    pub pict_type: char,
    pub key: bool,
    pub matrix: i32,
    pub transfer: i32,
    pub primaries: i32,
    pub range: i32,
    pub chroma_location: i32,
    pub interlaced: bool,
    pub top_field_first: bool,
}

impl Decoded {
    pub fn planes(&self) -> i32 {
        self.planes
    }

    /// Rows of plane `p`, each `width * bytes per sample` long.
    pub fn rows(&self, p: usize) -> impl Iterator<Item = &[u8]> + '_ {
        assert!(p < self.planes as usize, "plane {p} of {}", self.planes);
        let (sw, sh) = if p == 0 { (0, 0) } else { (self.ssw, self.ssh) };
        let w = ((self.raw.width + (1 << sw) - 1) >> sw) as usize * self.bytes;
        let h = ((self.raw.height + (1 << sh) - 1) >> sh) as usize;
        let (base, stride) = (self.raw.data[p], self.raw.linesize[p] as usize);
        // SAFETY: the decoder's plane holds h rows of at least w bytes, `stride` apart, alive
        // while `self` holds the frame (checked non-null with a non-negative stride at creation).
        (0..h).map(move |y| unsafe { std::slice::from_raw_parts(base.add(y * stride), w) })
    }

    pub fn meta(&self) -> Meta {
        let r = &self.raw;
        Meta {
            pts: r.pts,
            duration: r.duration,
            pict_type: (r.pict_type as u8) as char,
            key: r.key != 0,
            matrix: r.matrix,
            transfer: r.transfer,
            primaries: r.primaries,
            range: r.range,
            chroma_location: r.chroma_location,
            interlaced: r.interlaced != 0,
            top_field_first: r.top_field_first != 0,
        }
    }
}

impl Drop for Decoded {
    fn drop(&mut self) {
        // SAFETY: our reference, released once.
        unsafe { vkd_release(self.raw.hold) }
    }
}

/// A source's text for messages: `h264 (mov,mp4,...) 1920x1080`.
pub fn describe(i: &Info) -> String {
    format!("{} in {}, {}x{}, {} frames", i.codec, i.container, i.width, i.height, i.frames)
}

