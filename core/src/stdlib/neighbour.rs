//! Neighbourhood filters: Convolution, BoxBlur, Minimum, Maximum, Median, Inflate, Deflate, Sobel, Prewitt.

pub fn register(_r: &super::Registrar) {}
