/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_test_skip.h"
#include <cudacore/cc_core.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The record file: made (and unlinked at once) by the first record or by
 * cv_test_skip_begin, opened O_APPEND so that the case processes' lines never
 * overlap; forked cases inherit the descriptor, exec'd programs do not. */
static int record_fd = -1;

static int
record_file (void)
{
  if (record_fd >= 0)
    return record_fd;
  const char *base = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  char path[512];
  snprintf (path, sizeof path, "%s/cv-test-skips-XXXXXX", base);
  int fd = mkstemp (path);
  if (fd < 0) {
    perror ("cv-test: cannot make the skip record file");
    return -1;
  }
  unlink (path);
  fcntl (fd, F_SETFL, O_APPEND);
  fcntl (fd, F_SETFD, FD_CLOEXEC);
  record_fd = fd;
  return fd;
}

/* One line: kind (W whole case, P part, N not registered), reason, what (its tabs
 * and newlines made spaces). */
static void
write_record (char kind, const char *what, const char *reason)
{
  char clean[512], line[1024];
  snprintf (clean, sizeof clean, "%s", what ? what : "");
  for (char *c = clean; *c; c++)
    if (*c == '\n' || *c == '\t')
      *c = ' ';
  int n = snprintf (line, sizeof line, "%c\t%s\t%s\n", kind, reason, clean);
  if (n < 0 || (size_t) n >= sizeof line)
    n = snprintf (line, sizeof line, "%c\t%s\t\n", kind, reason);
  int fd = record_file ();
  if (fd < 0 || write (fd, line, (size_t) n) != n)
    fprintf (stderr, "cv-test: could not record the skip of %s\n", clean);
}

void
cv_test_skip_record (const char *what, const char *reason, int whole)
{
  printf ("SKIP %s%s: %s\n", whole ? "" : "part of the case: ", what ? what : "", reason);
  fflush (stdout);
  write_record (whole ? 'W' : 'P', what, reason);
}

void
cv_test_skip_cases (int n, const char *what, const char *reason)
{
  printf ("SKIP %d cases not built: %s: %s\n", n, what ? what : "", reason);
  fflush (stdout);
  for (int i = 0; i < n; i++)
    write_record ('N', what, reason);
}

const char *
cv_test_gpu_missing (void)
{
  if (cc_cuda_device_count () > 0)
    return NULL;
  return cc_built_with_cuda () ? CV_SKIP_NO_DEVICE : CV_SKIP_NO_CUDA_BUILD;
}

int
cv_test_skip_begin (void)
{
  return record_file () >= 0 ? 0 : -1;
}

/* Counts of one kind of record by reason, in the order the reasons first came. */
typedef struct {
  int n;
  int n_reasons;
  char reason[16][128];
  int count[16];
} tally;

static void
tally_add (tally *t, const char *reason)
{
  t->n++;
  for (int i = 0; i < t->n_reasons; i++)
    if (strcmp (t->reason[i], reason) == 0) {
      t->count[i]++;
      return;
    }
  int i = t->n_reasons < 16 ? t->n_reasons++ : 15;
  snprintf (t->reason[i], sizeof t->reason[i], "%s", i == 15 ? "other" : reason);
  t->count[i]++;
}

static void
tally_print (const tally *t)
{
  printf (" (");
  for (int i = 0; i < t->n_reasons; i++)
    printf ("%s%d %s", i ? ", " : "", t->count[i], t->reason[i]);
  printf (")");
}

int
cv_test_skip_finish (const char *name, int n_run, int n_failed)
{
  tally whole, part;
  memset (&whole, 0, sizeof whole);
  memset (&part, 0, sizeof part);
  int n_unregistered = 0;
  if (record_fd >= 0) {
    off_t size = lseek (record_fd, 0, SEEK_END);
    char *text = malloc ((size_t) (size > 0 ? size : 0) + 1);
    ssize_t got = text && size > 0 ? pread (record_fd, text, (size_t) size, 0) : 0;
    if (text) {
      text[got > 0 ? got : 0] = 0;
      for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n")) {
        char reason[128] = "";
        const char *r = line + 2, *tab = strchr (r, '\t');
        size_t len = tab ? (size_t) (tab - r) : strlen (r);
        snprintf (reason, sizeof reason, "%.*s", (int) len, r);
        if (line[0] == 'P')
          tally_add (&part, reason);
        else {
          tally_add (&whole, reason);
          n_unregistered += line[0] == 'N';
        }
      }
    }
    free (text);
    close (record_fd);
    record_fd = -1;
  }
  int total = n_run + n_unregistered;
  printf ("cv-test %s: %d of %d cases skipped", name, whole.n, total);
  if (whole.n)
    tally_print (&whole);
  if (part.n) {
    printf ("; %d %s skipped", part.n, part.n == 1 ? "part of a case" : "parts of cases");
    tally_print (&part);
  }
  if (n_failed)
    printf ("; %d failed", n_failed);
  printf ("\n");
  fflush (stdout);
  if (n_failed)
    return EXIT_FAILURE;
  return whole.n >= total ? 77 : EXIT_SUCCESS;
}

const char *
cv_test_skip_program_name (const char *argv0)
{
  static char name[256];
  const char *base = argv0 ? strrchr (argv0, '/') : NULL;
  base = base ? base + 1 : (argv0 ? argv0 : "?");
  if (strncmp (base, "test-", 5) == 0)
    base += 5;
  const char *row = getenv ("CK_RUN_CASE");
  if (row && *row)
    snprintf (name, sizeof name, "%s-%s", base, row);
  else
    snprintf (name, sizeof name, "%s", base);
  return name;
}
