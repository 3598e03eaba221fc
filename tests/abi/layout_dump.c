/*
 * layout_dump.c -- prints the ABI facts of whichever VapourSynth API 4 headers are first on
 * the include path: struct sizes, alignments and member offsets, enumeration values, macro
 * values and the results of the VSHelper4.h helpers on fixed inputs. Built once against
 * vsvk's include/ and once against the reference headers, the two outputs must be identical
 * (tests/tests/abi_layout.rs does this, in C and in C++, for several API version settings).
 *
 * In C++ it also prints the mangled type of every member and function, which pins down
 * function pointer signatures (parameter types, noexcept) as well.
 *
 * Select the API version with -DVS_USE_LATEST_API / -DVS_USE_API_4x and -DVS_GRAPH_API.
 * Needs C11 or C++11; the "sig" lines need C++17.
 */

/* posix_memalign, used by VSH_ALIGNED_MALLOC, is POSIX rather than ISO C. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "VapourSynth4.h"
#include "VSHelper4.h"
#include "VSConstants4.h"
#include "VSVulkan4.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#ifdef __cplusplus
#include <typeinfo>
#endif

#if defined(__cplusplus) && __cplusplus >= 201703L
/* A portable rendering of a function pointer signature, e.g. "i32(ptr,u64)", for comparison
   with the Rust bindings: each type is reduced to its ABI class. */
#include <string>
#include <type_traits>
template <typename T> static std::string abi_kind() {
    if constexpr (std::is_void_v<T>) {
        return "void";
    } else if constexpr (std::is_pointer_v<T>) {
        using P = std::remove_pointer_t<T>;
        if constexpr (std::is_function_v<P>)
            return "fn";
        else
            return std::is_const_v<P> ? "cptr" : "mptr";
    } else if constexpr (std::is_enum_v<T>) {
        return "i" + std::to_string(sizeof(T) * 8);
    } else if constexpr (std::is_floating_point_v<T>) {
        return "f" + std::to_string(sizeof(T) * 8);
    } else if constexpr (std::is_integral_v<T>) {
        return (std::is_signed_v<T> ? "i" : "u") + std::to_string(sizeof(T) * 8);
    } else {
        return "?";
    }
}
template <typename T> struct abi_sig {
    static void print(const char *) {}
};
template <typename R, typename... A> struct abi_sig<R (*)(A...)> {
    static void print(const char *label) {
        std::string s = abi_kind<R>() + "(";
        const char *sep = "";
        ((s += sep, s += abi_kind<A>(), sep = ","), ...);
        (void)sep;
        printf("sig %s %s)\n", label, s.c_str());
    }
};
template <typename R, typename... A> struct abi_sig<R (*)(A...) noexcept> : abi_sig<R (*)(A...)> {};
#define SIG_OF(label, T) abi_sig<T>::print(label)
#else
#define SIG_OF(label, T) ((void)0)
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

#ifdef __cplusplus
#define ALIGN_OF(T) alignof(T)
#define TYPE_OF_EXPR(label, expr) printf("type %s %s\n", label, typeid(expr).name())
#define TYPE_OF(T) (printf("type %s %s\n", #T, typeid(T).name()), SIG_OF(#T, T))
#define HELPER(name) vsh::name
#else
#define ALIGN_OF(T) _Alignof(T)
#define TYPE_OF_EXPR(label, expr) ((void)0)
#define TYPE_OF(T) ((void)0)
#define HELPER(name) vsh_##name
#endif

#define SIZE(T) printf("size %s %zu align %zu\n", #T, sizeof(T), (size_t)ALIGN_OF(T))
#define FIELD(T, m)                                                                          \
    do {                                                                                     \
        printf("field %s.%s %zu %zu\n", #T, #m, offsetof(T, m), sizeof(((T *)0)->m));        \
        TYPE_OF_EXPR(#T "." #m, ((T *)0)->m);                                                \
        SIG_OF(#T "." #m, decltype(((T *)0)->m));                                            \
    } while (0)
#define ENUM_SIZE(T) printf("enumsize %s %zu\n", #T, sizeof(T))
#define ENUMV(c) printf("enum %s %lld\n", #c, (long long)(c))
#define MACRO_INT(m) printf("macro %s %lld\n", #m, (long long)(m))
#define MACRO_TEXT(m) printf("macrotext %s [%s]\n", #m, STR(m))

/* Walks VS_VK_FUNCTION_LIST: the list itself, and the table members it declares. */
#define VKFN_FIELD(level, requirement, name)                                                   \
    printf("vkfn %s level %d requirement %d\n", #name, (int)(level), (int)(requirement));     \
    FIELD(VSVulkanFunctions, vk##name);

/* ---- struct layouts ---- */
static void dump_structs(void) {
    SIZE(VSVideoFormat);
    FIELD(VSVideoFormat, colorFamily);
    FIELD(VSVideoFormat, sampleType);
    FIELD(VSVideoFormat, bitsPerSample);
    FIELD(VSVideoFormat, bytesPerSample);
    FIELD(VSVideoFormat, subSamplingW);
    FIELD(VSVideoFormat, subSamplingH);
    FIELD(VSVideoFormat, numPlanes);
    SIZE(VSAudioFormat);
    FIELD(VSAudioFormat, sampleType);
    FIELD(VSAudioFormat, bitsPerSample);
    FIELD(VSAudioFormat, bytesPerSample);
    FIELD(VSAudioFormat, numChannels);
    FIELD(VSAudioFormat, channelLayout);
    SIZE(VSCoreInfo);
    FIELD(VSCoreInfo, versionString);
    FIELD(VSCoreInfo, core);
    FIELD(VSCoreInfo, api);
    FIELD(VSCoreInfo, numThreads);
    FIELD(VSCoreInfo, maxFramebufferSize);
    FIELD(VSCoreInfo, usedFramebufferSize);
    SIZE(VSCoreInfo2);
    FIELD(VSCoreInfo2, versionString);
    FIELD(VSCoreInfo2, coreVersion);
    FIELD(VSCoreInfo2, apiVersion);
    FIELD(VSCoreInfo2, creationFlags);
    FIELD(VSCoreInfo2, numThreads);
    FIELD(VSCoreInfo2, maxFramebufferSize);
    FIELD(VSCoreInfo2, usedFramebufferSize);
    SIZE(VSVideoInfo);
    FIELD(VSVideoInfo, format);
    FIELD(VSVideoInfo, fpsNum);
    FIELD(VSVideoInfo, fpsDen);
    FIELD(VSVideoInfo, width);
    FIELD(VSVideoInfo, height);
    FIELD(VSVideoInfo, numFrames);
    SIZE(VSAudioInfo);
    FIELD(VSAudioInfo, format);
    FIELD(VSAudioInfo, sampleRate);
    FIELD(VSAudioInfo, numSamples);
    FIELD(VSAudioInfo, numFrames);
    SIZE(VSPLUGINAPI);
    FIELD(VSPLUGINAPI, getAPIVersion);
    FIELD(VSPLUGINAPI, configPlugin);
    FIELD(VSPLUGINAPI, registerFunction);
    SIZE(VSFilterDependency);
    FIELD(VSFilterDependency, source);
    FIELD(VSFilterDependency, requestPattern);
    SIZE(VSAPI);
    FIELD(VSAPI, createVideoFilter);
    FIELD(VSAPI, createVideoFilter2);
    FIELD(VSAPI, createAudioFilter);
    FIELD(VSAPI, createAudioFilter2);
    FIELD(VSAPI, setLinearFilter);
    FIELD(VSAPI, setCacheMode);
    FIELD(VSAPI, setCacheOptions);
    FIELD(VSAPI, freeNode);
    FIELD(VSAPI, addNodeRef);
    FIELD(VSAPI, getNodeType);
    FIELD(VSAPI, getVideoInfo);
    FIELD(VSAPI, getAudioInfo);
    FIELD(VSAPI, newVideoFrame);
    FIELD(VSAPI, newVideoFrame2);
    FIELD(VSAPI, newAudioFrame);
    FIELD(VSAPI, newAudioFrame2);
    FIELD(VSAPI, freeFrame);
    FIELD(VSAPI, addFrameRef);
    FIELD(VSAPI, copyFrame);
    FIELD(VSAPI, getFramePropertiesRO);
    FIELD(VSAPI, getFramePropertiesRW);
    FIELD(VSAPI, getStride);
    FIELD(VSAPI, getReadPtr);
    FIELD(VSAPI, getWritePtr);
    FIELD(VSAPI, getVideoFrameFormat);
    FIELD(VSAPI, getAudioFrameFormat);
    FIELD(VSAPI, getFrameType);
    FIELD(VSAPI, getFrameWidth);
    FIELD(VSAPI, getFrameHeight);
    FIELD(VSAPI, getFrameLength);
    FIELD(VSAPI, getVideoFormatName);
    FIELD(VSAPI, getAudioFormatName);
    FIELD(VSAPI, queryVideoFormat);
    FIELD(VSAPI, queryAudioFormat);
    FIELD(VSAPI, queryVideoFormatID);
    FIELD(VSAPI, getVideoFormatByID);
    FIELD(VSAPI, getFrame);
    FIELD(VSAPI, getFrameAsync);
    FIELD(VSAPI, getFrameFilter);
    FIELD(VSAPI, requestFrameFilter);
    FIELD(VSAPI, releaseFrameEarly);
    FIELD(VSAPI, cacheFrame);
    FIELD(VSAPI, setFilterError);
    FIELD(VSAPI, createFunction);
    FIELD(VSAPI, freeFunction);
    FIELD(VSAPI, addFunctionRef);
    FIELD(VSAPI, callFunction);
    FIELD(VSAPI, createMap);
    FIELD(VSAPI, freeMap);
    FIELD(VSAPI, clearMap);
    FIELD(VSAPI, copyMap);
    FIELD(VSAPI, mapSetError);
    FIELD(VSAPI, mapGetError);
    FIELD(VSAPI, mapNumKeys);
    FIELD(VSAPI, mapGetKey);
    FIELD(VSAPI, mapDeleteKey);
    FIELD(VSAPI, mapNumElements);
    FIELD(VSAPI, mapGetType);
    FIELD(VSAPI, mapSetEmpty);
    FIELD(VSAPI, mapGetInt);
    FIELD(VSAPI, mapGetIntSaturated);
    FIELD(VSAPI, mapGetIntArray);
    FIELD(VSAPI, mapSetInt);
    FIELD(VSAPI, mapSetIntArray);
    FIELD(VSAPI, mapGetFloat);
    FIELD(VSAPI, mapGetFloatSaturated);
    FIELD(VSAPI, mapGetFloatArray);
    FIELD(VSAPI, mapSetFloat);
    FIELD(VSAPI, mapSetFloatArray);
    FIELD(VSAPI, mapGetData);
    FIELD(VSAPI, mapGetDataSize);
    FIELD(VSAPI, mapGetDataTypeHint);
    FIELD(VSAPI, mapSetData);
    FIELD(VSAPI, mapGetNode);
    FIELD(VSAPI, mapSetNode);
    FIELD(VSAPI, mapConsumeNode);
    FIELD(VSAPI, mapGetFrame);
    FIELD(VSAPI, mapSetFrame);
    FIELD(VSAPI, mapConsumeFrame);
    FIELD(VSAPI, mapGetFunction);
    FIELD(VSAPI, mapSetFunction);
    FIELD(VSAPI, mapConsumeFunction);
    FIELD(VSAPI, registerFunction);
    FIELD(VSAPI, getPluginByID);
    FIELD(VSAPI, getPluginByNamespace);
    FIELD(VSAPI, getNextPlugin);
    FIELD(VSAPI, getPluginName);
    FIELD(VSAPI, getPluginID);
    FIELD(VSAPI, getPluginNamespace);
    FIELD(VSAPI, getNextPluginFunction);
    FIELD(VSAPI, getPluginFunctionByName);
    FIELD(VSAPI, getPluginFunctionName);
    FIELD(VSAPI, getPluginFunctionArguments);
    FIELD(VSAPI, getPluginFunctionReturnType);
    FIELD(VSAPI, getPluginPath);
    FIELD(VSAPI, getPluginVersion);
    FIELD(VSAPI, invoke);
    FIELD(VSAPI, createCore);
    FIELD(VSAPI, freeCore);
    FIELD(VSAPI, setMaxCacheSize);
    FIELD(VSAPI, setThreadCount);
    FIELD(VSAPI, getCoreInfo);
    FIELD(VSAPI, getAPIVersion);
    FIELD(VSAPI, logMessage);
    FIELD(VSAPI, addLogHandler);
    FIELD(VSAPI, removeLogHandler);
#if VAPOURSYNTH_API_MINOR >= 1
    FIELD(VSAPI, clearNodeCache);
    FIELD(VSAPI, clearCoreCaches);
    FIELD(VSAPI, getNodeName);
    FIELD(VSAPI, getNodeFilterMode);
    FIELD(VSAPI, getNumNodeDependencies);
    FIELD(VSAPI, getNodeDependency);
    FIELD(VSAPI, getCoreNodeTiming);
    FIELD(VSAPI, setCoreNodeTiming);
    FIELD(VSAPI, getNodeProcessingTime);
    FIELD(VSAPI, getFreedNodeProcessingTime);
#endif
#if VAPOURSYNTH_API_MINOR >= 2
    FIELD(VSAPI, getCoreInfo2);
#endif
#if VAPOURSYNTH_API_MINOR >= 3
    FIELD(VSAPI, createVideoFilterEx);
    FIELD(VSAPI, createVideoFilterEx2);
    FIELD(VSAPI, getVulkanAPI);
    FIELD(VSAPI, getNodeResidency);
    FIELD(VSAPI, getFrameResidency);
#endif
#if VAPOURSYNTH_API_MINOR >= 2 && defined(VS_GRAPH_API)
    FIELD(VSAPI, getNodeCreationFunctionName);
    FIELD(VSAPI, getNodeCreationPluginID);
    FIELD(VSAPI, getNodeCreationPluginNS);
    FIELD(VSAPI, getNodeCreationFunctionArguments);
#endif
    SIZE(VSVulkanFunctions);
    VS_VK_FUNCTION_LIST(VKFN_FIELD)
    SIZE(VSVulkanCoreHandles);
    FIELD(VSVulkanCoreHandles, instance);
    FIELD(VSVulkanCoreHandles, physicalDevice);
    FIELD(VSVulkanCoreHandles, device);
    FIELD(VSVulkanCoreHandles, getInstanceProcAddr);
    FIELD(VSVulkanCoreHandles, computeQueueFamily);
    FIELD(VSVulkanCoreHandles, computeQueueIndex);
    FIELD(VSVulkanCoreHandles, transferQueueFamily);
    FIELD(VSVulkanCoreHandles, transferQueueIndex);
    SIZE(VSVulkanPlaneInfo);
    FIELD(VSVulkanPlaneInfo, buffer);
    FIELD(VSVulkanPlaneInfo, bufferSize);
    FIELD(VSVulkanPlaneInfo, readySemaphore);
    FIELD(VSVulkanPlaneInfo, readyValue);
    SIZE(VSVulkanBufferInfo);
    FIELD(VSVulkanBufferInfo, buffer);
    FIELD(VSVulkanBufferInfo, address);
    FIELD(VSVulkanBufferInfo, mapped);
    FIELD(VSVulkanBufferInfo, size);
    FIELD(VSVulkanBufferInfo, memoryFlags);
    SIZE(VSVulkanMemoryInfo);
    FIELD(VSVulkanMemoryInfo, memory);
    FIELD(VSVulkanMemoryInfo, offset);
    FIELD(VSVulkanMemoryInfo, size);
    FIELD(VSVulkanMemoryInfo, mapped);
    FIELD(VSVulkanMemoryInfo, memoryFlags);
    SIZE(VSVulkanExportedMemory);
    FIELD(VSVulkanExportedMemory, memoryId);
    FIELD(VSVulkanExportedMemory, memorySize);
    FIELD(VSVulkanExportedMemory, memoryTypeIndex);
    FIELD(VSVulkanExportedMemory, offset);
    FIELD(VSVulkanExportedMemory, size);
    FIELD(VSVulkanExportedMemory, handleType);
    FIELD(VSVulkanExportedMemory, handle);
    SIZE(VSVulkanExportedSemaphore);
    FIELD(VSVulkanExportedSemaphore, handleType);
    FIELD(VSVulkanExportedSemaphore, handle);
    SIZE(VSVulkanCoreInfo);
    FIELD(VSVulkanCoreInfo, deviceName);
    FIELD(VSVulkanCoreInfo, deviceMemory);
    FIELD(VSVulkanCoreInfo, budget);
    FIELD(VSVulkanCoreInfo, allocated);
    FIELD(VSVulkanCoreInfo, limit);
    FIELD(VSVulkanCoreInfo, deviceUUID);
    FIELD(VSVulkanCoreInfo, deviceLUID);
    FIELD(VSVulkanCoreInfo, deviceNodeMask);
    FIELD(VSVulkanCoreInfo, deviceLUIDValid);
    FIELD(VSVulkanCoreInfo, exportHandleType);
    FIELD(VSVulkanCoreInfo, semaphoreExportHandleType);
    FIELD(VSVulkanCoreInfo, unifiedMemory);
    SIZE(VSVulkanDeviceListEntry);
    FIELD(VSVulkanDeviceListEntry, deviceName);
    FIELD(VSVulkanDeviceListEntry, apiVersion);
    FIELD(VSVulkanDeviceListEntry, deviceType);
    FIELD(VSVulkanDeviceListEntry, deviceMemory);
    FIELD(VSVulkanDeviceListEntry, usable);
    FIELD(VSVulkanDeviceListEntry, unusableReason);
    FIELD(VSVulkanDeviceListEntry, deviceUUID);
    FIELD(VSVulkanDeviceListEntry, deviceLUID);
    FIELD(VSVulkanDeviceListEntry, deviceNodeMask);
    FIELD(VSVulkanDeviceListEntry, deviceLUIDValid);
    SIZE(VSVULKANAPI);
    FIELD(VSVULKANAPI, enumerateVulkanDevices);
    FIELD(VSVULKANAPI, setVulkanDevice);
    FIELD(VSVULKANAPI, getVulkanCoreInfo);
    FIELD(VSVULKANAPI, setMaxVRAMUse);
    FIELD(VSVULKANAPI, getVulkanHandles);
    FIELD(VSVULKANAPI, getVulkanFunctions);
    FIELD(VSVULKANAPI, lockVulkanQueue);
    FIELD(VSVULKANAPI, unlockVulkanQueue);
    FIELD(VSVULKANAPI, newGPUVideoFrame);
    FIELD(VSVULKANAPI, getGPUPlane);
    FIELD(VSVULKANAPI, setGPUPlaneProducer);
    FIELD(VSVULKANAPI, createGPUTimeline);
    FIELD(VSVULKANAPI, freeGPUTimeline);
    FIELD(VSVULKANAPI, addGPUTimelineRef);
    FIELD(VSVULKANAPI, getGPUTimelineSemaphore);
    FIELD(VSVULKANAPI, gpuTimelineWaitValue);
    FIELD(VSVULKANAPI, createGPUBuffer);
    FIELD(VSVULKANAPI, destroyGPUBuffer);
    FIELD(VSVULKANAPI, allocateGPUMemory);
    FIELD(VSVULKANAPI, freeGPUMemory);
    FIELD(VSVULKANAPI, reserveGPUMemory);
    FIELD(VSVULKANAPI, updateGPUMemoryReservation);
    FIELD(VSVULKANAPI, releaseGPUMemoryReservation);
    FIELD(VSVULKANAPI, compileGPUShader);
    FIELD(VSVULKANAPI, getGPUShaderCode);
    FIELD(VSVULKANAPI, freeGPUShader);
    FIELD(VSVULKANAPI, createGPUExecPool);
    FIELD(VSVULKANAPI, freeGPUExecPool);
    FIELD(VSVULKANAPI, gpuExecPoolWaitIdle);
    FIELD(VSVULKANAPI, gpuExecWaitValue);
    FIELD(VSVULKANAPI, gpuExecPoolTimeline);
    FIELD(VSVULKANAPI, gpuExecAcquire);
    FIELD(VSVULKANAPI, gpuExecCommandBuffer);
    FIELD(VSVULKANAPI, gpuExecReadsFrame);
    FIELD(VSVULKANAPI, gpuExecWritesPlane);
    FIELD(VSVULKANAPI, gpuExecUsesBuffer);
    FIELD(VSVULKANAPI, gpuExecUsesMemory);
    FIELD(VSVULKANAPI, gpuExecRetain);
    FIELD(VSVULKANAPI, gpuExecSubmit);
    FIELD(VSVULKANAPI, gpuExecAbandon);
    FIELD(VSVULKANAPI, exportGPUPlane);
    FIELD(VSVULKANAPI, exportGPUSemaphore);
    FIELD(VSVULKANAPI, waitGPUFrame);
    FIELD(VSVULKANAPI, getExportableFrameFilter);
}

/* ---- enumeration constants ---- */
static void dump_enums(void) {
    ENUM_SIZE(VSColorFamily);
    ENUMV(cfUndefined);
    ENUMV(cfGray);
    ENUMV(cfRGB);
    ENUMV(cfYUV);
    ENUM_SIZE(VSSampleType);
    ENUMV(stInteger);
    ENUMV(stFloat);
    ENUM_SIZE(VSPresetVideoFormat);
    ENUMV(pfNone);
    ENUMV(pfGray8);
    ENUMV(pfGray9);
    ENUMV(pfGray10);
    ENUMV(pfGray12);
    ENUMV(pfGray14);
    ENUMV(pfGray16);
    ENUMV(pfGray32);
    ENUMV(pfGrayH);
    ENUMV(pfGrayS);
    ENUMV(pfYUV410P8);
    ENUMV(pfYUV411P8);
    ENUMV(pfYUV440P8);
    ENUMV(pfYUV420P8);
    ENUMV(pfYUV422P8);
    ENUMV(pfYUV444P8);
    ENUMV(pfYUV420P9);
    ENUMV(pfYUV422P9);
    ENUMV(pfYUV444P9);
    ENUMV(pfYUV420P10);
    ENUMV(pfYUV422P10);
    ENUMV(pfYUV444P10);
    ENUMV(pfYUV420P12);
    ENUMV(pfYUV422P12);
    ENUMV(pfYUV444P12);
    ENUMV(pfYUV420P14);
    ENUMV(pfYUV422P14);
    ENUMV(pfYUV444P14);
    ENUMV(pfYUV410P16);
    ENUMV(pfYUV411P16);
    ENUMV(pfYUV440P16);
    ENUMV(pfYUV420P16);
    ENUMV(pfYUV422P16);
    ENUMV(pfYUV444P16);
    ENUMV(pfYUV410PH);
    ENUMV(pfYUV410PS);
    ENUMV(pfYUV411PH);
    ENUMV(pfYUV411PS);
    ENUMV(pfYUV440PH);
    ENUMV(pfYUV440PS);
    ENUMV(pfYUV420PH);
    ENUMV(pfYUV420PS);
    ENUMV(pfYUV422PH);
    ENUMV(pfYUV422PS);
    ENUMV(pfYUV444PH);
    ENUMV(pfYUV444PS);
    ENUMV(pfRGB24);
    ENUMV(pfRGB27);
    ENUMV(pfRGB30);
    ENUMV(pfRGB36);
    ENUMV(pfRGB42);
    ENUMV(pfRGB48);
    ENUMV(pfRGBH);
    ENUMV(pfRGBS);
    ENUM_SIZE(VSFilterMode);
    ENUMV(fmParallel);
    ENUMV(fmParallelRequests);
    ENUMV(fmUnordered);
    ENUMV(fmFrameState);
    ENUM_SIZE(VSFilterFlags);
    ENUMV(ffGPUOutput);
    ENUM_SIZE(VSNodeResidency);
    ENUMV(nrCPU);
    ENUMV(nrGPU);
    ENUM_SIZE(VSMediaType);
    ENUMV(mtVideo);
    ENUMV(mtAudio);
    ENUM_SIZE(VSAudioChannels);
    ENUMV(acFrontLeft);
    ENUMV(acFrontRight);
    ENUMV(acFrontCenter);
    ENUMV(acLowFrequency);
    ENUMV(acBackLeft);
    ENUMV(acBackRight);
    ENUMV(acFrontLeftOFCenter);
    ENUMV(acFrontRightOFCenter);
    ENUMV(acBackCenter);
    ENUMV(acSideLeft);
    ENUMV(acSideRight);
    ENUMV(acTopCenter);
    ENUMV(acTopFrontLeft);
    ENUMV(acTopFrontCenter);
    ENUMV(acTopFrontRight);
    ENUMV(acTopBackLeft);
    ENUMV(acTopBackCenter);
    ENUMV(acTopBackRight);
    ENUMV(acStereoLeft);
    ENUMV(acStereoRight);
    ENUMV(acWideLeft);
    ENUMV(acWideRight);
    ENUMV(acSurroundDirectLeft);
    ENUMV(acSurroundDirectRight);
    ENUMV(acLowFrequency2);
    ENUM_SIZE(VSPropertyType);
    ENUMV(ptUnset);
    ENUMV(ptInt);
    ENUMV(ptFloat);
    ENUMV(ptData);
    ENUMV(ptFunction);
    ENUMV(ptVideoNode);
    ENUMV(ptAudioNode);
    ENUMV(ptVideoFrame);
    ENUMV(ptAudioFrame);
    ENUM_SIZE(VSMapPropertyError);
    ENUMV(peSuccess);
    ENUMV(peUnset);
    ENUMV(peType);
    ENUMV(peIndex);
    ENUMV(peError);
    ENUM_SIZE(VSMapAppendMode);
    ENUMV(maReplace);
    ENUMV(maAppend);
    ENUM_SIZE(VSActivationReason);
    ENUMV(arInitial);
    ENUMV(arAllFramesReady);
    ENUMV(arError);
    ENUM_SIZE(VSMessageType);
    ENUMV(mtDebug);
    ENUMV(mtInformation);
    ENUMV(mtWarning);
    ENUMV(mtCritical);
    ENUMV(mtFatal);
    ENUM_SIZE(VSCoreCreationFlags);
    ENUMV(ccfEnableGraphInspection);
    ENUMV(ccfDisableAutoLoading);
    ENUMV(ccfDisableLibraryUnloading);
    ENUMV(ccfEnableFrameRefDebug);
    ENUM_SIZE(VSPluginConfigFlags);
    ENUMV(pcModifiable);
    ENUM_SIZE(VSDataTypeHint);
    ENUMV(dtUnknown);
    ENUMV(dtBinary);
    ENUMV(dtUtf8);
    ENUM_SIZE(VSRequestPattern);
    ENUMV(rpGeneral);
    ENUMV(rpNoFrameReuse);
    ENUMV(rpStrictSpatial);
#if VAPOURSYNTH_API_MINOR >= 1
    ENUMV(rpFrameReuseLastOnly);
#endif
    ENUM_SIZE(VSCacheMode);
    ENUMV(cmAuto);
    ENUMV(cmForceDisable);
    ENUMV(cmForceEnable);
#if defined(VS_USE_LATEST_API) || defined(VS_USE_API_42)
    ENUM_SIZE(VSRange);
    ENUMV(VSC_RANGE_FULL);
    ENUMV(VSC_RANGE_LIMITED);
#else
    ENUM_SIZE(VSColorRange);
    ENUMV(VSC_RANGE_FULL);
    ENUMV(VSC_RANGE_LIMITED);
#endif
    ENUM_SIZE(VSChromaLocation);
    ENUMV(VSC_CHROMA_LEFT);
    ENUMV(VSC_CHROMA_CENTER);
    ENUMV(VSC_CHROMA_TOP_LEFT);
    ENUMV(VSC_CHROMA_TOP);
    ENUMV(VSC_CHROMA_BOTTOM_LEFT);
    ENUMV(VSC_CHROMA_BOTTOM);
    ENUM_SIZE(VSFieldBased);
    ENUMV(VSC_FIELD_PROGRESSIVE);
    ENUMV(VSC_FIELD_BOTTOM);
    ENUMV(VSC_FIELD_TOP);
    ENUM_SIZE(VSMatrixCoefficients);
    ENUMV(VSC_MATRIX_RGB);
    ENUMV(VSC_MATRIX_BT709);
    ENUMV(VSC_MATRIX_UNSPECIFIED);
    ENUMV(VSC_MATRIX_FCC);
    ENUMV(VSC_MATRIX_BT470_BG);
    ENUMV(VSC_MATRIX_ST170_M);
    ENUMV(VSC_MATRIX_ST240_M);
    ENUMV(VSC_MATRIX_YCGCO);
    ENUMV(VSC_MATRIX_BT2020_NCL);
    ENUMV(VSC_MATRIX_BT2020_CL);
    ENUMV(VSC_MATRIX_CHROMATICITY_DERIVED_NCL);
    ENUMV(VSC_MATRIX_CHROMATICITY_DERIVED_CL);
    ENUMV(VSC_MATRIX_ICTCP);
    ENUM_SIZE(VSTransferCharacteristics);
    ENUMV(VSC_TRANSFER_BT709);
    ENUMV(VSC_TRANSFER_UNSPECIFIED);
    ENUMV(VSC_TRANSFER_BT470_M);
    ENUMV(VSC_TRANSFER_BT470_BG);
    ENUMV(VSC_TRANSFER_BT601);
    ENUMV(VSC_TRANSFER_ST240_M);
    ENUMV(VSC_TRANSFER_LINEAR);
    ENUMV(VSC_TRANSFER_LOG_100);
    ENUMV(VSC_TRANSFER_LOG_316);
    ENUMV(VSC_TRANSFER_IEC_61966_2_4);
    ENUMV(VSC_TRANSFER_IEC_61966_2_1);
    ENUMV(VSC_TRANSFER_BT2020_10);
    ENUMV(VSC_TRANSFER_BT2020_12);
    ENUMV(VSC_TRANSFER_ST2084);
    ENUMV(VSC_TRANSFER_ST428);
    ENUMV(VSC_TRANSFER_ARIB_B67);
    ENUM_SIZE(VSColorPrimaries);
    ENUMV(VSC_PRIMARIES_BT709);
    ENUMV(VSC_PRIMARIES_UNSPECIFIED);
    ENUMV(VSC_PRIMARIES_BT470_M);
    ENUMV(VSC_PRIMARIES_BT470_BG);
    ENUMV(VSC_PRIMARIES_ST170_M);
    ENUMV(VSC_PRIMARIES_ST240_M);
    ENUMV(VSC_PRIMARIES_FILM);
    ENUMV(VSC_PRIMARIES_BT2020);
    ENUMV(VSC_PRIMARIES_ST428);
    ENUMV(VSC_PRIMARIES_ST431_2);
    ENUMV(VSC_PRIMARIES_ST432_1);
    ENUMV(VSC_PRIMARIES_EBU3213_E);
    ENUM_SIZE(enum VSVulkanLevel);
    ENUMV(VS_VK_GLOBAL);
    ENUMV(VS_VK_INSTANCE);
    ENUMV(VS_VK_DEVICE);
    ENUM_SIZE(enum VSVulkanRequirement);
    ENUMV(VS_VK_REQUIRED);
    ENUMV(VS_VK_OPTIONAL);
    ENUM_SIZE(VSVulkanQueueType);
    ENUMV(vqCompute);
    ENUMV(vqTransfer);
    ENUM_SIZE(VSGPUDrainResult);
    ENUMV(gdDrained);
    ENUMV(gdIncomplete);
    ENUMV(gdDeviceLost);
    ENUM_SIZE(VSGPUShaderLanguage);
    ENUMV(slGLSL);
}

/* ---- macros ---- */
static void dump_macros(void) {
    MACRO_INT(VAPOURSYNTH_API_MAJOR);
    MACRO_INT(VAPOURSYNTH_API_MINOR);
    MACRO_INT(VAPOURSYNTH_API_VERSION);
    MACRO_INT(VS_MAKE_VERSION(3, 7));
    MACRO_INT(VS_MAKE_VERSION(81, 0));
    MACRO_INT(VS_AUDIO_FRAME_SAMPLES);
    MACRO_TEXT(VS_CC);
    MACRO_TEXT(VS_EXTERN_C);
    MACRO_TEXT(VS_NOEXCEPT);
    MACRO_TEXT(VS_EXTERNAL_API(int));
    MACRO_TEXT(VS_API(int));
    MACRO_TEXT(VS_RESTRICT);
    MACRO_TEXT(VSH4_BOOLEAN_TYPE);
    MACRO_TEXT(VSH4_MANGLE_FUNCTION_NAME(name));
    printf("macrostr VSH_STD_PLUGIN_ID %s\n", VSH_STD_PLUGIN_ID);
    printf("macrostr VSH_RESIZE_PLUGIN_ID %s\n", VSH_RESIZE_PLUGIN_ID);
    printf("macrostr VSH_TEXT_PLUGIN_ID %s\n", VSH_TEXT_PLUGIN_ID);
    MACRO_INT(VSMAX(3, 5));
    MACRO_INT(VSMAX(-3, -5));
    MACRO_INT(VSMIN(3, 5));
    MACRO_INT(VSMIN(-3, -5));
    printf("macro VSMAX(NAN,1) %g\n", (double)VSMAX(NAN, 1.0));
    printf("macro VSMAX(1,NAN) %g\n", (double)VSMAX(1.0, NAN));
    printf("macro VSMIN(NAN,1) %g\n", (double)VSMIN(NAN, 1.0));
    printf("macro VSMIN(1,NAN) %g\n", (double)VSMIN(1.0, NAN));
    printf("macro VSMIN(-0,0) %g\n", (double)VSMIN(-0.0, 0.0));
    printf("macro VSMAX(-0,0) %g\n", (double)VSMAX(-0.0, 0.0));
    MACRO_INT(VS_VULKAN_API_VERSION);
    MACRO_INT(VS_GPU_IMPORT_CHARGED_AGAIN);
#ifdef VK_NO_PROTOTYPES
    printf("macro VK_NO_PROTOTYPES defined\n");
#endif
}

/* ---- helper behaviour ---- */

static uint32_t VS_CC fake_query_video_format_id(int colorFamily, int sampleType, int bitsPerSample, int subSamplingW, int subSamplingH, VSCore *core) VS_NOEXCEPT {
    (void)core;
    if (colorFamily == cfUndefined)
        return 0;
    return ((uint32_t)colorFamily << 28) | ((uint32_t)sampleType << 24) | ((uint32_t)bitsPerSample << 16) | ((uint32_t)subSamplingW << 8) | (uint32_t)subSamplingH;
}

static void dump_rational(const char *what, int64_t num, int64_t den, int64_t a, int64_t b) {
    int64_t n1 = num, d1 = den, n2 = num, d2 = den, n3 = num, d3 = den;
    HELPER(muldivRational)(&n1, &d1, a, b);
    HELPER(addRational)(&n2, &d2, a, b);
    HELPER(reduceRational)(&n3, &d3);
    printf("rational %s %lld/%lld a=%lld b=%lld muldiv=%lld/%lld add=%lld/%lld reduce=%lld/%lld\n", what,
           (long long)num, (long long)den, (long long)a, (long long)b, (long long)n1, (long long)d1,
           (long long)n2, (long long)d2, (long long)n3, (long long)d3);
}

static void dump_bitblt(const char *what, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t row_size, size_t height, int flip) {
    uint8_t src[256], dst[256];
    size_t i;
    unsigned sum = 0;
    for (i = 0; i < sizeof(src); i++) {
        src[i] = (uint8_t)(i * 7 + 3);
        dst[i] = 0xAA;
    }
    if (flip) /* negative destination stride: start at the last row */
        HELPER(bitblt)(dst + (height ? height - 1 : 0) * (size_t)(-dst_stride), dst_stride, src, src_stride, row_size, height);
    else
        HELPER(bitblt)(dst, dst_stride, src, src_stride, row_size, height);
    for (i = 0; i < sizeof(dst); i++)
        sum = sum * 31u + dst[i];
    printf("bitblt %s %u\n", what, sum);
}

static void dump_helpers(void) {
    static const int64_t ints[] = { INT64_MIN, (int64_t)INT_MIN - 1, INT_MIN, -1, 0, 1, INT_MAX, (int64_t)INT_MAX + 1, INT64_MAX };
    static const double doubles[] = { 0.0, -0.0, 1.0 / 3.0, 1e40, -1e40, 1e-50, -1e-50, 16777217.0 };
    VSVideoFormat f1, f2;
    VSVideoInfo v1, v2;
    VSAudioFormat a1, a2;
    VSAudioInfo i1, i2;
    VSAPI fake;
    size_t k;
    int w, h;

    for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
        printf("int64ToIntS %lld %d\n", (long long)ints[k], HELPER(int64ToIntS)(ints[k]));
    for (k = 0; k < sizeof(doubles) / sizeof(doubles[0]); k++) {
        float f = HELPER(doubleToFloatS)(doubles[k]);
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        printf("doubleToFloatS %g %08x\n", doubles[k], (unsigned)bits);
    }

    dump_rational("ntsc", 30000, 1001, 1, 2);
    dump_rational("double", 24, 1, 2, 1);
    dump_rational("same-den", 1, 6, 1, 6);
    dump_rational("diff-den", 1, 6, 1, 3);
    dump_rational("zero-num", 0, 5, 3, 7);
    dump_rational("zero-den", 5, 0, 2, 3);
    dump_rational("neg-num", -6, 4, 1, 1);
    dump_rational("neg-den", 6, -4, 1, 1);
    dump_rational("neg-both", -6, -4, 1, 1);
    dump_rational("neg-mul", 10, 4, -3, 9);
    dump_rational("neg-div", 10, 4, 3, -9);
    dump_rational("cancel", 1, 2, -1, 2);
    dump_rational("big", 1000000007, 998244353, 1000003, 999983);

    dump_bitblt("packed", 16, 16, 16, 8, 0);
    dump_bitblt("strided", 20, 24, 13, 7, 0);
    dump_bitblt("height0", 16, 16, 16, 0, 0);
    dump_bitblt("row0", 16, 16, 0, 5, 0);
    dump_bitblt("flip", -16, 16, 16, 8, 1);

    memset(&f1, 0, sizeof(f1));
    f1.colorFamily = cfYUV;
    f1.sampleType = stInteger;
    f1.bitsPerSample = 10;
    f1.bytesPerSample = 2;
    f1.subSamplingW = 1;
    f1.subSamplingH = 1;
    f1.numPlanes = 3;
    for (w = -3; w <= 5; w++)
        for (h = -3; h <= 5; h++)
            printf("areValidDimensions 420 %d %d %d\n", w, h, (int)HELPER(areValidDimensions)(&f1, w, h));
    f2 = f1;
    f2.subSamplingW = 2;
    f2.subSamplingH = 0;
    for (w = 0; w <= 8; w++)
        printf("areValidDimensions 411 %d 3 %d\n", w, (int)HELPER(areValidDimensions)(&f2, w, 3));

    /* isSameVideoFormat, changing one member at a time */
    for (k = 0; k < 8; k++) {
        f2 = f1;
        switch (k) {
        case 1: f2.colorFamily = cfRGB; break;
        case 2: f2.sampleType = stFloat; break;
        case 3: f2.bitsPerSample = 12; break;
        case 4: f2.bytesPerSample = 4; break;
        case 5: f2.subSamplingW = 0; break;
        case 6: f2.subSamplingH = 0; break;
        case 7: f2.numPlanes = 1; break;
        default: break;
        }
        printf("isSameVideoFormat %zu %d\n", k, (int)HELPER(isSameVideoFormat)(&f1, &f2));
    }

    memset(&v1, 0, sizeof(v1));
    v1.format = f1;
    v1.fpsNum = 30000;
    v1.fpsDen = 1001;
    v1.width = 640;
    v1.height = 480;
    v1.numFrames = 100;
    for (k = 0; k < 8; k++) {
        v2 = v1;
        switch (k) {
        case 1: v2.width = 0; break;
        case 2: v2.height = 0; break;
        case 3: v2.format.colorFamily = cfUndefined; break;
        case 4: v2.fpsNum = 25; v2.fpsDen = 1; break;
        case 5: v2.numFrames = 1; break;
        case 6: v2.format.bitsPerSample = 8; break;
        case 7: v2.width = -640; break;
        default: break;
        }
        printf("isConstantVideoFormat %zu %d\n", k, (int)HELPER(isConstantVideoFormat)(&v2));
        printf("isSameVideoInfo %zu %d\n", k, (int)HELPER(isSameVideoInfo)(&v1, &v2));
    }

    memset(&fake, 0, sizeof(fake));
    fake.queryVideoFormatID = fake_query_video_format_id;
    printf("isSameVideoPresetFormat yuv420p10 %d\n", (int)HELPER(isSameVideoPresetFormat)(pfYUV420P10, &f1, NULL, &fake));
    printf("isSameVideoPresetFormat yuv420p8 %d\n", (int)HELPER(isSameVideoPresetFormat)(pfYUV420P8, &f1, NULL, &fake));
    f2 = f1;
    f2.colorFamily = cfUndefined;
    printf("isSameVideoPresetFormat none %d\n", (int)HELPER(isSameVideoPresetFormat)(pfNone, &f2, NULL, &fake));

    memset(&a1, 0, sizeof(a1));
    a1.sampleType = stFloat;
    a1.bitsPerSample = 32;
    a1.bytesPerSample = 4;
    a1.numChannels = 2;
    a1.channelLayout = (1u << acFrontLeft) | (1u << acFrontRight);
    memset(&i1, 0, sizeof(i1));
    i1.format = a1;
    i1.sampleRate = 48000;
    i1.numSamples = 480000;
    i1.numFrames = (int)((i1.numSamples + VS_AUDIO_FRAME_SAMPLES - 1) / VS_AUDIO_FRAME_SAMPLES);
    for (k = 0; k < 8; k++) {
        i2 = i1;
        switch (k) {
        case 1: i2.format.sampleType = stInteger; break;
        case 2: i2.format.bitsPerSample = 24; break;
        case 3: i2.format.bytesPerSample = 8; break;
        case 4: i2.format.numChannels = 6; break;
        case 5: i2.format.channelLayout = 1u << acFrontCenter; break;
        case 6: i2.sampleRate = 44100; break;
        case 7: i2.numSamples = 1; i2.numFrames = 1; break;
        default: break;
        }
        a2 = i2.format;
        printf("isSameAudioFormat %zu %d\n", k, (int)HELPER(isSameAudioFormat)(&a1, &a2));
        printf("isSameAudioInfo %zu %d\n", k, (int)HELPER(isSameAudioInfo)(&i1, &i2));
    }

    printf("vsGPUDrainSafeToDestroy");
    for (w = -1; w <= 4; w++)
        printf(" %d", vsGPUDrainSafeToDestroy(w));
    printf("\n");

    {
        void *p = NULL;
        VSH_ALIGNED_MALLOC(&p, 100, 64);
        printf("VSH_ALIGNED_MALLOC 64 %d\n", p != NULL && ((uintptr_t)p % 64) == 0);
        VSH_ALIGNED_FREE(p);
#ifndef _WIN32
        p = &fake;
        VSH_ALIGNED_MALLOC(&p, 100, 3); /* not a power of two: fails, NULL */
        printf("VSH_ALIGNED_MALLOC 3 %d\n", p == NULL);
#endif
    }
#ifdef __cplusplus
    {
        int *ip = vsh::vsh_aligned_malloc<int>(64 * sizeof(int), 32);
        void *vp = vsh::vsh_aligned_malloc(100, 128);
        printf("vsh_aligned_malloc %d %d\n", ip != NULL && ((uintptr_t)ip % 32) == 0, vp != NULL && ((uintptr_t)vp % 128) == 0);
        vsh::vsh_aligned_free(ip);
        vsh::vsh_aligned_free(vp);
    }
#endif
}

/* ---- function and callback types (C++ only: C has no way to print a type) ---- */
static void dump_types(void) {
    TYPE_OF(VSGetVapourSynthAPI);
    TYPE_OF(VSPublicFunction);
    TYPE_OF(VSInitPlugin);
    TYPE_OF(VSFreeFunctionData);
    TYPE_OF(VSFilterGetFrame);
    TYPE_OF(VSFilterFree);
    TYPE_OF(VSFrameDoneCallback);
    TYPE_OF(VSLogHandler);
    TYPE_OF(VSLogHandlerFree);
    TYPE_OF(VSGPUReleaseFunc);
    TYPE_OF_EXPR("getVapourSynthAPI", getVapourSynthAPI);
    TYPE_OF_EXPR("vsGPUDrainSafeToDestroy", vsGPUDrainSafeToDestroy);
#ifdef __cplusplus
    TYPE_OF_EXPR("vsh::isConstantVideoFormat", vsh::isConstantVideoFormat);
    TYPE_OF_EXPR("vsh::isSameVideoFormat", vsh::isSameVideoFormat);
    TYPE_OF_EXPR("vsh::isSameVideoPresetFormat", vsh::isSameVideoPresetFormat);
    TYPE_OF_EXPR("vsh::isSameVideoInfo", vsh::isSameVideoInfo);
    TYPE_OF_EXPR("vsh::isSameAudioFormat", vsh::isSameAudioFormat);
    TYPE_OF_EXPR("vsh::isSameAudioInfo", vsh::isSameAudioInfo);
    TYPE_OF_EXPR("vsh::muldivRational", vsh::muldivRational);
    TYPE_OF_EXPR("vsh::reduceRational", vsh::reduceRational);
    TYPE_OF_EXPR("vsh::addRational", vsh::addRational);
    TYPE_OF_EXPR("vsh::int64ToIntS", vsh::int64ToIntS);
    TYPE_OF_EXPR("vsh::doubleToFloatS", vsh::doubleToFloatS);
    TYPE_OF_EXPR("vsh::bitblt", vsh::bitblt);
    TYPE_OF_EXPR("vsh::areValidDimensions", vsh::areValidDimensions);
    TYPE_OF_EXPR("vsh::vsh_aligned_malloc<int>", vsh::vsh_aligned_malloc<int>);
    TYPE_OF_EXPR("vsh::vsh_aligned_free", vsh::vsh_aligned_free);
#endif
}

int main(void) {
    printf("language %s\n",
#ifdef __cplusplus
           "c++"
#else
           "c"
#endif
    );
    dump_macros();
    dump_enums();
    dump_structs();
    dump_types();
    dump_helpers();
    return 0;
}
