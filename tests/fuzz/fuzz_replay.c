/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A main() for a harness without libFuzzer: runs LLVMFuzzerTestOneInput on every file
 * named (folders: every file in them, in name order), so that the normal test suite
 * replays the seeds (tests/fuzz/corpus) and the inputs that once failed
 * (tests/fuzz/known) through the same code as the fuzzer, under ASan in CI. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
run_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f) {
    fprintf (stderr, "cannot open %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc (cap);
  size_t got;
  while (buf && (got = fread (buf + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap)
      buf = realloc (buf, cap *= 2);
  fclose (f);
  if (!buf)
    return 1;
  LLVMFuzzerTestOneInput (buf, n);
  free (buf);
  printf ("ok %s (%zu bytes)\n", path, n);
  return 0;
}

static int
by_name (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (int argc, char **argv)
{
  int failed = 0, runs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat (argv[i], &sb) != 0) {
      fprintf (stderr, "no such input: %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR (sb.st_mode)) {
      failed |= run_file (argv[i]);
      runs++;
      continue;
    }
    DIR *d = opendir (argv[i]);
    struct dirent *e;
    char *names[4096];
    int n = 0;
    while (d && (e = readdir (d)) && n < 4096)
      if (e->d_name[0] != '.')
        names[n++] = strdup (e->d_name);
    if (d)
      closedir (d);
    qsort (names, (size_t) n, sizeof *names, by_name);
    for (int k = 0; k < n; k++) {
      char path[4096];
      snprintf (path, sizeof path, "%s/%s", argv[i], names[k]);
      failed |= run_file (path);
      runs++;
      free (names[k]);
    }
  }
  printf ("%d inputs replayed\n", runs);
  return failed || runs == 0;
}
