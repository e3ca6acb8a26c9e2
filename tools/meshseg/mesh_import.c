/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Triangle meshes through Assimp's C API (OFF, OBJ, PLY and whatever else it reads).
 * Assimp keeps the file's face order (what .seg files index) but may split a file into
 * several meshes and duplicates vertices per corner for some formats: all meshes are
 * concatenated and vertices at exactly the same position are welded. */
#include "meshseg.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void
ms_mesh_free (ms_mesh *m)
{
  free (m->vertices);
  free (m->faces);
  memset (m, 0, sizeof *m);
}

typedef struct {
  float p[3];
  int32_t index;
} weld_entry;

static int
weld_compare (const void *pa, const void *pb)
{
  const weld_entry *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->p[i] != b->p[i])
      return a->p[i] < b->p[i] ? -1 : 1;
  return a->index - b->index;
}

/* Merges vertices with identical coordinates; rewrites the faces' indices. */
static cc_status
weld (ms_mesh *m)
{
  weld_entry *e = malloc (sizeof *e * (size_t) m->vertex_count);
  int32_t *remap = malloc (sizeof (int32_t) * (size_t) m->vertex_count);
  float (*unique)[3] = malloc (sizeof *unique * (size_t) m->vertex_count);
  if (!e || !remap || !unique) {
    free (e); free (remap); free (unique);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory welding vertices");
  }
  for (int v = 0; v < m->vertex_count; v++) {
    memcpy (e[v].p, m->vertices[v], sizeof e[v].p);
    e[v].index = v;
  }
  qsort (e, (size_t) m->vertex_count, sizeof *e, weld_compare);
  int kept = 0;
  for (int i = 0; i < m->vertex_count; i++) {
    if (i == 0 || memcmp (e[i].p, e[i - 1].p, sizeof e[i].p) != 0)
      memcpy (unique[kept++], e[i].p, sizeof e[i].p);
    remap[e[i].index] = kept - 1;
  }
  for (int f = 0; f < m->face_count; f++)
    for (int c = 0; c < 3; c++)
      m->faces[f][c] = remap[m->faces[f][c]];
  free (m->vertices);
  m->vertices = unique;
  m->vertex_count = kept;
  free (e);
  free (remap);
  return CC_SUCCESS;
}

/* The next line of f that is neither blank nor a comment, or NULL. */
static char *
off_line (FILE *f, char *buf, int size)
{
  while (fgets (buf, size, f)) {
    char *p = buf;
    while (isspace ((unsigned char) *p))
      p++;
    if (*p && *p != '#')
      return p;
  }
  return NULL;
}

/* Assimp's OFF reader clamps a face's vertex index that is out of range to the last
 * vertex (logging it, no error), so that a broken file segments "fine": the face
 * indices of an ASCII OFF file are checked here first. Anything this does not follow
 * (binary OFF, odd headers) is left to Assimp. */
static cc_status
off_check_indices (const char *path)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return CC_SUCCESS;
  char buf[4096], *p = off_line (f, buf, sizeof buf);
  char *end;
  long counts[2];
  cc_status st = CC_SUCCESS;
  size_t magic = p ? strspn (p, "STCN4") : 0;   /* OFF, COFF, NOFF, STOFF, 4OFF, ... */
  if (!p || strncmp (p + magic, "OFF", 3) || strstr (p, "BINARY"))
    goto done;
  p += magic + 3;
  while (isspace ((unsigned char) *p))
    p++;
  if (!*p && !(p = off_line (f, buf, sizeof buf)))   /* counts on the next line */
    goto done;
  counts[0] = strtol (p, &end, 10);
  counts[1] = strtol (end, &end, 10);
  if (end == p || counts[0] < 0 || counts[1] < 0)
    goto done;
  for (long v = 0; v < counts[0]; v++)
    if (!off_line (f, buf, sizeof buf))
      goto done;
  for (long face = 0; face < counts[1] && (p = off_line (f, buf, sizeof buf)); face++) {
    long corners = strtol (p, &end, 10);
    for (long c = 0; c < corners; c++) {
      char *q = end;
      long index = strtol (q, &end, 10);
      if (end == q)
        break;
      if (index < 0 || index >= counts[0]) {
        st = cc_set_error (CC_ERROR_CORRUPT_DATA,
            "%s: face %ld: vertex index %ld out of range (the file has %ld vertices)",
            path, face, index, counts[0]);
        goto done;
      }
    }
  }
done:
  fclose (f);
  return st;
}

/* Twice the area of face f. */
static double
double_area (const ms_mesh *m, int f)
{
  const float *a = m->vertices[m->faces[f][0]], *b = m->vertices[m->faces[f][1]],
      *c = m->vertices[m->faces[f][2]];
  double u[3], v[3];
  for (int i = 0; i < 3; i++) {
    u[i] = (double) b[i] - a[i];
    v[i] = (double) c[i] - a[i];
  }
  double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2],
      z = u[0] * v[1] - u[1] * v[0];
  return sqrt (x * x + y * y + z * z);
}

static cc_status
copy_scene (const struct aiScene *scene, const char *path, ms_mesh *m)
{
  long vertices = 0, faces = 0, polygons = 0, points_lines = 0;
  for (unsigned i = 0; i < scene->mNumMeshes; i++) {
    const struct aiMesh *mesh = scene->mMeshes[i];
    vertices += mesh->mNumVertices;
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
      unsigned corners = mesh->mFaces[f].mNumIndices;
      faces++;
      polygons += corners > 3;
      points_lines += corners < 3;
    }
  }
  if (faces == 0 || vertices == 0)
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: empty mesh (%ld vertices, %ld faces)",
        path, vertices, faces);
  if (polygons > 0)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED,
        "%s: not a triangle mesh: %ld of %ld faces have more than 3 corners "
        "(meshseg segments triangle meshes; --triangulate splits them)", path, polygons, faces);
  if (points_lines > 0)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED,
        "%s: %ld of %ld primitives are points or lines, not triangles", path, points_lines,
        faces);
  if (faces > CC_APSP_MAX_NODES)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s: %ld faces (at most %d)", path, faces,
        CC_APSP_MAX_NODES);
  m->vertices = malloc (sizeof *m->vertices * (size_t) vertices);
  m->faces = malloc (sizeof *m->faces * (size_t) faces);
  if (!m->vertices || !m->faces) {
    ms_mesh_free (m);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  int vbase = 0, fi = 0;
  for (unsigned i = 0; i < scene->mNumMeshes; i++) {
    const struct aiMesh *mesh = scene->mMeshes[i];
    for (unsigned v = 0; v < mesh->mNumVertices; v++) {
      const struct aiVector3D *p = &mesh->mVertices[v];
      if (!isfinite (p->x) || !isfinite (p->y) || !isfinite (p->z)) {
        ms_mesh_free (m);
        return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: vertex %u is not finite", path, v);
      }
      m->vertices[vbase + v][0] = p->x;
      m->vertices[vbase + v][1] = p->y;
      m->vertices[vbase + v][2] = p->z;
    }
    for (unsigned f = 0; f < mesh->mNumFaces; f++, fi++)
      for (int c = 0; c < 3; c++)
        m->faces[fi][c] = vbase + (int32_t) mesh->mFaces[f].mIndices[c];
    vbase += (int) mesh->mNumVertices;
  }
  m->vertex_count = vbase;
  m->face_count = fi;
  return CC_SUCCESS;
}

/* ---------------------------------------------------------------- header pre-check
 * Assimp allocates what a header declares before it reads the data: an OFF file of 30
 * bytes declaring 10^9 vertices and faces took 18 GB before anything failed, and 10^8
 * 2.7 GB and 3.5 s. The counts of OFF and PLY headers are checked against the file's
 * size first: each declared vertex, face or element item takes at least a few bytes,
 * so a header that declares more than the file can hold is refused. */

/* Bytes an ASCII OFF vertex takes at least ("0 0 0\n"), and a face (its corner count
 * and a separator). */
#define OFF_MIN_VERTEX_BYTES 6
#define OFF_MIN_FACE_BYTES 2
/* A PLY header longer than this is refused (Assimp 5.2 looped forever on a header
 * without end_header: tests/fuzz/known/assimp-ply-hang). */
#define PLY_MAX_HEADER 65536

/* Bytes one value of a PLY scalar type takes in a binary file; 0 for an unknown type. */
static int
ply_type_size (const char *t)
{
  static const struct { const char *name; int size; } types[] = {
    { "char", 1 }, { "uchar", 1 }, { "int8", 1 }, { "uint8", 1 },
    { "short", 2 }, { "ushort", 2 }, { "int16", 2 }, { "uint16", 2 },
    { "int", 4 }, { "uint", 4 }, { "int32", 4 }, { "uint32", 4 },
    { "float", 4 }, { "float32", 4 }, { "double", 8 }, { "float64", 8 },
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (!strcmp (t, types[i].name))
      return types[i].size;
  return 0;
}

/* A count of a header: decimal digits only, at most 10^15 (more can be no file). */
static bool
header_count (const char *s, char **end, double *out)
{
  while (*s == ' ' || *s == '\t')
    s++;
  if (!isdigit ((unsigned char) *s))
    return false;
  double v = 0;
  for (; isdigit ((unsigned char) *s); s++)
    if ((v = v * 10 + (*s - '0')) > 1e15)
      return false;
  *end = (char *) s;
  *out = v;
  return true;
}

static cc_status
too_large (const char *path, const char *what, double need, long long size)
{
  return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: the header declares %s: at least %.0f "
      "bytes of data, but the file has %lld", path, what, need, size);
}

/* An OFF count that header_count did not take: digits over 10^15 are refused (Assimp
 * reads a count modulo 2^32: 2^52 + 10^8 became 10^8, 2.7 GB); anything else is left
 * to Assimp, which refuses what is not a number. */
static cc_status
off_bad_count (const char *path, const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  if (!isdigit ((unsigned char) *s))
    return CC_SUCCESS;
  return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: the header declares a count over 10^15",
      path);
}

/* ASCII OFF: "[ST][C][N][4]OFF" then "V F [E]" (on the magic's line or the next
 * non-comment lines, F may be on the line after V). Binary OFF and anything unusual
 * is left to Assimp. */
static cc_status
off_check_counts (const char *path, FILE *f, long long size)
{
  char buf[4096], *p = off_line (f, buf, sizeof buf), *end;
  size_t magic = p ? strspn (p, "STCN4") : 0;
  if (!p || strncmp (p + magic, "OFF", 3) || strstr (p, "BINARY"))
    return CC_SUCCESS;
  p += magic + 3;
  while (isspace ((unsigned char) *p))
    p++;
  if (!*p && !(p = off_line (f, buf, sizeof buf)))
    return CC_SUCCESS;   /* no counts: Assimp says so */
  double vertices, faces;
  if (!header_count (p, &end, &vertices))
    return off_bad_count (path, p);
  /* Assimp takes the face count from the next token, on a later line too ("V\nF":
   * 10^9 of each took 18 GB, as on one line) */
  while (isspace ((unsigned char) *end))
    end++;
  if (!*end && !(end = off_line (f, buf, sizeof buf)))
    return CC_SUCCESS;
  if (!header_count (end, &end, &faces))
    return off_bad_count (path, end);
  long here = ftell (f);
  double need = vertices * OFF_MIN_VERTEX_BYTES + faces * OFF_MIN_FACE_BYTES;
  if (here < 0 || need > (double) (size - here) + 1) {
    char what[128];
    snprintf (what, sizeof what, "%.0f vertices and %.0f faces", vertices, faces);
    return too_large (path, what, need, size - (here < 0 ? 0 : here));
  }
  return CC_SUCCESS;
}

/* PLY: the header must end (end_header) within PLY_MAX_HEADER bytes, and its elements'
 * counts times the least bytes an item takes (ASCII: two a property, a value and a
 * separator; binary: the sizes of its scalars and list counts; at least one) must fit
 * in the rest of the file. */
static cc_status
ply_check_counts (const char *path, FILE *f, long long size)
{
  char line[1024];
  if (!fgets (line, sizeof line, f) || strncmp (line, "ply", 3) != 0)
    return CC_SUCCESS;
  bool binary = false, ended = false;
  double need = 0, count = 0, item = 0;   /* the element being declared */
  while (ftell (f) < PLY_MAX_HEADER && fgets (line, sizeof line, f)) {
    char word[32], type[32], count_type[32];
    char *end;
    if (strncmp (line, "end_header", 10) == 0 && (line[10] == '\n' || line[10] == '\r'
            || line[10] == '\0' || line[10] == ' ')) {
      ended = true;
      break;
    }
    if (sscanf (line, "%31s", word) != 1)
      continue;
    if (!strcmp (word, "format")) {
      binary = strstr (line, "binary") != NULL;
    } else if (!strcmp (word, "element")) {
      need += count * (item > 1 ? item : 1);
      item = 0;
      char *q = line + 7;
      while (*q == ' ' || *q == '\t')
        q++;
      while (*q && !isspace ((unsigned char) *q))
        q++;   /* the element's name */
      if (!header_count (q, &end, &count))
        return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: PLY header: \"%.60s\" has no "
            "count (or more than 10^15)", path, strtok (line, "\r\n"));
    } else if (!strcmp (word, "property")) {
      if (sscanf (line, "property list %31s %31s", count_type, type) == 2)
        item += binary ? (ply_type_size (count_type) ? ply_type_size (count_type) : 1) : 2;
      else if (sscanf (line, "property %31s", type) == 1)
        item += binary ? (ply_type_size (type) ? ply_type_size (type) : 1) : 2;
    }
  }
  if (!ended)
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: PLY header without end_header (in the "
        "first %d bytes)", path, PLY_MAX_HEADER);
  need += count * (item > 1 ? item : 1);
  long here = ftell (f);
  if (here < 0 || need > (double) (size - here) + 1) {
    return too_large (path, "elements", need, size - (here < 0 ? 0 : here));
  }
  return CC_SUCCESS;
}

cc_status
ms_mesh_precheck (const char *path)
{
  struct stat sb;
  if (stat (path, &sb) != 0)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  if (!S_ISREG (sb.st_mode))
    return cc_set_error (CC_ERROR_IO, "%s: not a regular file", path);
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  cc_status st = ply_check_counts (path, f, (long long) sb.st_size);
  if (st == CC_SUCCESS && fseek (f, 0, SEEK_SET) == 0)
    st = off_check_counts (path, f, (long long) sb.st_size);
  fclose (f);
  return st;
}

cc_status
ms_mesh_load (const char *path, const ms_import_options *options, ms_mesh *out)
{
  memset (out, 0, sizeof *out);
  cc_status st = ms_mesh_precheck (path);
  if (st == CC_SUCCESS)
    st = off_check_indices (path);
  if (st != CC_SUCCESS)
    return st;
  unsigned flags = aiProcess_ValidateDataStructure;
  if (options && options->triangulate)
    flags |= aiProcess_Triangulate;
  const struct aiScene *scene = aiImportFile (path, flags);
  if (!scene)
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: cannot read a mesh: %s", path,
        aiGetErrorString ());
  if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: incomplete scene (corrupt file?)", path);
  else if (scene->mNumMeshes == 0)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: empty mesh (no geometry)", path);
  else
    st = copy_scene (scene, path, out);
  aiReleaseImport (scene);
  if (st == CC_SUCCESS)
    st = weld (out);
  if (st == CC_SUCCESS) {
    int flat = 0;
    for (int f = 0; f < out->face_count; f++)
      flat += !(double_area (out, f) > 0.0);
    if (flat == out->face_count)
      st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: all %d faces have zero area", path,
          flat);
  }
  if (st != CC_SUCCESS)
    ms_mesh_free (out);
  return st;
}
