/* Triangle meshes through Assimp's C API (OFF, OBJ, PLY and whatever else it reads).
 * Assimp keeps the file's face order (what .seg files index) but may split a file into
 * several meshes and duplicates vertices per corner for some formats: all meshes are
 * concatenated and vertices at exactly the same position are welded. */
#include "meshseg.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
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

cc_status
ms_mesh_load (const char *path, const ms_import_options *options, ms_mesh *out)
{
  memset (out, 0, sizeof *out);
  FILE *probe = fopen (path, "rb");
  if (!probe)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open", path);
  fclose (probe);
  unsigned flags = aiProcess_ValidateDataStructure;
  if (options && options->triangulate)
    flags |= aiProcess_Triangulate;
  const struct aiScene *scene = aiImportFile (path, flags);
  if (!scene)
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: cannot read a mesh: %s", path,
        aiGetErrorString ());
  cc_status st = CC_SUCCESS;
  if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: incomplete scene (corrupt file?)", path);
  else if (scene->mNumMeshes == 0)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: empty mesh (no geometry)", path);
  else
    st = copy_scene (scene, path, out);
  aiReleaseImport (scene);
  if (st == CC_SUCCESS)
    st = weld (out);
  if (st != CC_SUCCESS)
    ms_mesh_free (out);
  return st;
}
