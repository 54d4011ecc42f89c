/*
 * sort.c
 *		gpu_sort: an array in PostgreSQL's order, stable; gpu_unique: a
 *		sorted array with its repeated keys dropped.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "mp_arrays.h"

/*
 * call->a is the input, call->out room for all of it.  The scratch array's
 * pages are faulted in ahead, as the result's are: a radix pass writes it
 * all.
 */
static mp_status
cpu_sort(mp_call *call, bool check_sorted, mp_poll_fn poll)
{
	const mp_arg *a = call->a;
	Size		nbytes = (Size) a->n * mp_type_size(a->type);
	void	   *scratch = palloc_extended(nbytes, MCXT_ALLOC_HUGE);
	mp_status	st;

	mp_prefault(scratch, nbytes);
	st = mp_cpu_sort(a->type, a->data, a->n, call->out, scratch, poll);

	pfree(scratch);
	call->nout = a->n;
	return st;
}

static mp_status
gpu_sort(mp_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	call->nout = call->a->n;
	return mp_gpu_sort(call->a->type, call->a->data, call->a->n, call->out, poll, timing);
}

/* A new array of a's elements in ascending order, on the chosen backend. */
ArrayType *
mp_sorted_array(const char *fname, mp_op op, const mp_arg *a)
{
	mp_call		call = {a, NULL};
	ArrayType  *result;

	if (a->n == 0)
		return construct_empty_array(a->elemtype);
	result = mp_new_result(a->elemtype, a->n, fname);
	call.out = ARR_DATA_PTR(result);
	mp_run_pair(fname, op, &call, cpu_sort, gpu_sort);
	return result;
}

/* The elements of a, ascending and stable */
PG_FUNCTION_INFO_V1(mergepath_sort);
Datum
mergepath_sort(PG_FUNCTION_ARGS)
{
	mp_arg		a;

	mp_fetch_arg(fcinfo, 0, "gpu_sort", "a", &a);
	PG_RETURN_ARRAYTYPE_P(mp_sorted_array("gpu_sort", MP_OP_SORT, &a));
}

static mp_status
cpu_unique(mp_call *call, bool check_sorted, mp_poll_fn poll)
{
	return mp_cpu_unique(call->a->type, call->a->data, call->a->n, call->out, &call->nout,
						 check_sorted, poll);
}

static mp_status
gpu_unique(mp_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	return mp_gpu_unique(call->a->type, call->a->data, call->a->n, call->out, &call->nout,
						 check_sorted, poll, timing);
}

/* The first element of each run of equal keys of the sorted a */
PG_FUNCTION_INFO_V1(mergepath_unique);
Datum
mergepath_unique(PG_FUNCTION_ARGS)
{
	mp_arg		a;
	mp_call		call = {&a, NULL};
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, "gpu_unique", "a", &a);
	if (a.n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(a.elemtype));
	result = mp_new_result_room(a.elemtype, a.n, 0, "gpu_unique");
	call.out = ARR_DATA_PTR(result);
	mp_run_pair("gpu_unique", MP_OP_UNIQUE, &call, cpu_unique, gpu_unique);
	PG_RETURN_ARRAYTYPE_P(mp_finish_result(result, call.nout));
}
