//! What std.Expr and vk.Expr require of their clips and output format, in R81's order and with its
//! messages. The two filters differ only in which sample formats they run (`check_format`).
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::{Error, Result};

/// Each clip of constant format and size, at most 26 clips, each of a format the filter runs, and
/// all with the first one's planes, size and subsampling.
pub fn check_clips(vis: &[VSVideoInfo], check_format: impl Fn(&VSVideoFormat) -> Result<()>) -> Result<()> {
    if vis.iter().any(|vi| vi.format.colorFamily == cfUndefined || vi.width <= 0 || vi.height <= 0) {
        return Err(Error::invalid("Only clips with constant format and dimensions allowed"));
    }
    if vis.len() > 26 {
        return Err(Error::invalid("More than 26 input clips provided"));
    }
    for vi in vis {
        check_format(&vi.format)?;
    }
    let Some(v0) = vis.first() else { return Ok(()) };
    let differs = |vi: &VSVideoInfo| {
        vi.format.numPlanes != v0.format.numPlanes
            || vi.width != v0.width
            || vi.height != v0.height
            || vi.format.subSamplingW != v0.format.subSamplingW
            || vi.format.subSamplingH != v0.format.subSamplingH
    };
    if vis[1..].iter().any(differs) {
        return Err(Error::invalid("All inputs must have the same number of planes and the same dimensions, subsampling included"));
    }
    Ok(())
}

/// The output format: the first clip's `input`, or `format=`'s (`requested`: None where the
/// argument is absent, Some(None) where its id names no format), which must keep the input's
/// color family and subsampling; then a format the filter runs, with no more expressions than
/// planes.
pub fn output_format(
    input: &VSVideoFormat,
    requested: Option<Option<VSVideoFormat>>,
    expressions: usize,
    check_format: impl Fn(&VSVideoFormat) -> Result<()>,
) -> Result<VSVideoFormat> {
    let f = match requested {
        None => *input,
        Some(None) => return Err(Error::invalid("the format id specified in format is invalid")),
        Some(Some(f)) => {
            if f.colorFamily != input.colorFamily || f.subSamplingW != input.subSamplingW || f.subSamplingH != input.subSamplingH {
                return Err(Error::invalid("the output format must have the same color family and subsampling as the input"));
            }
            f
        }
    };
    check_format(&f)?;
    if expressions > f.numPlanes as usize {
        return Err(Error::invalid("More expressions given than there are planes"));
    }
    Ok(f)
}
