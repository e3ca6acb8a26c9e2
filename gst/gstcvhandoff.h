/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How a frame in CUDA memory passes from the stream that wrote it to the next one.
 *
 * One rule, decided from the memory and the allocation query, never from the peer:
 *  - GStreamer 1.24+, memory with a GstCudaStream (cudaupload's, nvh264dec's, any
 *    nvcodec pool's): nvcodec's contract. The producer orders the memory's stream
 *    after its own on the device and flags the memory
 *    GST_CUDA_MEMORY_TRANSFER_NEED_SYNC; a consumer that reads it on its own stream
 *    makes that stream wait for the memory's stream on the device (an event, no host
 *    block); nvcodec consumers (cudadownload, encoders) call gst_cuda_memory_sync ().
 *  - Otherwise (GStreamer 1.22, whose GstCudaMemory has no stream, or memory without
 *    one): a consumer that honours it answers the allocation query with
 *    GST_CV_FENCE_META_API_TYPE; `tee` keeps that answer only when every branch
 *    gives it and `queue` forwards it. The producer then leaves a fence (a CUDA event
 *    on its stream) in the memory's qdata and does not wait; consumers make their
 *    stream wait for it on the device. When downstream did not give the answer, the
 *    producer waits for its stream on the host before the buffer leaves it (what
 *    nvcodec 1.22 elements do for every buffer).
 * All functions run with the memory's GstCudaContext pushed. */
#ifndef GST_CV_HANDOFF_H
#define GST_CV_HANDOFF_H
#include <gst/gst.h>
#include <cudacore/cc_core.h>

G_BEGIN_DECLS

/* The allocation-query answer "I wait for a fence left in CUDA memory's qdata"
 * (a meta API with no meta: only its presence in the query matters). */
#define GST_CV_FENCE_META_API_TYPE (gst_cv_fence_meta_api_get_type ())
GType gst_cv_fence_meta_api_get_type (void);

/* Orders the consumer's stream (cc_context_stream of `core`: an element's context
 * has adopted the element's stream) after the work that wrote `mem`: its
 * GstCudaStream when flagged NEED_SYNC (1.24+), and a fence left in its qdata. Does
 * not block the host.
 * [in] core: the consumer's CUDA context; [in] mem: a GstCudaMemory.
 * Returns CC_SUCCESS or the cudacore status of the failed wait (CC_ERROR_CUDA). */
cc_status gst_cv_cuda_memory_wait (cc_context * core, GstMemory * mem);

/* Hands `mem` on after the work queued so far on the producer's stream
 * (cc_context_stream of `core`), by the rule above: device ordering with NEED_SYNC
 * (1.24+, memory with a stream); a fence in its qdata when `downstream_waits`
 * (downstream answered GST_CV_FENCE_META_API_TYPE); else a host wait for the stream.
 * [in] core: the producer's CUDA context; [in] cuda_context: the GstCudaContext of
 * `mem` (the fence keeps a reference); [in,out] mem: a GstCudaMemory (its flags and
 * qdata change); [in] downstream_waits: what the allocation query answered.
 * Returns CC_SUCCESS or the cudacore status of the failed record or wait. Waits on
 * the host only in the third case. */
cc_status gst_cv_cuda_memory_hand_off (cc_context * core, gpointer cuda_context,
    GstMemory * mem, gboolean downstream_waits);

G_END_DECLS
#endif
