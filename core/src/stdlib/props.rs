//! Properties and callbacks: SetFrameProp, SetFrameProps, RemoveFrameProps, CopyFrameProps, ClipToProp, PropToClip, PlaneStats, FrameEval, ModifyFrame, PEMVerifier, SetMaxCPU.

pub fn register(_r: &super::Registrar) {}
