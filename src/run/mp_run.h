/*
 * mp_run.h
 *		The run of an operation on a backend, as the SQL functions and the
 *		executor nodes call it: the settings, the backend choice, the GPU's
 *		life cycle around a piece of work, and the errors of a run.
 */
#ifndef MP_RUN_H
#define MP_RUN_H

#include "postgres.h"
#include "../pg_compat.h"

#include <time.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/array.h"

#include "../api/mp_api.h"

/* mergepath.device */
typedef enum mp_device_setting
{
	MP_DEVICE_AUTO,
	MP_DEVICE_CPU,
	MP_DEVICE_GPU
} mp_device_setting;

/* mergepath.merge_runs */
typedef enum mp_merge_runs_setting
{
	MP_RUNS_AUTO,
	MP_RUNS_MERGE,
	MP_RUNS_SORT
} mp_merge_runs_setting;

extern int	mp_device;
extern int	mp_merge_runs;
extern int	mp_gpu_min_elements;
extern bool mp_check_sorted;
extern int	mp_max_gpu_backends;
extern int	mp_gpu_ordinal;
extern int	mp_gpu_pool_max_mb;
extern int	mp_gpu_idle_release;
extern int	mp_gpu_sort_mem_mb;

/* A validated one-dimensional array argument without nulls. */
typedef struct mp_arg
{
	const char *name;			/* the SQL argument's name, for messages */
	Oid			elemtype;
	mp_type		type;
	const void *data;
	int64		n;
	int			lbound;
} mp_arg;

/* errors.c */
pg_noreturn extern void mp_report_unsorted(const char *fname, const mp_arg *a,
										   const mp_arg *b);

/*
 * The operations, each with its own threshold for the GPU under
 * mergepath.device = auto (runner.c).
 */
typedef enum mp_op
{
	MP_OP_MERGE,
	MP_OP_SETOP,
	MP_OP_SEARCH,
	MP_OP_SEMIJOIN,
	MP_OP_JOIN,
	MP_OP_SORT,
	MP_OP_UNIQUE,
	MP_OP_SORT_AGG,
	MP_OP_SORT_BY_KEY_AGG,
	MP_OP_MERGE_AGG,
	MP_OP_NODES,
	MP_OP_NODE_RUN,				/* a sort node's run, once it has spilled */
	MP_OP_NODE_MERGE,			/* a batch of a sort node's merge of runs */
	MP_OP_NODE_SPILL,			/* a sort node's rows kept on the GPU beyond its memory */
	MP_OP_JOIN_PART,			/* a parallel join's inner sort or outer batch */
	MP_N_OPS
} mp_op;

/*
 * runner.c.  Every function's fname is the SQL function's or the node's
 * name, a string literal: the last call keeps the pointer.
 */

/*
 * A piece of work of any shape, as mp_run runs it: on the GPU (its timings
 * added to *timing) or on the CPU backend.  ctx is the work's own.
 */
typedef mp_status (*mp_work_fn) (void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing);

/* Which backend ran a piece of work, why not the GPU, and its timings. */
typedef struct mp_run_report
{
	bool		used_gpu;
	char		note[320];
	mp_gpu_timing gpu;
	double		total_ms;
} mp_run_report;

extern mp_status mp_run(const char *fname, mp_op op, int64 n, void *ctx, mp_work_fn work,
						mp_run_report *report);
extern bool mp_run_array(const char *fname, mp_op op, mp_array_call *call, const mp_arg *a,
						 const mp_arg *b);
extern mp_status mp_run_batch(const char *fname, mp_op op, mp_batch_call *call,
							  int64 elements, mp_run_report *report);
extern mp_status mp_ran_batch_on_cpu(const char *fname, mp_op op, const mp_batch_call *call,
									 int64 elements, mp_status st, double ms,
									 mp_run_report *report);
extern int	mp_gpu_threshold(mp_op op);
extern bool mp_gpu_chosen(mp_op op, int64 n, char *note, size_t note_size);
extern bool mp_batch_gpu_chosen(mp_op op, int64 elements, int64 npairs);
extern bool mp_gpu_expected(mp_op op, int64 n);
extern bool mp_gpu_plannable(void);
extern void mp_extend_last_call(double ms, const mp_gpu_timing *more);
extern bool mp_poll(void);
extern bool mp_gpu_hold(const char *fname, char *note, size_t note_size);
pg_noreturn extern void mp_gpu_held_failed(const char *fname, mp_status st);
extern void mp_describe_backends(StringInfo json);

/* gpu_life.c */
extern bool mp_gpu_known_unusable(void);
extern bool mp_gpu_may_be_present(void);
extern bool mp_gpu_is_ready(void);

/*
 * Brackets a piece of GPU work that spans several backend calls (mp_run
 * brackets its own): nothing of the GPU is trimmed or released in between.
 * mp_gpu_end must run also on error (PG_FINALLY).
 */
extern void mp_gpu_begin(void);
extern void mp_gpu_end(void);

/* A monotonic clock, in milliseconds. */
static inline double
mp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

#endif							/* MP_RUN_H */
