/* The Vulkan device vkcopy and vkcuda measure: the first discrete GPU, else the first device
 * (lavapipe, where the tools are built and tried). Prints its name and driver version; fills
 * memprops, and `id` (its UUID, for matching a CUDA device) where given. */
#ifndef VKCOPY_PICK_H
#define VKCOPY_PICK_H
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>

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

static VkPhysicalDevice pick_device(const char *tool, VkPhysicalDeviceIDProperties *id, int *discrete) {
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
