//! Two spellings of compileGPUShader's SPIR-V brought to what R81's embedded glslang writes for
//! the same GLSL; no optimizer pass, only how the same facts are stated:
//!
//! - A `readonly` (`writeonly`) storage buffer block: our glslang decorates its members NonWritable
//!   (NonReadable); R81's decorates the variable as well. A driver may key read-only cache paths
//!   on the variable's decoration, and a gather-heavy kernel (bm3dvk2.BM3D) runs its kernels slower
//!   on our core than on R81's on the same H100, so the variable gets the decoration too where
//!   every member of its block has it.
//! - The workgroup size: ours states it as LocalSizeId naming constants, R81's as LocalSize with
//!   literals. Where every id names a plain constant, the literal form is written.
//!
//! VSVK_SHADER_FIXUP=0 leaves the compiler's words as they are (for measurements).
use std::collections::{HashMap, HashSet};

const OP_EXECUTION_MODE: u32 = 16;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const OP_EXECUTION_MODE_ID: u32 = 331;
/// Annotation instructions: new decorations go after the last of them.
const ANNOTATIONS: [u32; 7] = [71, 72, 73, 74, 75, 332, 5632];
const MODE_LOCAL_SIZE: u32 = 17;
const MODE_LOCAL_SIZE_ID: u32 = 38;
const STORAGE_BUFFER: u32 = 12;
const UNIFORM: u32 = 2;
const NON_WRITABLE: u32 = 24;
const NON_READABLE: u32 = 25;

pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("VSVK_SHADER_FIXUP").map_or(true, |v| v != "0"))
}

/// The module's instructions as (opcode, operands); None when the words are not a module.
fn instructions(words: &[u32]) -> Option<Vec<(u32, Vec<u32>)>> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if n == 0 || i + n > words.len() {
            return None;
        }
        out.push((words[i] & 0xffff, words[i + 1..i + n].to_vec()));
        i += n;
    }
    Some(out)
}

/// Applies both changes; words that do not parse are returned unchanged.
pub fn fixup(words: Vec<u32>) -> Vec<u32> {
    let Some(mut insts) = instructions(&words) else { return words };
    let mut member_count: HashMap<u32, usize> = HashMap::new();
    let mut pointee: HashMap<u32, (u32, u32)> = HashMap::new();
    // arrays of blocks (a binding with several descriptors): their element type
    let mut element: HashMap<u32, u32> = HashMap::new();
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut member_decos: HashMap<(u32, u32), HashSet<u32>> = HashMap::new();
    let mut var_decos: HashSet<(u32, u32)> = HashSet::new();
    let mut variables: Vec<(u32, u32)> = Vec::new();
    for (op, a) in &insts {
        match (*op, a.as_slice()) {
            (OP_TYPE_STRUCT, [id, members @ ..]) => {
                member_count.insert(*id, members.len());
            }
            (OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, [id, ty, ..]) => {
                element.insert(*id, *ty);
            }
            (OP_TYPE_POINTER, [id, storage, ty]) => {
                pointee.insert(*id, (*storage, *ty));
            }
            // 32-bit constants only: the workgroup size is uint
            (OP_CONSTANT, [_, id, value]) => {
                constants.insert(*id, *value);
            }
            (OP_MEMBER_DECORATE, [s, m, d, ..]) => {
                member_decos.entry((*s, *d)).or_default().insert(*m);
            }
            (OP_DECORATE, [t, d, ..]) => {
                var_decos.insert((*t, *d));
            }
            (OP_VARIABLE, [ptr, id, ..]) => variables.push((*ptr, *id)),
            _ => {}
        }
    }
    let mut added = Vec::new();
    for (ptr, var) in variables {
        let Some(&(storage, mut block)) = pointee.get(&ptr) else { continue };
        while let Some(&e) = element.get(&block) {
            block = e;
        }
        if storage != STORAGE_BUFFER && storage != UNIFORM {
            continue;
        }
        let Some(&n) = member_count.get(&block) else { continue };
        for deco in [NON_WRITABLE, NON_READABLE] {
            let all = n > 0 && member_decos.get(&(block, deco)).is_some_and(|m| m.len() == n);
            if all && !var_decos.contains(&(var, deco)) {
                added.push((OP_DECORATE, vec![var, deco]));
            }
        }
    }
    for (op, a) in insts.iter_mut() {
        if *op == OP_EXECUTION_MODE_ID && a.len() == 5 && a[1] == MODE_LOCAL_SIZE_ID {
            if let (Some(x), Some(y), Some(z)) = (constants.get(&a[2]), constants.get(&a[3]), constants.get(&a[4])) {
                *a = vec![a[0], MODE_LOCAL_SIZE, *x, *y, *z];
                *op = OP_EXECUTION_MODE;
            }
        }
    }
    if !added.is_empty() {
        let at = insts.iter().rposition(|(op, _)| ANNOTATIONS.contains(op)).map_or(insts.len(), |i| i + 1);
        insts.splice(at..at, added);
    }
    let mut out = words[..5].to_vec();
    for (op, a) in insts {
        out.push(((a.len() as u32 + 1) << 16) | op);
        out.extend(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[(u32, &[u32])]) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0600, 0, 100, 0];
        for (op, a) in body {
            w.push(((a.len() as u32 + 1) << 16) | op);
            w.extend_from_slice(a);
        }
        w
    }

    #[test]
    fn variables_of_readonly_blocks_and_literal_sizes() {
        let before = module(&[
            (OP_EXECUTION_MODE_ID, &[4, MODE_LOCAL_SIZE_ID, 7, 8, 8]),
            (OP_DECORATE, &[10, 2]),
            (OP_MEMBER_DECORATE, &[10, 0, NON_WRITABLE]),
            (OP_MEMBER_DECORATE, &[11, 0, NON_READABLE]),
            (OP_MEMBER_DECORATE, &[12, 0, NON_WRITABLE]), // one member of two: not the whole block
            (OP_CONSTANT, &[6, 7, 64]),
            (OP_CONSTANT, &[6, 8, 1]),
            (OP_TYPE_STRUCT, &[10, 6]),
            (OP_TYPE_STRUCT, &[11, 6]),
            (OP_TYPE_STRUCT, &[12, 6, 6]),
            (OP_TYPE_POINTER, &[20, STORAGE_BUFFER, 10]),
            (OP_TYPE_POINTER, &[21, STORAGE_BUFFER, 11]),
            (OP_TYPE_POINTER, &[22, STORAGE_BUFFER, 12]),
            (OP_TYPE_ARRAY, &[13, 10, 7]),
            (OP_TYPE_POINTER, &[23, STORAGE_BUFFER, 13]),
            (OP_VARIABLE, &[20, 30, STORAGE_BUFFER]),
            (OP_VARIABLE, &[21, 31, STORAGE_BUFFER]),
            (OP_VARIABLE, &[22, 32, STORAGE_BUFFER]),
            (OP_VARIABLE, &[23, 33, STORAGE_BUFFER]),
        ]);
        let after = instructions(&fixup(before)).expect("a module");
        assert_eq!(after[0], (OP_EXECUTION_MODE, vec![4, MODE_LOCAL_SIZE, 64, 1, 1]));
        // after the last annotation, before the types
        assert_eq!(after[5], (OP_DECORATE, vec![30, NON_WRITABLE]));
        assert_eq!(after[6], (OP_DECORATE, vec![31, NON_READABLE]));
        assert_eq!(after[7], (OP_DECORATE, vec![33, NON_WRITABLE]), "an array of read-only blocks");
        assert_eq!(after[8].0, OP_CONSTANT);
        assert!(!after.iter().any(|(op, a)| *op == OP_DECORATE && a[0] == 32), "a block with a writable member");
    }

    #[test]
    fn what_does_not_parse_is_left_alone() {
        let w = vec![1, 2, 3];
        assert_eq!(fixup(w.clone()), w);
        let mut truncated = module(&[(OP_DECORATE, &[10, 2])]);
        truncated.pop();
        assert_eq!(fixup(truncated.clone()), truncated);
    }
}
