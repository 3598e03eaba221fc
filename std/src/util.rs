//! What std's filters share on the plugin layer: the video info of a clip with R81's message,
//! property names, and the filter that changes frame properties only.
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
    let gpu_output = clip.residency() == nrGPU;
    filter::create(out, core, Spec { name: name.into(), info: vi, inputs: vec![clip], gpu_output }, PropsFilter { edit });
    Ok(())
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
