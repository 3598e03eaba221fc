//! What the physical devices' video engines decode (Vulkan Video), for `vsvk devices`: a decode
//! queue family's codec operations, then, per codec and bit depth, whether a 4:2:0 profile has
//! capabilities and up to what size. Only queries: nothing here creates a device, and the core's
//! own device is created as docs/GPU.md says, without video extensions.
use ash::vk;
use ash::vk::native::*;

use super::device::Instance;

/// One decodable profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeProfile {
    pub codec: &'static str,
    pub bits: u32,
    pub max_width: u32,
    pub max_height: u32,
}

/// A device's decode abilities; `profiles` is empty where it has no decode queue.
#[derive(Clone, Debug)]
pub struct DecodeCaps {
    pub uuid: [u8; vk::UUID_SIZE],
    pub decode_queue_family: Option<u32>,
    pub profiles: Vec<DecodeProfile>,
}

/// Every physical device's decode abilities, in enumeration order.
pub fn decode_capabilities() -> Result<Vec<DecodeCaps>, String> {
    let inst = Instance::new()?;
    let vq = ash::khr::video_queue::Instance::new(&inst.entry, &inst.instance);
    Ok(inst.physical_devices()?.into_iter().map(|pd| device_caps(&inst, &vq, pd)).collect())
}

fn device_caps(inst: &Instance, vq: &ash::khr::video_queue::Instance, pd: vk::PhysicalDevice) -> DecodeCaps {
    let mut id = vk::PhysicalDeviceIDProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
    // SAFETY: a physical device of this instance; the chain holds valid structures.
    unsafe { inst.instance.get_physical_device_properties2(pd, &mut props) };
    let uuid = id.device_uuid;
    // SAFETY: as above.
    let n = unsafe { inst.instance.get_physical_device_queue_family_properties2_len(pd) };
    let mut video = vec![vk::QueueFamilyVideoPropertiesKHR::default(); n];
    let mut families: Vec<vk::QueueFamilyProperties2> = video.iter_mut().map(|v| vk::QueueFamilyProperties2::default().push_next(v)).collect();
    // SAFETY: as above, `n` chained structures.
    unsafe { inst.instance.get_physical_device_queue_family_properties2(pd, &mut families) };
    let family = families.iter().position(|f| f.queue_family_properties.queue_flags.contains(vk::QueueFlags::VIDEO_DECODE_KHR));
    drop(families);
    let ops = family.map_or(vk::VideoCodecOperationFlagsKHR::empty(), |i| video[i].video_codec_operations);
    let mut profiles = Vec::new();
    for (op, codec) in [
        (vk::VideoCodecOperationFlagsKHR::DECODE_H264, "H.264"),
        (vk::VideoCodecOperationFlagsKHR::DECODE_H265, "H.265"),
        (vk::VideoCodecOperationFlagsKHR::DECODE_AV1, "AV1"),
    ] {
        if !ops.contains(op) {
            continue;
        }
        for bits in [8u32, 10, 12] {
            if let Some((w, h)) = profile_extent(vq, pd, op, bits) {
                profiles.push(DecodeProfile { codec, bits, max_width: w, max_height: h });
            }
        }
    }
    DecodeCaps { uuid, decode_queue_family: family.map(|f| f as u32), profiles }
}

fn depth(bits: u32) -> vk::VideoComponentBitDepthFlagsKHR {
    match bits {
        8 => vk::VideoComponentBitDepthFlagsKHR::TYPE_8,
        10 => vk::VideoComponentBitDepthFlagsKHR::TYPE_10,
        _ => vk::VideoComponentBitDepthFlagsKHR::TYPE_12,
    }
}

/// The largest coded size of the 4:2:0 profile of `op` at `bits`, if the device decodes it.
fn profile_extent(vq: &ash::khr::video_queue::Instance, pd: vk::PhysicalDevice, op: vk::VideoCodecOperationFlagsKHR, bits: u32) -> Option<(u32, u32)> {
    // the codec's main profile for the depth: H.264 High / High 10, HEVC Main / Main 10 / Main 12
    // (format range extensions), AV1 Main (8 and 10 bits) or Professional (12)
    let mut h264 = vk::VideoDecodeH264ProfileInfoKHR::default()
        .std_profile_idc(if bits == 8 { StdVideoH264ProfileIdc_STD_VIDEO_H264_PROFILE_IDC_HIGH } else { 110 })
        .picture_layout(vk::VideoDecodeH264PictureLayoutFlagsKHR::PROGRESSIVE);
    let mut h265 = vk::VideoDecodeH265ProfileInfoKHR::default().std_profile_idc(match bits {
        8 => StdVideoH265ProfileIdc_STD_VIDEO_H265_PROFILE_IDC_MAIN,
        10 => StdVideoH265ProfileIdc_STD_VIDEO_H265_PROFILE_IDC_MAIN_10,
        _ => StdVideoH265ProfileIdc_STD_VIDEO_H265_PROFILE_IDC_FORMAT_RANGE_EXTENSIONS,
    });
    let mut av1 = vk::VideoDecodeAV1ProfileInfoKHR::default().std_profile(if bits == 12 {
        StdVideoAV1Profile_STD_VIDEO_AV1_PROFILE_PROFESSIONAL
    } else {
        StdVideoAV1Profile_STD_VIDEO_AV1_PROFILE_MAIN
    });
    let base = vk::VideoProfileInfoKHR::default()
        .video_codec_operation(op)
        .chroma_subsampling(vk::VideoChromaSubsamplingFlagsKHR::TYPE_420)
        .luma_bit_depth(depth(bits))
        .chroma_bit_depth(depth(bits));
    let profile = match op {
        vk::VideoCodecOperationFlagsKHR::DECODE_H264 => base.push_next(&mut h264),
        vk::VideoCodecOperationFlagsKHR::DECODE_H265 => base.push_next(&mut h265),
        _ => base.push_next(&mut av1),
    };
    let mut h264c = vk::VideoDecodeH264CapabilitiesKHR::default();
    let mut h265c = vk::VideoDecodeH265CapabilitiesKHR::default();
    let mut av1c = vk::VideoDecodeAV1CapabilitiesKHR::default();
    let mut dec = vk::VideoDecodeCapabilitiesKHR::default();
    let caps = vk::VideoCapabilitiesKHR::default().push_next(&mut dec);
    let mut caps = match op {
        vk::VideoCodecOperationFlagsKHR::DECODE_H264 => caps.push_next(&mut h264c),
        vk::VideoCodecOperationFlagsKHR::DECODE_H265 => caps.push_next(&mut h265c),
        _ => caps.push_next(&mut av1c),
    };
    // SAFETY: a physical device that lists this codec operation; both chains hold valid structures
    // of the codec the profile names, as the query requires.
    let r = unsafe { (vq.fp().get_physical_device_video_capabilities_khr)(pd, &profile, &mut caps) };
    (r == vk::Result::SUCCESS).then_some((caps.max_coded_extent.width, caps.max_coded_extent.height))
}
