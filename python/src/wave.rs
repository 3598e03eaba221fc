//! WAVE (RIFF) and Sony Wave64 headers for `vsvk pipe -c wav|w64`: WAVE_FORMAT_EXTENSIBLE with the
//! clip's channel mask, integer PCM or IEEE float. Both need the data size up front, which the clip's
//! sample count gives; WAVE's 32-bit sizes cap it at 4 GiB, Wave64 has none. Tested through the
//! command (tests/python/check_wave.py: ffmpeg decodes what the core returned).
use vsvk_plugin_api::abi::{VSAudioFormat, stFloat};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wave {
    Riff,
    W64,
}

/// KSDATAFORMAT_SUBTYPE_PCM and _IEEE_FLOAT differ only in their first byte.
fn subformat(float: bool) -> [u8; 16] {
    [if float { 3 } else { 1 }, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71]
}

/// Wave64 chunk identifiers: the four-letter code followed by a fixed GUID tail.
const W64_RIFF: [u8; 16] = *b"riff\x2e\x91\xcf\x11\xa5\xd6\x28\xdb\x04\xc1\x00\x00";
const W64_TAIL: [u8; 12] = [0xf3, 0xac, 0xd3, 0x11, 0x8c, 0xd1, 0x00, 0xc0, 0x4f, 0x8e, 0xdb, 0x8a];

fn w64_id(code: &[u8; 4]) -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..4].copy_from_slice(code);
    id[4..].copy_from_slice(&W64_TAIL);
    id
}

/// Bytes each sample takes in the file: 24-bit integer samples are packed into 3.
pub fn container_bytes(f: &VSAudioFormat) -> u32 {
    if f.sampleType != stFloat && f.bitsPerSample == 24 { 3 } else { f.bytesPerSample as u32 }
}

/// The 40-byte WAVEFORMATEXTENSIBLE.
fn format_chunk(f: &VSAudioFormat, rate: i32) -> Result<Vec<u8>, String> {
    // WAVE's speaker mask has 18 positions, which are VapourSynth's first 18 channel positions
    if f.channelLayout >> 18 != 0 {
        return Err(format!(
            "wav and w64 carry only the 18 standard speaker positions; this clip's channel layout is {:#x} (use --container none)",
            f.channelLayout
        ));
    }
    let bytes = container_bytes(f);
    let block = bytes * f.numChannels as u32;
    let mut c = Vec::with_capacity(40);
    c.extend_from_slice(&0xfffeu16.to_le_bytes());
    c.extend_from_slice(&(f.numChannels as u16).to_le_bytes());
    c.extend_from_slice(&(rate as u32).to_le_bytes());
    c.extend_from_slice(&(block * rate as u32).to_le_bytes());
    c.extend_from_slice(&(block as u16).to_le_bytes());
    c.extend_from_slice(&((bytes * 8) as u16).to_le_bytes());
    c.extend_from_slice(&22u16.to_le_bytes());
    c.extend_from_slice(&(f.bitsPerSample as u16).to_le_bytes());
    c.extend_from_slice(&(f.channelLayout as u32).to_le_bytes());
    c.extend_from_slice(&subformat(f.sampleType == stFloat));
    Ok(c)
}

/// The header written before the first sample of `samples` samples.
pub fn header(kind: Wave, f: &VSAudioFormat, rate: i32, samples: i64) -> Result<Vec<u8>, String> {
    let fmt = format_chunk(f, rate)?;
    let data = samples as u64 * container_bytes(f) as u64 * f.numChannels as u64;
    let mut h = Vec::new();
    match kind {
        Wave::Riff => {
            let total = 4 + (8 + fmt.len() as u64) + 8 + data + (data & 1);
            if total > u32::MAX as u64 {
                return Err(format!("{data} bytes of samples do not fit in a wav file (4 GiB at most); use --container w64"));
            }
            h.extend_from_slice(b"RIFF");
            h.extend_from_slice(&(total as u32).to_le_bytes());
            h.extend_from_slice(b"WAVE");
            h.extend_from_slice(b"fmt ");
            h.extend_from_slice(&(fmt.len() as u32).to_le_bytes());
            h.extend_from_slice(&fmt);
            h.extend_from_slice(b"data");
            h.extend_from_slice(&(data as u32).to_le_bytes());
        }
        Wave::W64 => {
            // every chunk's size counts its 24-byte header; chunks start on 8-byte boundaries
            let fmt_size = 24 + fmt.len() as u64;
            let total = 16 + 8 + 16 + fmt_size + 24 + data;
            h.extend_from_slice(&W64_RIFF);
            h.extend_from_slice(&total.to_le_bytes());
            h.extend_from_slice(&w64_id(b"wave"));
            h.extend_from_slice(&w64_id(b"fmt "));
            h.extend_from_slice(&fmt_size.to_le_bytes());
            h.extend_from_slice(&fmt);
            h.extend_from_slice(&w64_id(b"data"));
            h.extend_from_slice(&(24 + data).to_le_bytes());
        }
    }
    Ok(h)
}
