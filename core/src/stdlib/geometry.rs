//! Geometry: Crop, CropAbs, CropRel, AddBorders, FlipVertical, FlipHorizontal, Transpose, Turn180, StackHorizontal, StackVertical, ShufflePlanes, SplitPlanes.

pub fn register(_r: &super::Registrar) {}
