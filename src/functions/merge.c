/*
 * merge.c
 *		gpu_merge(a, b): the stable merge of two sorted arrays.
 */
#include "postgres.h"

#include "mp_arrays.h"

/*
 * Merge two ascending arrays into one; on ties a's elements come first
 */
PG_FUNCTION_INFO_V1(mergepath_merge);
Datum
mergepath_merge(PG_FUNCTION_ARGS)
{
	mp_arg		a,
				b;
	mp_array_call call;
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, "gpu_merge", "a", &a);
	mp_fetch_arg(fcinfo, 1, "gpu_merge", "b", &b);

	call = mp_call_of(MP_ARRAY_MERGE, 0, &a, &b);
	result = mp_new_result(a.elemtype, a.n + b.n, "gpu_merge");
	if (a.n + b.n > 0)
	{
		call.out = ARR_DATA_PTR(result);
		mp_run_array("gpu_merge", MP_OP_MERGE, &call, &a, &b);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}
