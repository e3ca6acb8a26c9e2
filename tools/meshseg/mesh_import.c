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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A PLY file (it starts with "ply") must end its header with an end_header line within
 * the first 64 kB: Assimp 5.2's PLY reader loops forever on a header without one
 * (found by tests/fuzz/fuzz-mesh; tests/fuzz/known/assimp-ply-hang). */
static cc_status
ply_check_header (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open", path);
  char line[1024];
  cc_status st = CC_SUCCESS;
  if (fgets (line, sizeof line, f) && strncmp (line, "ply", 3) == 0) {
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: PLY header without end_header", path);
    while (ftell (f) < 65536 && fgets (line, sizeof line, f))
      if (strncmp (line, "end_header", 10) == 0 && (line[10] == '\n' || line[10] == '\r'
              || line[10] == '\0' || line[10] == ' ')) {
        st = CC_SUCCESS;
        break;
      }
  }
  fclose (f);
  return st;
}

cc_status
ms_mesh_load (const char *path, const ms_import_options *options, ms_mesh *out)
{
  memset (out, 0, sizeof *out);
  FILE *probe = fopen (path, "rb");
  if (!probe)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open", path);
  fclose (probe);
  cc_status st = off_check_indices (path);
  if (st == CC_SUCCESS)
    st = ply_check_header (path);
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
