/* The GPU test programs' one way to fail: a line "error: ..." on standard output (the Rust side
 * reads it), then an immediate exit, since a failed check can leave GPU work and core threads in a
 * state no clean-up should wait on. */
#ifndef VSVK_TESTS_GPU_DIE_H
#define VSVK_TESTS_GPU_DIE_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("error: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    _exit(1);
}

#endif
