use crate::Reg; pub fn register(_r: &Reg) {}
