/*
 * gpu_life.h
 *		The GPU's life cycle in a backend process (gpu_life.c), as the runner
 *		uses it.  Pieces of GPU work outside the runner bracket themselves
 *		with mp_gpu_begin and mp_gpu_end (mp_run.h).
 */
#ifndef GPU_LIFE_H
#define GPU_LIFE_H

#include "mp_run.h"

/* Makes the GPU ready for this process; on failure, why in *why. */
extern mp_status mp_gpu_acquire(const char **why);

/* The GPU failed a piece of work with st: set up again at the next call,
 * or never again without a device. */
extern void mp_gpu_lost(mp_status st);

/* Why the CPU ran work that the GPU could not take, short enough for a
 * plan's line, from the reason mp_gpu_acquire gave. */
extern void mp_gpu_unavailable_note(const char *why, char *note, size_t note_size);

/* mergepath_info()'s members "gpu", "gpu_slots" and "gpu_held". */
extern void mp_describe_gpu(StringInfo json);

#endif							/* GPU_LIFE_H */
