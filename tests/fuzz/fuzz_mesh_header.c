/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meshseg's header pre-check (ms_mesh_precheck): OFF and PLY header counts against the
 * file's size, PLY headers that never end; without Assimp, so it runs fast. Oracle: a
 * refusal says why; an accepted ASCII OFF file whose counts this harness can read
 * ("OFF\nV F", decimal digits) holds at least 6 bytes a vertex and 2 a face after its header. */
#include "fuzz_common.h"
#include "meshseg.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write_file (data, size, ".mesh");
  cc_status st = ms_mesh_precheck (path);
  if (st != CC_SUCCESS) {
    if (!cc_last_error ()[0])
      abort ();
    return 0;
  }
  if (size > 4 && size < 4096 && memcmp (data, "OFF\n", 4) == 0) {
    char text[4096];
    memcpy (text, data, size);
    text[size] = '\0';
    char vs[21], fs[21];
    int used = 0;
    /* decimal digits only, as the pre-check and Assimp read a count ("4+5" is no count) */
    if (sscanf (text + 4, "%20[0-9] %20[0-9]%n", vs, fs, &used) == 2 && strlen (text) == size) {
      unsigned long long v = strtoull (vs, NULL, 10), f = strtoull (fs, NULL, 10);
      const char *eol = strchr (text + 4 + used, '\n');
      size_t header = eol ? (size_t) (eol - text) + 1 : size;
      if ((double) v * 6 + (double) f * 2 > (double) (size - header) + 1)
        abort ();               /* counts the file cannot hold were let through */
    }
  }
  return 0;
}
