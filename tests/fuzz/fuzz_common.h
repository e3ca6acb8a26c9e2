/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the libFuzzer harnesses: the readers take paths, so each input is written
 * to one per-process file first. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <stddef.h>
#include <stdint.h>

/* Writes data to this process's scratch file named with `suffix` (".ply", ...) and
 * returns its path (static storage; valid until the next call with that suffix). */
const char *fuzz_write_file (const uint8_t *data, size_t size, const char *suffix);
/* A NUL-terminated copy of data (free()). */
char *fuzz_string (const uint8_t *data, size_t size);
#endif
