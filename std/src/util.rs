//! What std's filters share on the plugin layer: the video info of a clip with R81's message,
//! property names, the filter that changes frame properties only, plane access for kernels that
//! walk planes by stride, and half-precision conversion.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut, PropsMut};
use vsvk_plugin_api::map::Out;
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::{Error, Result};

/// The video description of a clip, or the message R81 gives for an audio clip.
pub fn video_info(node: &Node) -> Result<VSVideoInfo> {
    node.video_info().map_err(|_| Error::invalid("only video clips are supported"))
}

/// A letter or underscore followed by letters, digits and underscores: what a map key may be.
pub fn is_valid_key(key: &[u8]) -> bool {
    match key.split_first() {
        Some((first, rest)) => (first.is_ascii_alphabetic() || *first == b'_') && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'),
        None => false,
    }
}

/// Frame n of the clip with its properties changed by `edit`: the planes are shared, never
/// touched, so the filter works wherever the frames live (a GPU clip gives GPU frames).
struct PropsFilter<E> {
    edit: E,
}

impl<E: Fn(&mut PropsMut<'_>) + Send + Sync + 'static> Filter for PropsFilter<E> {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = frames.into_iter().next().ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))?;
        let mut f = FrameMut::copy_of(core, &src);
        (self.edit)(&mut f.props_mut());
        Ok(f.freeze())
    }
}

/// Returns under `clip` a filter named `name` whose frames are `clip`'s with `edit` applied to
/// their properties.
pub fn props_filter(out: &mut Out, core: Core, name: &str, clip: Node, edit: impl Fn(&mut PropsMut<'_>) + Send + Sync + 'static) -> Result<()> {
    let vi = video_info(&clip)?;
    props_filter_info(out, core, name, clip, vi, edit);
    Ok(())
}

/// [`props_filter`] declaring `info` for the output (AssumeFPS changes the frame rate).
pub fn props_filter_info(out: &mut Out, core: Core, name: &str, clip: Node, info: VSVideoInfo, edit: impl Fn(&mut PropsMut<'_>) + Send + Sync + 'static) {
    let gpu_output = clip.residency() == nrGPU;
    filter::create(out, core, Spec { name: name.into(), info, inputs: vec![clip], gpu_output }, PropsFilter { edit });
}

/// Which of the sample kinds a format's samples are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    U8,
    U16,
    U32,
    F16,
    F32,
}

pub fn kind(fmt: &VSVideoFormat) -> Kind {
    match (fmt.sampleType, fmt.bytesPerSample) {
        (stInteger, 1) => Kind::U8,
        (stInteger, 2) => Kind::U16,
        (stInteger, _) => Kind::U32,
        (_, 2) => Kind::F16,
        _ => Kind::F32,
    }
}

/// Constant format and dimensions (neither varies from frame to frame).
pub fn is_constant(vi: &VSVideoInfo) -> bool {
    vi.format.colorFamily != cfUndefined && vi.width > 0 && vi.height > 0
}

/// R81's message when the clip at `first_other` is the first whose residency differs from the
/// first clip's.
pub fn residency_mismatch_message(first_other: usize) -> String {
    format!("clips are mismatched in residency starting at clip #{first_other}; all clips must be CPU or all GPU, insert GPUUpload or GPUDownload to make them match")
}

/// R81's message when some clips are GPU resident and others not.
pub fn residency_mismatch(clips: &[Node]) -> Option<String> {
    let first = clips.first()?.residency() == nrGPU;
    clips.iter().position(|c| (c.residency() == nrGPU) != first).map(residency_mismatch_message)
}

/// A plane to read: first sample, stride in bytes, width and height in samples.
#[derive(Clone, Copy)]
pub struct Src {
    pub ptr: *const u8,
    pub stride: isize,
    pub w: usize,
    pub h: usize,
}

/// A plane to write.
#[derive(Clone, Copy)]
pub struct Dst {
    pub ptr: *mut u8,
    pub stride: isize,
    pub w: usize,
    pub h: usize,
}

impl Src {
    /// Row `y` as samples of T.
    ///
    /// # Safety
    /// `y < h` and T is the plane's sample size.
    pub unsafe fn row<T>(&self, y: usize) -> &[T] {
        // SAFETY: the caller's contract keeps the row inside the plane.
        unsafe { std::slice::from_raw_parts(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.w) }
    }
}

impl Dst {
    /// # Safety
    /// As for `Src::row`; rows of one plane are disjoint.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row<T>(&self, y: usize) -> &mut [T] {
        // SAFETY: as for `Src::row`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.w) }
    }
}

/// Plane `p` of a CPU frame to read.
pub fn src_plane(f: &Frame, p: usize) -> Result<Src> {
    let rows = f.plane::<u8>(p as i32).ok_or_else(|| Error::whole("internal error: a host frame is needed"))?;
    Ok(Src { ptr: rows.as_ptr(), stride: rows.stride(), w: rows.width, h: rows.height })
}

/// Plane `p` of a CPU frame being made, to write. The pointer stays valid while `f` lives and is
/// not shared.
pub fn dst_plane(f: &mut FrameMut, p: usize) -> Result<Dst> {
    let bps = f.format().bytesPerSample;
    let missing = || Error::whole("internal error: a host frame is needed");
    let (ptr, stride, w, h) = match bps {
        1 => f.plane_mut::<u8>(p as i32).map(|mut r| (r.as_mut_ptr().cast::<u8>(), r.stride(), r.width, r.height)),
        2 => f.plane_mut::<u16>(p as i32).map(|mut r| (r.as_mut_ptr().cast::<u8>(), r.stride(), r.width, r.height)),
        _ => f.plane_mut::<u32>(p as i32).map(|mut r| (r.as_mut_ptr().cast::<u8>(), r.stride(), r.width, r.height)),
    }
    .ok_or_else(missing)?;
    Ok(Dst { ptr, stride, w, h })
}

