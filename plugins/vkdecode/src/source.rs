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
    /// Pictures are Vulkan images on FFmpeg's device: [`Source::copy_hw`] takes them out.
    pub hw: bool,
}

/// The GPU to decode on with Vulkan Video: its index in the loader's list and its UUID.
#[derive(Clone, Copy, Debug)]
pub struct HwDevice {
    pub index: i32,
    pub uuid: [u8; 16],
}

/// Where [`Source::copy_hw`] puts a picture: an exported plane of a core GPU frame, luma rows then
/// interleaved chroma rows, `stride` bytes apart; `signal` is signalled on the timeline given to
/// [`Source::set_timeline`] once the copy is done.
pub struct HwTarget {
    pub handle_type: i32,
    pub fd: std::os::fd::OwnedFd,
    pub memory_id: u64,
    pub memory_size: u64,
    pub memory_type: u32,
    pub offset: u64,
    pub size: u64,
    pub stride: u64,
    pub width: i32,
    pub height: i32,
    pub signal: u64,
}

pub struct Options {
    /// Decoder threads, 0 for FFmpeg's choice.
    pub threads: i32,
    /// Decoded frames kept for random access.
    pub cache: i32,
    pub hw: Option<HwDevice>,
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
        let o = VkdOptions {
            threads: opt.threads,
            cache: opt.cache,
            hw: opt.hw.is_some() as i32,
            hw_index: opt.hw.map_or(0, |h| h.index),
            hw_uuid: opt.hw.map_or([0; 16], |h| h.uuid),
        };
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
            hw: i.hw != 0,
        };
        Ok(Source { raw, info })
    }

    pub fn info(&self) -> &Info {
        &self.info
    }

    /// Seeks made so far, the one at open included.
    pub fn seeks(&self) -> i64 {
        // SAFETY: our open source.
        unsafe { vkd_seeks(self.raw.as_ptr()) }
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
        let unusable = d.raw.hw == 0 && (0..d.planes as usize).any(|p| d.raw.data[p].is_null() || d.raw.linesize[p] < 0);
        if d.raw.width != self.info.width || d.raw.height != self.info.height || unusable {
            return Err(DecodeError::Internal(format!("frame {n} came back {}x{} with unusable planes", d.raw.width, d.raw.height)));
        }
        Ok(d)
    }
}

impl Source {
    /// The core timeline [`Source::copy_hw`] signals (an exported handle, taken over).
    pub fn set_timeline(&mut self, handle_type: i32, fd: std::os::fd::OwnedFd) -> Result<(), DecodeError> {
        use std::os::fd::IntoRawFd;
        let mut err = [0 as c_char; 512];
        // SAFETY: our open source; the descriptor's ownership passes to the shim (it closes it on
        // failure too).
        let r = unsafe { vkd_hw_set_timeline(self.raw.as_ptr(), handle_type, fd.into_raw_fd(), err.as_mut_ptr(), err.len() as i32) };
        if r != VKD_OK {
            return Err(DecodeError::from_code(r, text(&err)));
        }
        Ok(())
    }

    /// Submits the copy of a Vulkan picture into `t`; `d` may be dropped as soon as this returns.
    pub fn copy_hw(&mut self, d: &Decoded, t: HwTarget) -> Result<(), DecodeError> {
        use std::os::fd::IntoRawFd;
        if d.raw.hw == 0 {
            return Err(DecodeError::Internal("a host picture given to the Vulkan copy".into()));
        }
        let raw = VkdHwTarget {
            handle_type: t.handle_type,
            fd: t.fd.into_raw_fd(),
            memory_id: t.memory_id,
            memory_size: t.memory_size,
            memory_type: t.memory_type,
            offset: t.offset,
            size: t.size,
            stride: t.stride,
            width: t.width,
            height: t.height,
            signal_value: t.signal,
        };
        let mut err = [0 as c_char; 512];
        // SAFETY: our open source and a picture it handed out (still held by `d`); the target's
        // descriptor passes to the shim, which closes it whatever happens.
        let r = unsafe { vkd_hw_copy(self.raw.as_ptr(), d.raw.hold, &raw, err.as_mut_ptr(), err.len() as i32) };
        if r != VKD_OK {
            return Err(DecodeError::from_code(r, text(&err)));
        }
        Ok(())
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

    /// Rows of plane `p`, each `width * bytes per sample` long (host pictures only).
    pub fn rows(&self, p: usize) -> impl Iterator<Item = &[u8]> + '_ {
        assert!(p < self.planes as usize, "plane {p} of {}", self.planes);
        assert!(self.raw.hw == 0, "a Vulkan picture has no host planes");
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

