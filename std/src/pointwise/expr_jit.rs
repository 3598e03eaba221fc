//! std.Expr programs compiled to AVX2 and AVX-512 machine code, as R81 compiles its expressions.
//!
//! The block interpreter in `expr` stores every intermediate block to memory and reads it back
//! for the next operation; compiled, a program keeps its values in vector registers, eight samples
//! at a time (sixteen where the CPU has AVX-512, which also halves the widening loads and
//! narrowing stores, the shuffles that bound 8-bit programs), and the loads, the operations and
//! the narrowing store run as one loop. Each operation is the instruction whose result is the
//! interpreter's to the bit (the same IEEE operations, comparisons with the same NaN behaviour,
//! the same clamping and rounding into integers), so the paths give identical frames; programs
//! with transcendental operations (the C library's functions, called per sample) stay with the
//! interpreter.
//!
//! Layering: iced-x86 encodes the instructions, memmap2 provides the pages, which are written
//! first and made executable (never both) before the kernel is used.
//!
//! Calling convention: the loop is written for System V's argument registers (rdi, rsi, rdx, rcx,
//! r8) and clobbers every vector register, which System V lets a function do. On Windows the
//! function is a Win64 one instead (`win64::enter` and `win64::leave` wrap the loop): arguments
//! arrive in rcx, rdx, r8, r9 and on the stack above the caller's 32-byte shadow space, rdi, rsi
//! and xmm6 to xmm15 belong to the caller and are saved and restored (rdi and rsi in that shadow
//! space, which is the callee's to use), and the stack stays 16-byte aligned.
use iced_x86::code_asm::asm_traits::CodeAsmVmovups;
use iced_x86::code_asm::*;
use vsvk_expr::K;

use super::expr::{Ins, Program};

/// How a clip's samples, or the output's, are stored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Sample {
    U8,
    U16,
    Half,
    F32,
}

impl Sample {
    fn bytes(self) -> usize {
        match self {
            Sample::U8 => 1,
            Sample::U16 | Sample::Half => 2,
            Sample::F32 => 4,
        }
    }
}

/// Why a program is not compiled (it then runs on the interpreter).
#[derive(Debug, thiserror::Error)]
pub(super) enum JitError {
    #[error("the CPU lacks AVX2, FMA or F16C")]
    Cpu,
    #[error("the program has an operation that calls the C library ({0:?})")]
    Libm(K),
    #[error("encoding failed: {0}")]
    Encode(#[from] IcedError),
    #[error("no executable memory: {0}")]
    Memory(#[from] std::io::Error),
}

/// The generated function: `n` samples (a multiple of its vector width, at least one vector)
/// from the clips' rows at `srcs` into the row at `dst`, with the constant vectors at `consts`
/// and room for the values that do not fit in registers at `spill`.
#[cfg(not(windows))]
type Entry = unsafe extern "sysv64" fn(srcs: *const *const u8, dst: *mut u8, n: usize, consts: *const Lanes, spill: *mut Lanes);
#[cfg(windows)]
type Entry = unsafe extern "win64" fn(srcs: *const *const u8, dst: *mut u8, n: usize, consts: *const Lanes, spill: *mut Lanes);

/// One constant or spilled value: 16 lanes (the AVX2 code uses the first 8).
type Lanes = [f32; 16];

/// A generated function and the pages it lives in.
struct Code {
    /// Kept alive for `entry`, which points into it; mapped read and execute only.
    _map: memmap2::Mmap,
    entry: Entry,
    lanes: usize,
}

impl Code {
    fn new(mut a: CodeAssembler, lanes: usize) -> Result<Code, JitError> {
        let bytes = a.assemble(0)?;
        let mut map = memmap2::MmapMut::map_anon(bytes.len())?;
        map[..bytes.len()].copy_from_slice(&bytes);
        let map = map.make_exec()?;
        // SAFETY: the pages hold the function just assembled (position independent: its only
        // branch is relative), which follows Entry's calling convention (System V, or Win64 on
        // Windows, where it saves the callee-saved registers it uses) and touches only registers
        // that convention gives it.
        let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(map.as_ptr()) };
        Ok(Code { _map: map, entry, lanes })
    }
}

/// A compiled plane program: the AVX2 function, and the AVX-512 one where the CPU has it.
pub(super) struct Kernel {
    narrow: Code,
    wide: Option<Code>,
    consts: Vec<Lanes>,
    spills: usize,
    inputs: Vec<Sample>,
    out: Sample,
}

// Slots of the constant table before the program's own constants.
const C_MAX: usize = 0;
const C_ZERO: usize = 1;
const C_ONE: usize = 2;
const C_ABS: usize = 3;
const C_SIGN: usize = 4;
const C_PROGRAM: usize = 5;

/// Vector registers given to the program's values: ymm12 to ymm15 are scratch in the AVX2 code,
/// zmm28 to zmm31 in the AVX-512 code.
const REGS: usize = 12;
const REGS_512: usize = 28;

// vcmpps predicates (ordered and quiet, as Rust's comparisons: false for a NaN; NGT_UQ is
// `!(x > y)`, true for a NaN)
const EQ_OQ: i32 = 0x00;
const LT_OQ: i32 = 0x11;
const LE_OQ: i32 = 0x12;
const NGT_UQ: i32 = 0x1a;
const GE_OQ: i32 = 0x1d;
const GT_OQ: i32 = 0x1e;

/// Where a program value lives during the loop: a vector register of type R, or memory.
#[derive(Clone, Copy)]
enum Loc<R> {
    Reg(R),
    Mem(AsmMemoryOperand),
}

const YMM: [AsmRegisterYmm; REGS] = [ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7, ymm8, ymm9, ymm10, ymm11];
const ZMM: [AsmRegisterZmm; REGS_512] = [
    zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7, zmm8, zmm9, zmm10, zmm11, zmm12, zmm13, zmm14, zmm15, zmm16, zmm17, zmm18, zmm19, zmm20, zmm21,
    zmm22, zmm23, zmm24, zmm25, zmm26, zmm27,
];

/// Emits `$m(dst, src1, loc)` with the last operand a register or memory, as `loc` is.
macro_rules! rm {
    ($a:expr, $m:ident ($($x:expr),*; $loc:expr $(; $imm:expr)?)) => {
        match $loc {
            Loc::Reg(r) => $a.$m($($x,)* r $(, $imm)?),
            Loc::Mem(m) => $a.$m($($x,)* m $(, $imm)?),
        }
    };
}

/// `op` of a generator over one register width: one operation into `dst`, with `$s` the scratch
/// register for an operand held in memory. The instructions are the same for AVX2 and AVX-512
/// except for Not and the ternary, each width's own `not` and `tern` (AVX-512 compares into mask
/// registers).
macro_rules! op_fn {
    ($s:expr) => {
        fn op(&mut self, k: K, dst: u16, x: u16, y: u16, z: u16) -> Result<(), IcedError> {
            let d = self.dst(dst);
            let (lx, ly) = (self.locs[x as usize], self.locs[y as usize]);
            match k {
                K::Add | K::Sub | K::Mul | K::Div => {
                    let rx = self.reg(x, $s)?;
                    let a = &mut self.a;
                    match k {
                        K::Add => rm!(a, vaddps(d, rx; ly))?,
                        K::Sub => rm!(a, vsubps(d, rx; ly))?,
                        K::Mul => rm!(a, vmulps(d, rx; ly))?,
                        _ => rm!(a, vdivps(d, rx; ly))?,
                    }
                }
                // `if x < y { y } else { x }`: vmaxps(y, x) is `y > x ? y : x`, x for a NaN or equal values
                K::Max => {
                    let ry = self.reg(y, $s)?;
                    rm!(self.a, vmaxps(d, ry; lx))?;
                }
                // `if y < x { y } else { x }`: vminps(y, x) is `y < x ? y : x`
                K::Min => {
                    let ry = self.reg(y, $s)?;
                    rm!(self.a, vminps(d, ry; lx))?;
                }
                K::Gt => self.compare(d, x, y, GT_OQ)?,
                K::Lt => self.compare(d, x, y, LT_OQ)?,
                K::Eq => self.compare(d, x, y, EQ_OQ)?,
                K::Ge => self.compare(d, x, y, GE_OQ)?,
                K::Le => self.compare(d, x, y, LE_OQ)?,
                K::And | K::Or | K::Xor => self.logic(k, d, x, y)?,
                K::Not => self.not(d, x)?,
                K::Abs => {
                    let rx = self.reg(x, $s)?;
                    self.a.vandps(d, rx, Self::cst(C_ABS))?;
                }
                K::Neg => {
                    let rx = self.reg(x, $s)?;
                    self.a.vxorps(d, rx, Self::cst(C_SIGN))?;
                }
                K::Sqrt => rm!(self.a, vsqrtps(d; lx))?,
                K::Tern => self.tern(d, x, y, z)?,
                // x * y + z rounded once; the destination is never an operand (the allocator's
                // rule, and the result scratch is no value's register)
                K::Fma => {
                    let rx = self.reg(x, $s)?;
                    let lz = self.locs[z as usize];
                    rm!(self.a, vmovups(d; lz))?;
                    rm!(self.a, vfmadd231ps(d, rx; ly))?;
                }
                K::Exp | K::Log | K::Sin | K::Cos | K::Pow | K::Load(_) | K::Const(_) => unreachable!("checked before"),
            }
            self.put(dst, d)
        }
    };
}

/// A code generator over vector registers of type R (ymm for AVX2, zmm for AVX-512): the
/// assembler, where each program value lives, and the scratch register results are computed in
/// when their place is memory.
struct Gen<R> {
    a: CodeAssembler,
    locs: Vec<Loc<R>>,
    result_scratch: R,
}

impl<R: Copy> Gen<R>
where
    CodeAssembler: CodeAsmVmovups<R, AsmMemoryOperand> + CodeAsmVmovups<AsmMemoryOperand, R>,
{
    /// The value in a register: its own, or `scratch` loaded from memory.
    fn reg(&mut self, v: u16, scratch: R) -> Result<R, IcedError> {
        match self.locs[v as usize] {
            Loc::Reg(r) => Ok(r),
            Loc::Mem(m) => {
                self.a.vmovups(scratch, m)?;
                Ok(scratch)
            }
        }
    }

    /// The register a result is computed into, and where it then goes.
    fn dst(&self, v: u16) -> R {
        match self.locs[v as usize] {
            Loc::Reg(r) => r,
            Loc::Mem(_) => self.result_scratch,
        }
    }

    fn put(&mut self, v: u16, r: R) -> Result<(), IcedError> {
        if let Loc::Mem(m) = self.locs[v as usize] {
            self.a.vmovups(m, r)?;
        }
        Ok(())
    }
}

/// The AVX2 code: 8 lanes, comparisons as all-ones lanes.
impl Gen<AsmRegisterYmm> {
    fn cst(i: usize) -> AsmMemoryOperand {
        ymmword_ptr(rcx + (64 * i) as i32)
    }

    fn load(&mut self, dst: u16, clip: u8, s: Sample) -> Result<(), IcedError> {
        let d = self.dst(dst);
        let a = &mut self.a;
        a.mov(r11, qword_ptr(rdi + 8 * clip as i32))?;
        match s {
            Sample::U8 => {
                a.vpmovzxbd(d, qword_ptr(r11 + rax))?;
                a.vcvtdq2ps(d, d)?;
            }
            Sample::U16 => {
                a.vpmovzxwd(d, xmmword_ptr(r11 + rax * 2))?;
                a.vcvtdq2ps(d, d)?;
            }
            // exact, as the interpreter's F16C conversion
            Sample::Half => a.vcvtph2ps(d, xmmword_ptr(r11 + rax * 2))?,
            Sample::F32 => a.vmovups(d, ymmword_ptr(r11 + rax * 4))?,
        }
        self.put(dst, d)
    }

    /// `d = (x <pred> y) ? 1 : 0`.
    fn compare(&mut self, d: AsmRegisterYmm, x: u16, y: u16, pred: i32) -> Result<(), IcedError> {
        let rx = self.reg(x, ymm13)?;
        let ly = self.locs[y as usize];
        rm!(self.a, vcmpps(d, rx; ly; pred))?;
        self.a.vandps(d, d, Self::cst(C_ONE))
    }

    /// `d = (x > 0) <op> (y > 0)` as 1 or 0, for And, Or and Xor.
    fn logic(&mut self, k: K, d: AsmRegisterYmm, x: u16, y: u16) -> Result<(), IcedError> {
        let rx = self.reg(x, ymm13)?;
        self.a.vcmpps(ymm14, rx, Self::cst(C_ZERO), GT_OQ)?;
        let ry = self.reg(y, ymm15)?;
        self.a.vcmpps(d, ry, Self::cst(C_ZERO), GT_OQ)?;
        match k {
            K::And => self.a.vandps(d, d, ymm14)?,
            K::Or => self.a.vorps(d, d, ymm14)?,
            _ => self.a.vxorps(d, d, ymm14)?,
        }
        self.a.vandps(d, d, Self::cst(C_ONE))
    }

    op_fn!(ymm13);

    fn not(&mut self, d: AsmRegisterYmm, x: u16) -> Result<(), IcedError> {
        let rx = self.reg(x, ymm13)?;
        self.a.vcmpps(d, rx, Self::cst(C_ZERO), NGT_UQ)?;
        self.a.vandps(d, d, Self::cst(C_ONE))
    }

    /// `if x > 0 { y } else { z }`: blendv takes its third operand where the mask is set.
    fn tern(&mut self, d: AsmRegisterYmm, x: u16, y: u16, z: u16) -> Result<(), IcedError> {
        let rx = self.reg(x, ymm13)?;
        self.a.vcmpps(ymm14, rx, Self::cst(C_ZERO), GT_OQ)?;
        let rz = self.reg(z, ymm15)?;
        let ly = self.locs[y as usize];
        rm!(self.a, vblendvps(d, rz; ly; ymm14))
    }

    /// The interpreter's `to_int` and narrowing, or the float store.
    fn store(&mut self, res: u16, out: Sample) -> Result<(), IcedError> {
        match out {
            Sample::F32 => {
                let r = self.reg(res, ymm13)?;
                self.a.vmovups(ymmword_ptr(rsi + rax * 4), r)?;
            }
            Sample::Half => {
                let r = self.reg(res, ymm13)?;
                self.a.vcvtps2ph(xmmword_ptr(rsi + rax * 2), r, 0)?;
            }
            Sample::U8 | Sample::U16 => {
                let l = self.locs[res as usize];
                let a = &mut self.a;
                // the interpreter's to_int: min(max, v) keeps a NaN (vminps returns its second
                // operand then), which converts to i32::MIN; the conversion rounds half to even
                // (MXCSR's mode, as the interpreter's rounding by adding 2^23); the unsigned
                // saturation of the packs then clamps negative values and the NaN to 0 (the
                // explicit max(t, 0) and separate rounding of the interpreter were a third of the
                // store's latency)
                a.vmovups(ymm13, Self::cst(C_MAX))?;
                rm!(a, vminps(ymm13, ymm13; l))?;
                a.vcvtps2dq(ymm13, ymm13)?;
                a.vextracti128(xmm14, ymm13, 1)?;
                a.vpackusdw(xmm13, xmm13, xmm14)?;
                if out == Sample::U8 {
                    a.vpackuswb(xmm13, xmm13, xmm13)?;
                    a.vmovq(qword_ptr(rsi + rax), xmm13)?;
                } else {
                    a.vmovdqu(xmmword_ptr(rsi + rax * 2), xmm13)?;
                }
            }
        }
        Ok(())
    }
}

/// The AVX-512 code: `Gen<AsmRegisterYmm>`'s operations on 16 lanes, comparisons through mask
/// registers (k1, k2) instead of all-ones lanes.
impl Gen<AsmRegisterZmm> {
    fn cst(i: usize) -> AsmMemoryOperand {
        zmmword_ptr(rcx + (64 * i) as i32)
    }

    fn load(&mut self, dst: u16, clip: u8, s: Sample) -> Result<(), IcedError> {
        let d = self.dst(dst);
        let a = &mut self.a;
        a.mov(r11, qword_ptr(rdi + 8 * clip as i32))?;
        match s {
            Sample::U8 => {
                a.vpmovzxbd(d, xmmword_ptr(r11 + rax))?;
                a.vcvtdq2ps(d, d)?;
            }
            Sample::U16 => {
                a.vpmovzxwd(d, ymmword_ptr(r11 + rax * 2))?;
                a.vcvtdq2ps(d, d)?;
            }
            Sample::Half => a.vcvtph2ps(d, ymmword_ptr(r11 + rax * 2))?,
            Sample::F32 => a.vmovups(d, zmmword_ptr(r11 + rax * 4))?,
        }
        self.put(dst, d)
    }

    /// `d` = 1 where k1 is set, 0 elsewhere.
    fn ones_where_k1(&mut self, d: AsmRegisterZmm) -> Result<(), IcedError> {
        // unaligned: the table is a Vec of f32 lanes
        self.a.vmovups(d.k1().z(), Self::cst(C_ONE))
    }

    fn compare(&mut self, d: AsmRegisterZmm, x: u16, y: u16, pred: i32) -> Result<(), IcedError> {
        let rx = self.reg(x, zmm29)?;
        let ly = self.locs[y as usize];
        rm!(self.a, vcmpps(k1, rx; ly; pred))?;
        self.ones_where_k1(d)
    }

    fn logic(&mut self, k: K, d: AsmRegisterZmm, x: u16, y: u16) -> Result<(), IcedError> {
        let rx = self.reg(x, zmm29)?;
        self.a.vcmpps(k1, rx, Self::cst(C_ZERO), GT_OQ)?;
        let ry = self.reg(y, zmm30)?;
        self.a.vcmpps(k2, ry, Self::cst(C_ZERO), GT_OQ)?;
        match k {
            K::And => self.a.kandw(k1, k1, k2)?,
            K::Or => self.a.korw(k1, k1, k2)?,
            _ => self.a.kxorw(k1, k1, k2)?,
        }
        self.ones_where_k1(d)
    }

    op_fn!(zmm29);

    fn not(&mut self, d: AsmRegisterZmm, x: u16) -> Result<(), IcedError> {
        let rx = self.reg(x, zmm29)?;
        self.a.vcmpps(k1, rx, Self::cst(C_ZERO), NGT_UQ)?;
        self.ones_where_k1(d)
    }

    /// As the AVX2 `tern`; blendm takes its second source where the mask is set.
    fn tern(&mut self, d: AsmRegisterZmm, x: u16, y: u16, z: u16) -> Result<(), IcedError> {
        let rx = self.reg(x, zmm29)?;
        self.a.vcmpps(k1, rx, Self::cst(C_ZERO), GT_OQ)?;
        let rz = self.reg(z, zmm30)?;
        let ly = self.locs[y as usize];
        rm!(self.a, vblendmps(d.k1(), rz; ly))
    }

    fn store(&mut self, res: u16, out: Sample) -> Result<(), IcedError> {
        match out {
            Sample::F32 => {
                let r = self.reg(res, zmm29)?;
                self.a.vmovups(zmmword_ptr(rsi + rax * 4), r)?;
            }
            Sample::Half => {
                let r = self.reg(res, zmm29)?;
                self.a.vcvtps2ph(ymmword_ptr(rsi + rax * 2), r, 0)?;
            }
            Sample::U8 | Sample::U16 => {
                let l = self.locs[res as usize];
                let a = &mut self.a;
                // as the AVX2 `store`; the narrowing stores saturate as unsigned, so negative values
                // and the NaN's i32::MIN are first clamped to 0 as signed integers
                a.vmovups(zmm29, Self::cst(C_MAX))?;
                rm!(a, vminps(zmm29, zmm29; l))?;
                a.vcvtps2dq(zmm29, zmm29)?;
                a.vpmaxsd(zmm29, zmm29, Self::cst(C_ZERO))?;
                if out == Sample::U8 {
                    a.vpmovusdb(xmmword_ptr(rsi + rax), zmm29)?;
                } else {
                    a.vpmovusdw(ymmword_ptr(rsi + rax * 2), zmm29)?;
                }
            }
        }
        Ok(())
    }
}

/// Registers for the program's values (`regs` in order), memory slots for the rest; the
/// constants stay in the table. Returns the places and the number of slots.
fn allocate<R: Copy>(prog: &Program, regs: &[R], const_loc: impl Fn(usize) -> AsmMemoryOperand, slot_loc: impl Fn(usize) -> AsmMemoryOperand) -> (Vec<Loc<R>>, usize) {
    let mut locs: Vec<Option<Loc<R>>> = vec![None; prog.regs];
    for (i, c) in prog.consts.iter().enumerate() {
        if let Ins::Const { dst, .. } = *c {
            locs[dst as usize] = Some(Loc::Mem(const_loc(C_PROGRAM + i)));
        }
    }
    let (mut given, mut slots) = (0, 0);
    let locs = locs
        .into_iter()
        .map(|l| {
            l.unwrap_or_else(|| {
                if given < regs.len() {
                    given += 1;
                    Loc::Reg(regs[given - 1])
                } else {
                    slots += 1;
                    Loc::Mem(slot_loc(slots - 1))
                }
            })
        })
        .collect();
    (locs, slots)
}

/// The Win64 wrapper around the System V style loop.
#[cfg(windows)]
mod win64 {
    use super::*;

    /// Callee-saved vector registers of Win64 (their low 128 bits; the rest is volatile), all of
    /// which the loop may write: ymm6 to ymm11 hold values, ymm12 to ymm15 are scratch, and the
    /// AVX-512 loop's zmm6 to zmm15 overlap them.
    const SAVED: [AsmRegisterXmm; 10] = [xmm6, xmm7, xmm8, xmm9, xmm10, xmm11, xmm12, xmm13, xmm14, xmm15];
    /// The frame below the return address: the ten registers, plus 8 bytes that bring rsp (8 off
    /// a multiple of 16 at entry, the return address having been pushed) back onto a multiple of 16.
    const FRAME: i32 = 16 * 10 + 8;
    /// The fifth argument, from rsp after the frame is made: past the frame, the return address
    /// and the 32-byte shadow space.
    const ARG5: i32 = FRAME + 8 + 32;

    pub(super) fn enter(a: &mut CodeAssembler) -> Result<(), IcedError> {
        // rdi and rsi into the shadow space, the caller's home for rcx and rdx
        a.mov(qword_ptr(rsp + 8), rdi)?;
        a.mov(qword_ptr(rsp + 16), rsi)?;
        a.sub(rsp, FRAME)?;
        for (i, &x) in SAVED.iter().enumerate() {
            a.vmovdqa(xmmword_ptr(rsp + 16 * i as i32), x)?;
        }
        // the loop's System V registers: rcx and rdx are read before they are overwritten
        a.mov(rdi, rcx)?;
        a.mov(rsi, rdx)?;
        a.mov(rdx, r8)?;
        a.mov(rcx, r9)?;
        a.mov(r8, qword_ptr(rsp + ARG5))?;
        Ok(())
    }

    pub(super) fn leave(a: &mut CodeAssembler) -> Result<(), IcedError> {
        for (i, &x) in SAVED.iter().enumerate() {
            a.vmovdqa(x, xmmword_ptr(rsp + 16 * i as i32))?;
        }
        a.add(rsp, FRAME)?;
        a.mov(rdi, qword_ptr(rsp + 8))?;
        a.mov(rsi, qword_ptr(rsp + 16))?;
        Ok(())
    }
}

impl Kernel {
    /// Compiles `prog` for clips stored as `inputs` and output stored as `out`, integer output
    /// clamped to `max`.
    pub(super) fn compile(prog: &Program, inputs: &[Sample], out: Sample, max: f32) -> Result<Kernel, JitError> {
        if !(std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("f16c")) {
            return Err(JitError::Cpu);
        }
        if let Some(&Ins::Op { k, .. }) = prog.ins.iter().find(|i| matches!(i, Ins::Op { k: K::Exp | K::Log | K::Sin | K::Cos | K::Pow, .. })) {
            return Err(JitError::Libm(k));
        }
        let mut consts = vec![[max; 16], [0.0; 16], [1.0; 16], [f32::from_bits(0x7fff_ffff); 16], [-0.0; 16]];
        for c in &prog.consts {
            if let Ins::Const { v, .. } = *c {
                consts.push([v; 16]);
            }
        }
        debug_assert_eq!(consts.len(), C_PROGRAM + prog.consts.len());
        // the loop: rax counts samples up to rdx
        macro_rules! body {
            ($g:ident, $lanes:expr) => {{
                let mut top = $g.a.create_label();
                #[cfg(windows)]
                win64::enter(&mut $g.a)?;
                $g.a.xor(eax, eax)?;
                $g.a.set_label(&mut top)?;
                for ins in &prog.ins {
                    match *ins {
                        Ins::Load { dst, clip } => $g.load(dst, clip, inputs[clip as usize])?,
                        Ins::Op { k, dst, a, b, c } => $g.op(k, dst, a, b, c)?,
                        Ins::Const { .. } => unreachable!("constants are in the table"),
                    }
                }
                $g.store(prog.result, out)?;
                $g.a.add(rax, $lanes)?;
                $g.a.cmp(rax, rdx)?;
                $g.a.jb(top)?;
                #[cfg(windows)]
                win64::leave(&mut $g.a)?;
                $g.a.vzeroupper()?;
                $g.a.ret()?;
                Code::new($g.a, $lanes as usize)?
            }};
        }
        let (locs, spills) = allocate(prog, &YMM, Gen::<AsmRegisterYmm>::cst, |k| ymmword_ptr(r8 + (64 * k) as i32));
        let mut g = Gen { a: CodeAssembler::new(64)?, locs, result_scratch: ymm12 };
        let narrow = body!(g, 8);
        let (mut wide, mut wide_spills) = (None, 0);
        if crate::neighbour::plane::has_avx512() && std::arch::is_x86_feature_detected!("avx512dq") {
            let (locs, spills) = allocate(prog, &ZMM, Gen::<AsmRegisterZmm>::cst, |k| zmmword_ptr(r8 + (64 * k) as i32));
            let mut g = Gen { a: CodeAssembler::new(64)?, locs, result_scratch: zmm28 };
            wide = Some(body!(g, 16));
            wide_spills = spills;
        }
        Ok(Kernel { narrow, wide, consts, spills: spills.max(wide_spills), inputs: inputs.to_vec(), out })
    }

    /// Bytes per output sample.
    pub(super) fn out_bytes(&self) -> usize {
        self.out.bytes()
    }

    /// Room for the values that do not fit in registers, one per row call (each thread its own).
    pub(super) fn spill_area(&self) -> Vec<Lanes> {
        vec![[0.0; 16]; self.spills.max(1)]
    }

    /// One row of `w >= 8` samples: whole vectors, then a last vector ending at the row's end
    /// (overlapping the one before; each sample is computed alone, so it is written twice with
    /// the same value). Rows of 16 samples or more take the AVX-512 code where there is one.
    ///
    /// # Safety
    /// `srcs[c]` points to `w` readable samples of clip c's type, `dst` to `w` writable samples
    /// of the output's type, and `spill` came from `spill_area`.
    pub(super) unsafe fn run_row(&self, srcs: &[*const u8], dst: *mut u8, w: usize, spill: &mut [Lanes]) {
        let code = match &self.wide {
            Some(c) if w >= c.lanes => c,
            _ => &self.narrow,
        };
        let l = code.lanes;
        debug_assert!(w >= l && srcs.len() >= self.inputs.len() && spill.len() >= self.spills);
        let body = w / l * l;
        // SAFETY: the caller's contract; the code reads and writes samples 0..body.
        unsafe { (code.entry)(srcs.as_ptr(), dst, body, self.consts.as_ptr(), spill.as_mut_ptr()) };
        if body < w {
            let back = w - l;
            let mut tail = [std::ptr::null::<u8>(); 26];
            for (c, (t, &s)) in tail.iter_mut().zip(srcs).enumerate().take(self.inputs.len()) {
                // SAFETY: back + l = w samples are readable from s.
                *t = unsafe { s.add(back * self.inputs[c].bytes()) };
            }
            // SAFETY: as above, for samples back..w.
            unsafe { (code.entry)(tail.as_ptr(), dst.add(back * self.out.bytes()), l, self.consts.as_ptr(), spill.as_mut_ptr()) };
        }
    }
}

/// The Win64 wrapper checked from outside: called by hand with every callee-saved register the
/// loop could touch holding a known value, the function must give them all back and still compute
/// the right samples, reading its fifth argument (the spill area) from the stack.
#[cfg(all(test, windows))]
mod win64_tests {
    use super::*;

    #[test]
    fn the_caller_keeps_rdi_rsi_and_xmm6_to_xmm15() {
        if !(std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("f16c")) {
            panic!("this test needs a CPU with AVX2, FMA and F16C (the JIT's own requirement)");
        }
        // 16 clips loaded before the first addition: more live values than the 12 value registers,
        // so values spill and every vector register is written
        let names = "x y z a b c d e f g h i j k l m";
        let expr = format!("{names}{}", " +".repeat(15));
        let prog = super::super::expr::test_program(&expr, 16);
        let k = Kernel::compile(&prog, &[Sample::F32; 16], Sample::F32, 1.0).expect("compiles");
        assert!(k.spills > 0, "the program was meant to spill");
        let w = 64usize;
        let data: Vec<Vec<f32>> = (0..16).map(|c| (0..w).map(|i| (c * 100 + i) as f32).collect()).collect();
        let srcs: Vec<*const u8> = data.iter().map(|d| d.as_ptr() as *const u8).collect();
        let mut out = vec![0f32; w];
        let mut spill = k.spill_area();
        let pattern: [[u64; 2]; 10] = std::array::from_fn(|i| [0x1111_2222_3333_0000 + i as u64, 0x4444_5555_6666_0000 + i as u64]);
        let mut after = [[0u64; 2]; 10];
        let (mut keep_rdi, mut keep_rsi) = (0x0d1d_0d1d_u64, 0x051_0051_u64);
        let entry = k.narrow.entry as usize;
        // SAFETY: a Win64 call by hand: the stack aligned to 16 with 32 bytes of shadow space and
        // the fifth argument above it, the four others in rcx, rdx, r8 and r9; the buffers hold w
        // samples each and the spill area comes from the kernel; r15 keeps the old stack pointer,
        // r13 and r14 (callee-saved) the pattern and result pointers across the call.
        unsafe {
            std::arch::asm!(
                "mov r15, rsp",
                "and rsp, -16",
                "sub rsp, 48",
                "mov [rsp + 32], {spill}",
                "movdqu xmm6, [r14]",
                "movdqu xmm7, [r14 + 16]",
                "movdqu xmm8, [r14 + 32]",
                "movdqu xmm9, [r14 + 48]",
                "movdqu xmm10, [r14 + 64]",
                "movdqu xmm11, [r14 + 80]",
                "movdqu xmm12, [r14 + 96]",
                "movdqu xmm13, [r14 + 112]",
                "movdqu xmm14, [r14 + 128]",
                "movdqu xmm15, [r14 + 144]",
                "call {entry}",
                "movdqu [r13], xmm6",
                "movdqu [r13 + 16], xmm7",
                "movdqu [r13 + 32], xmm8",
                "movdqu [r13 + 48], xmm9",
                "movdqu [r13 + 64], xmm10",
                "movdqu [r13 + 80], xmm11",
                "movdqu [r13 + 96], xmm12",
                "movdqu [r13 + 112], xmm13",
                "movdqu [r13 + 128], xmm14",
                "movdqu [r13 + 144], xmm15",
                "mov rsp, r15",
                entry = in(reg) entry,
                spill = in(reg) spill.as_mut_ptr(),
                in("rcx") srcs.as_ptr(),
                in("rdx") out.as_mut_ptr(),
                in("r8") w,
                in("r9") k.consts.as_ptr(),
                in("r14") pattern.as_ptr(),
                in("r13") after.as_mut_ptr(),
                inout("rdi") keep_rdi,
                inout("rsi") keep_rsi,
                out("r15") _,
                out("xmm6") _, out("xmm7") _, out("xmm8") _, out("xmm9") _, out("xmm10") _,
                out("xmm11") _, out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
                clobber_abi("win64"),
            );
        }
        assert_eq!(after, pattern, "xmm6 to xmm15 changed across the call");
        assert_eq!((keep_rdi, keep_rsi), (0x0d1d_0d1d, 0x051_0051), "rdi or rsi changed across the call");
        let want: Vec<f32> = (0..w).map(|i| (12000 + 16 * i) as f32).collect();
        assert_eq!(out, want);
    }
}
