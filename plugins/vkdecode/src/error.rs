//! What opening or decoding can fail with; the filter turns these into the core's error strings.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}")]
    Invalid(String),
    /// A frame that depends on data the decoder rejected; the frames before it are intact.
    #[error("{0}")]
    Damaged(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl DecodeError {
    /// The shim's result code with its message.
    pub(crate) fn from_code(code: std::ffi::c_int, message: String) -> DecodeError {
        use crate::ffi::*;
        match code {
            VKD_NOT_FOUND => DecodeError::NotFound(message),
            VKD_UNSUPPORTED => DecodeError::Unsupported(message),
            VKD_INVALID => DecodeError::Invalid(message),
            VKD_DAMAGED => DecodeError::Damaged(message),
            _ => DecodeError::Internal(message),
        }
    }
}

impl From<DecodeError> for vsvk_plugin_api::Error {
    fn from(e: DecodeError) -> Self {
        vsvk_plugin_api::Error::Invalid(e.to_string())
    }
}
