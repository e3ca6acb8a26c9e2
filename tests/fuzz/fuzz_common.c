/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fuzz_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *
fuzz_write_file (const uint8_t *data, size_t size, const char *suffix)
{
  static char path[8][256];
  static char suffixes[8][16];
  int slot = 0;
  while (slot < 7 && suffixes[slot][0] && strcmp (suffixes[slot], suffix) != 0)
    slot++;
  snprintf (suffixes[slot], sizeof suffixes[slot], "%s", suffix);
  const char *dir = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  snprintf (path[slot], sizeof path[slot], "%s/cv-fuzz-%d%s", dir, (int) getpid (), suffix);
  FILE *f = fopen (path[slot], "wb");
  if (!f)
    abort ();   /* not the input's fault: stop loudly */
  if (size && fwrite (data, 1, size, f) != size)
    abort ();
  fclose (f);
  return path[slot];
}

char *
fuzz_string (const uint8_t *data, size_t size)
{
  char *s = malloc (size + 1);
  memcpy (s, data, size);
  s[size] = '\0';
  return s;
}
