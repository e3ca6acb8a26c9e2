/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* meshseg's mesh import: Assimp reads OFF / OBJ / PLY (the first byte picks which
 * extension the file gets), then our welding and checks (ms_mesh_load) and the dual
 * graph built on what they accept (ms_dual_build, with and without non-manifold
 * edges allowed). */
#include "fuzz_common.h"
#include "meshseg.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  static const char *ext[] = { ".off", ".obj", ".ply" };
  const char *path = fuzz_write_file (data + 1, size - 1, ext[data[0] % 3]);
  ms_import_options opt = { .triangulate = (data[0] & 4) != 0,
    .allow_nonmanifold = (data[0] & 8) != 0 };
  ms_mesh mesh;
  if (ms_mesh_load (path, &opt, &mesh) != CC_SUCCESS)
    return 0;
  if (mesh.face_count <= 20000) {   /* the dual graph of huge meshes is only slow */
    ms_dual dual;
    ms_dual_params p = { .alpha = 0.5f, .convex_eta = 0.2f };
    if (ms_dual_build (&mesh, &p, opt.allow_nonmanifold, &dual) == CC_SUCCESS)
      ms_dual_free (&dual);
  }
  ms_mesh_free (&mesh);
  return 0;
}
