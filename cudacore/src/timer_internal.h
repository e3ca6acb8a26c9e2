/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between timer.c and kernels/timer.cu. */
#ifndef CUDACORE_TIMER_INTERNAL_H
#define CUDACORE_TIMER_INTERNAL_H

#include "cc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Two CUDA events behind opaque pointers. */
cc_status cc_cuda_events_create (void **start, void **stop);
void cc_cuda_events_destroy (void *start, void *stop);
cc_status cc_cuda_event_record (cc_stream stream, void *event);
cc_status cc_cuda_events_elapsed_ms (void *start, void *stop, float *ms);

#ifdef __cplusplus
}
#endif
#endif
