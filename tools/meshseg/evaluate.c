/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Segmentation errors against a ground truth (Chen, Golovinskiy, Funkhouser 2009),
 * per face (not area-weighted):
 *  - Rand Index error: the share of face pairs on which the two segmentations disagree
 *    (together in one, apart in the other);
 *  - GCE / LCE (Martin et al. 2001): E(S1,S2,f) = |R(S1,f) \ R(S2,f)| / |R(S1,f)|,
 *    GCE = min(sum_f E12, sum_f E21) / n, LCE = sum_f min(E12, E21) / n. */
#include "meshseg.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int32_t a, b;
} label_pair;

static int
pair_compare (const void *pa, const void *pb)
{
  const label_pair *x = pa, *y = pb;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  return x->b < y->b ? -1 : (x->b > y->b);
}

static int
int_compare (const void *pa, const void *pb)
{
  int32_t x = *(const int32_t *) pa, y = *(const int32_t *) pb;
  return x < y ? -1 : (x > y);
}

/* Length of the run of equal entries each position of a sorted array belongs to. */
static void
run_lengths (const void *sorted, int n, size_t item, int (*cmp) (const void *, const void *),
    int32_t *run)
{
  const char *base = sorted;
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && cmp (base + (size_t) j * item, base + (size_t) i * item) == 0)
      j++;
    for (int k = i; k < j; k++)
      run[k] = j - i;
    i = j;
  }
}

/* Size of each face's segment in one labelling. */
static void
segment_sizes (const int32_t *label, int n, int32_t *sorted, int32_t *run,
    double *size_of_face)
{
  memcpy (sorted, label, sizeof (int32_t) * n);
  qsort (sorted, (size_t) n, sizeof (int32_t), int_compare);
  run_lengths (sorted, n, sizeof (int32_t), int_compare, run);
  for (int f = 0; f < n; f++) {
    int32_t *hit = bsearch (&label[f], sorted, (size_t) n, sizeof (int32_t), int_compare);
    size_of_face[f] = run[hit - sorted];
  }
}

void
ms_evaluate (const int32_t *a, const int32_t *b, int n, ms_eval *out)
{
  memset (out, 0, sizeof *out);
  if (n < 2)
    return;
  label_pair *p = malloc (sizeof *p * (size_t) n);
  int32_t *sorted = malloc (sizeof (int32_t) * (size_t) n);
  double *size_a = malloc (sizeof (double) * (size_t) n);
  double *size_b = malloc (sizeof (double) * (size_t) n);
  int32_t *run = malloc (sizeof (int32_t) * (size_t) n);
  if (!p || !sorted || !size_a || !size_b || !run) {
    free (p); free (sorted); free (size_a); free (size_b); free (run);
    out->rand_index_error = out->gce = out->lce = -1.0;
    return;
  }
  segment_sizes (a, n, sorted, run, size_a);
  segment_sizes (b, n, sorted, run, size_b);
  for (int f = 0; f < n; f++)
    p[f] = (label_pair) { a[f], b[f] };
  qsort (p, (size_t) n, sizeof *p, pair_compare);
  run_lengths (p, n, sizeof *p, pair_compare, run);
  /* pairs together: sum over segments of C(size, 2) */
  double together_a = 0, together_b = 0, together_both = 0;
  for (int f = 0; f < n; f++) {
    together_a += (size_a[f] - 1) / 2.0;   /* each face counts its partners, halved */
    together_b += (size_b[f] - 1) / 2.0;
  }
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && p[j].a == p[i].a && p[j].b == p[i].b)
      j++;
    double c = j - i;
    together_both += c * (c - 1) / 2.0;
    i = j;
  }
  double pairs = (double) n * (n - 1) / 2.0;
  out->rand_index_error = (together_a + together_b - 2.0 * together_both) / pairs;
  /* consistency errors need n_ab per face: count the face's (a, b) run */
  double e12 = 0, e21 = 0, local = 0;
  for (int f = 0; f < n; f++) {
    label_pair key = { a[f], b[f] };
    label_pair *hit = bsearch (&key, p, (size_t) n, sizeof *p, pair_compare);
    double both = run[hit - p];
    double x = (size_a[f] - both) / size_a[f], y = (size_b[f] - both) / size_b[f];
    e12 += x;
    e21 += y;
    local += x < y ? x : y;
  }
  out->gce = (e12 < e21 ? e12 : e21) / n;
  out->lce = local / n;
  free (p); free (sorted); free (size_a); free (size_b); free (run);
}
