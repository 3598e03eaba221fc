/* What vkcopy and vkcuda share: CHECK, now(), the memory type choice, and the Vulkan device they
 * measure (pick_device): the first discrete GPU, else the first device (lavapipe, where the tools
 * are built and tried). */
#ifndef VKCOPY_PICK_H
#define VKCOPY_PICK_H
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The tool's name for its messages (pick_device sets it). */
static const char *vk_tool = "vkcopy";

/* A Vulkan call that must succeed, else the tool stops, naming it. */
#define CHECK(x)                                                                               \
    do {                                                                                       \
        VkResult r_ = (x);                                                                     \
        if (r_ != VK_SUCCESS) {                                                                \
            fprintf(stderr, "%s: %s failed (%d) at line %d\n", vk_tool, #x, r_, __LINE__);    \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* Seconds on the monotonic clock. */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The picked device's memory types (pick_device fills them). */
static VkPhysicalDeviceMemoryProperties memprops;

/* The first memory type among `bits` with every flag of `want` and none of `avoid`. */
static uint32_t memtype(uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
    for (uint32_t i = 0; i < memprops.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = memprops.memoryTypes[i].propertyFlags;
        if ((bits & (1u << i)) && (f & want) == want && !(f & avoid)) return i;
    }
    return UINT32_MAX;
}

/* Picks the device; prints its name and driver version; fills memprops, and `id` (its UUID, for
 * matching a CUDA device) and `discrete` where given. */
static VkPhysicalDevice pick_device(const char *tool, VkPhysicalDeviceIDProperties *id, int *discrete) {
    vk_tool = tool;
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    app.pApplicationName = tool;
    VkInstanceCreateInfo ii = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ii.pApplicationInfo = &app;
    VkInstance inst;
    uint32_t npd = 8;
    VkPhysicalDevice pds[8];
    if (vkCreateInstance(&ii, NULL, &inst) != VK_SUCCESS || vkEnumeratePhysicalDevices(inst, &npd, pds) < 0 || !npd) {
        fprintf(stderr, "%s: no Vulkan device\n", tool);
        exit(1);
    }
    VkPhysicalDevice pd = pds[0];
    for (uint32_t i = 0; i < npd; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
            pd = pds[i];
            break;
        }
    }
    VkPhysicalDeviceIDProperties idp = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &idp;
    vkGetPhysicalDeviceProperties2(pd, &p2);
    printf("device %s, driver 0x%x\n", p2.properties.deviceName, p2.properties.driverVersion);
    vkGetPhysicalDeviceMemoryProperties(pd, &memprops);
    if (id) *id = idp;
    if (discrete) *discrete = p2.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    return pd;
}
#endif
