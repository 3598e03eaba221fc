//! Frame-level editing: Trim, Splice, Loop, Reverse, SelectEvery, Interleave, DeleteFrames, DuplicateFrames, FreezeFrames, AssumeFPS, SeparateFields, DoubleWeave, AverageFrames, SetFieldBased, SetVideoCache.

pub fn register(_r: &super::Registrar) {}
