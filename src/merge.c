/*
 * merge.c
 *		gpu_merge(a, b): the stable merge of two sorted arrays.
 */
#include "postgres.h"

#include "mp_glue.h"

/*
 * Merge two ascending arrays into one; on ties a's elements come first
 */
PG_FUNCTION_INFO_V1(mergepath_merge);
Datum
mergepath_merge(PG_FUNCTION_ARGS)
{
	mp_arg		a,
				b;
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, "a", &a);
	mp_fetch_arg(fcinfo, 1, "b", &b);

	result = mp_new_result(a.elemtype, a.n + b.n, "gpu_merge");
	if (a.n + b.n > 0)
		mp_run_pair("gpu_merge", &a, &b, ARR_DATA_PTR(result), a.n + b.n,
					mp_cpu_merge, mp_gpu_merge);
	PG_RETURN_ARRAYTYPE_P(result);
}
