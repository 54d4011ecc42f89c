/*
 * search.c
 *		gpu_lower_bound, gpu_upper_bound, gpu_count: vectorized sorted search;
 *		gpu_semijoin, gpu_antijoin: a's elements that b holds, or lacks.
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "mp_arrays.h"

static Datum
run_search(FunctionCallInfo fcinfo, mp_search kind, const char *fname)
{
	mp_arg		hay,
				needles;
	mp_array_call call;
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, fname, "haystack", &hay);
	mp_fetch_arg(fcinfo, 1, fname, "needles", &needles);

	call = mp_call_of(MP_ARRAY_SEARCH, kind, &hay, &needles);
	result = mp_new_result(INT4OID, needles.n, fname);
	if (hay.n + needles.n > 0)
	{
		call.out = needles.n > 0 ? ARR_DATA_PTR(result) : NULL;
		mp_run_array(fname, MP_OP_SEARCH, &call, &hay, &needles);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}

/* For each needle, the number of haystack elements below it */
PG_FUNCTION_INFO_V1(mergepath_lower_bound);
Datum
mergepath_lower_bound(PG_FUNCTION_ARGS)
{
	return run_search(fcinfo, MP_LOWER_BOUND, "gpu_lower_bound");
}

/* For each needle, the number of haystack elements not above it */
PG_FUNCTION_INFO_V1(mergepath_upper_bound);
Datum
mergepath_upper_bound(PG_FUNCTION_ARGS)
{
	return run_search(fcinfo, MP_UPPER_BOUND, "gpu_upper_bound");
}

/* For each needle, the number of haystack elements equal to it */
PG_FUNCTION_INFO_V1(mergepath_count);
Datum
mergepath_count(PG_FUNCTION_ARGS)
{
	return run_search(fcinfo, MP_COUNT, "gpu_count");
}

static Datum
run_semijoin(FunctionCallInfo fcinfo, bool anti, const char *fname)
{
	mp_arg		a,
				b;
	mp_array_call call;
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, fname, "a", &a);
	mp_fetch_arg(fcinfo, 1, fname, "b", &b);

	call = mp_call_of(MP_ARRAY_SEMIJOIN, anti, &a, &b);
	/* a's own size always fits: room for all of it, cut to length after */
	result = mp_new_result_room(a.elemtype, a.n, 0, fname);
	if (a.n + b.n > 0)
	{
		call.out = a.n > 0 ? ARR_DATA_PTR(result) : NULL;
		mp_run_array(fname, MP_OP_SEMIJOIN, &call, &a, &b);
		result = mp_finish_result(result, call.nout);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}

/* The elements of a that occur in b, with a's multiplicity */
PG_FUNCTION_INFO_V1(mergepath_semijoin);
Datum
mergepath_semijoin(PG_FUNCTION_ARGS)
{
	return run_semijoin(fcinfo, false, "gpu_semijoin");
}

/* The elements of a that do not occur in b */
PG_FUNCTION_INFO_V1(mergepath_antijoin);
Datum
mergepath_antijoin(PG_FUNCTION_ARGS)
{
	return run_semijoin(fcinfo, true, "gpu_antijoin");
}
