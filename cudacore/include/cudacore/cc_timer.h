/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Timing of the work submitted on a stream, for benchmarks: CUDA events
 * on the CUDA backend (so tools need no CUDA headers), the wall clock on the CPU
 * backend. */
#ifndef CUDACORE_CC_TIMER_H
#define CUDACORE_CC_TIMER_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cc_timer cc_timer;

/* [in] ctx: not NULL, outlives the timer. [out] out: the timer (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Does not wait. */
cc_status cc_timer_create (cc_context *ctx, cc_timer **out);
/* NULL: no-op. */
void cc_timer_destroy (cc_timer *timer);
/* Records the start / stop point on `stream` (NULL: the context's); does not wait.
 * Start and stop go on the same stream to time the work between them.
 * [in,out] timer. Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA. */
cc_status cc_timer_start (cc_timer *timer, cc_stream stream);
cc_status cc_timer_stop (cc_timer *timer, cc_stream stream);
/* [in] timer. [out] ms: time between the last start and stop.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA. A host result: waits
 * for the stop point (the only call here that waits). */
cc_status cc_timer_elapsed_ms (cc_timer *timer, float *ms);
/* The monotonic wall clock in ms (the CPU backend's timer; tools time whole calls by it). */
double cc_now_ms (void);

#ifdef __cplusplus
}
#endif
#endif
