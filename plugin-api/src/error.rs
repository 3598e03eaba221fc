//! The one error type of the layer. Inside a plugin errors stay typed; at the ABI they become the
//! strings the core shows (`Name: message`).
use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A problem with what the user passed, in the words the user should read.
    #[error("{0}")]
    Invalid(String),
    /// An argument of the wrong kind or missing.
    #[error("argument {key}: {problem}")]
    Argument { key: String, problem: String },
    /// A call into the core that failed, with the core's own message.
    #[error("{call} failed: {message}")]
    Core { call: &'static str, message: String },
    /// A Vulkan call that failed.
    #[error("{call} failed: {result}")]
    Vulkan { call: &'static str, result: vk::Result },
    /// A shader the core could not compile, with the compiler's log.
    #[error("shader compilation failed: {0}")]
    Shader(String),
    /// A message shown as written, without the `Name: ` that [`crate::plugin`] and
    /// [`crate::filter`] put before the others: for a namespace whose messages the reference core
    /// shows that way (resize names itself in each), or a message that names another function
    /// (R81's CropAbs reports as `Crop: `).
    #[error("{0}")]
    Whole(String),
    /// A map read or write that failed (`values`).
    #[error("key {key}: {error}")]
    Map { key: String, error: MapError },
}

/// Why a map access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("not set")]
    Missing,
    #[error("holds another type")]
    WrongType,
    #[error("index out of range")]
    Index,
    #[error("the map holds an error")]
    HasError,
    #[error("invalid key")]
    InvalidKey,
    #[error("not written (invalid key or another type)")]
    NotWritten,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Error {
        Error::Invalid(msg.into())
    }

    /// Shown as is at the ABI (see [`Error::Whole`]).
    pub fn whole(msg: impl Into<String>) -> Error {
        Error::Whole(msg.into())
    }

    /// The text the core shows for this error of function or filter `name`.
    pub(crate) fn shown_for(&self, name: &str) -> String {
        match self {
            Error::Whole(m) => m.clone(),
            e => format!("{name}: {e}"),
        }
    }
}

/// Turns a Vulkan result into ours, naming the call.
pub(crate) fn check(call: &'static str, r: vk::Result) -> Result<()> {
    if r == vk::Result::SUCCESS {
        Ok(())
    } else {
        Err(Error::Vulkan { call, result: r })
    }
}

/// The text a core wrote into an error buffer.
pub(crate) fn buffer_text(buf: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    let s = String::from_utf8_lossy(&bytes).into_owned();
    if s.is_empty() {
        "no reason given".into()
    } else {
        s
    }
}
