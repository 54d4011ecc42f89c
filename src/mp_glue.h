/*
 * mp_glue.h
 *		Shared by the PostgreSQL glue files of src/: argument handling,
 *		backend choice and the settings.
 */
#ifndef MP_GLUE_H
#define MP_GLUE_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/array.h"

#include "mergepath.h"

/* mergepath.device */
typedef enum mp_device_setting
{
	MP_DEVICE_AUTO,
	MP_DEVICE_CPU,
	MP_DEVICE_GPU
} mp_device_setting;

extern int	mp_device;
extern int	mp_gpu_min_elements;
extern bool mp_check_sorted;
extern int	mp_max_gpu_backends;

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

/* arrays.c */
extern void mp_fetch_arg(FunctionCallInfo fcinfo, int argno, const char *name,
						 mp_arg *arg);
extern ArrayType *mp_new_result(Oid elemtype, int64 n, const char *fname);
extern void mp_report_unsorted(const char *fname, const mp_arg *a,
							   const mp_arg *b) pg_attribute_noreturn();

/* dispatch.c */
typedef mp_status (*mp_cpu_pair_fn) (mp_type type, const void *a, int64_t na,
									 const void *b, int64_t nb, void *out,
									 bool check_sorted, mp_poll_fn poll);
typedef mp_status (*mp_gpu_pair_fn) (mp_type type, const void *a, int64_t na,
									 const void *b, int64_t nb, void *out,
									 bool check_sorted, mp_poll_fn poll,
									 mp_gpu_timing *timing);

extern void mp_run_pair(const char *fname, const mp_arg *a, const mp_arg *b,
						void *out, int64 nout, mp_cpu_pair_fn cpu,
						mp_gpu_pair_fn gpu);
extern void mp_describe_backends(StringInfo json);

#endif							/* MP_GLUE_H */
