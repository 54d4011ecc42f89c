/*
 * merge.c
 *		gpu_merge(a, b): the stable merge of two sorted arrays.
 */
#include "postgres.h"

#include "mp_arrays.h"

static mp_status
cpu_merge(mp_call *call, bool check_sorted, mp_poll_fn poll)
{
	call->nout = call->a->n + call->b->n;
	return mp_cpu_merge(call->a->type, call->a->data, call->a->n, call->b->data, call->b->n,
						call->out, check_sorted, poll);
}

static mp_status
gpu_merge(mp_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	call->nout = call->a->n + call->b->n;
	return mp_gpu_merge(call->a->type, call->a->data, call->a->n, call->b->data, call->b->n,
						call->out, check_sorted, poll, timing);
}

/*
 * Merge two ascending arrays into one; on ties a's elements come first
 */
PG_FUNCTION_INFO_V1(mergepath_merge);
Datum
mergepath_merge(PG_FUNCTION_ARGS)
{
	mp_arg		a,
				b;
	mp_call		call = {&a, &b};
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, "gpu_merge", "a", &a);
	mp_fetch_arg(fcinfo, 1, "gpu_merge", "b", &b);

	result = mp_new_result(a.elemtype, a.n + b.n, "gpu_merge");
	if (a.n + b.n > 0)
	{
		call.out = ARR_DATA_PTR(result);
		mp_run_pair("gpu_merge", MP_OP_MERGE, &call, cpu_merge, gpu_merge);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}
