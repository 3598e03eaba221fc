//! Pointwise filters: Invert, InvertMask, Limiter, Levels, Binarize, BinarizeMask, Lut, Lut2, Merge, MaskedMerge, MakeDiff, MergeDiff, MakeFullDiff, MergeFullDiff, PreMultiply, Expr.

pub fn register(_r: &super::Registrar) {}
