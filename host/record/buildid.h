/*
 * buildid.h - a file's GNU build-id, read at record time without libelf
 * (the recorder runs on the target: eqprof-record links no elfutils).
 */
#ifndef RECORD_BUILDID_H
#define RECORD_BUILDID_H

#include <stddef.h>

/* The build-id of the ELF file at path as lowercase hex in hex[size]: 0, or
 * -1 when it is not an ELF file or has no GNU build-id note. */
int rec_build_id(const char *path, char *hex, size_t size);

/* The same for an ELF image in memory (len bytes). */
int rec_build_id_mem(const unsigned char *img, size_t len, char *hex, size_t size);

#endif
