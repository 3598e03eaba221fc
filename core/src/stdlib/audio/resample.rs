//! std.AudioResample.
use std::sync::Arc;

use crate::core::Core;
use crate::map::Map;

pub fn audio_resample(_input: &Map, _out: &mut Map, _core: &Arc<Core>) -> Result<(), String> {
    Err("not implemented yet".into())
}
