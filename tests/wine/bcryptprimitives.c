/*
 * A stand-in for Windows' bcryptprimitives.dll for Wine 8 (Debian 12's), which lacks it: Rust's
 * standard library on Windows takes its random numbers (HashMap keys) from ProcessPrng there, so
 * every Rust DLL or program imports it. scripts/setup-windows.sh builds this into the Wine prefix
 * the tests use; real Windows (8 and later) and newer Wine have their own, and it is never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
