/*
 * sort.c
 *		gpu_sort: an array in PostgreSQL's order, stable; gpu_unique: a
 *		sorted array with its repeated keys dropped.
 */
#include "postgres.h"

#include "mp_arrays.h"

/* A new array of a's elements in ascending order, on the chosen backend. */
ArrayType *
mp_sorted_array(const char *fname, mp_op op, const mp_arg *a)
{
	mp_array_call call = mp_call_of(MP_ARRAY_SORT, 0, a, NULL);
	ArrayType  *result;

	if (a->n == 0)
		return construct_empty_array(a->elemtype);
	result = mp_new_result(a->elemtype, a->n, fname);
	call.out = ARR_DATA_PTR(result);
	mp_run_array(fname, op, &call, a, NULL);
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

/* The first element of each run of equal keys of the sorted a */
PG_FUNCTION_INFO_V1(mergepath_unique);
Datum
mergepath_unique(PG_FUNCTION_ARGS)
{
	mp_arg		a;
	mp_array_call call;
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, "gpu_unique", "a", &a);
	call = mp_call_of(MP_ARRAY_UNIQUE, 0, &a, NULL);
	if (a.n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(a.elemtype));
	result = mp_new_result_room(a.elemtype, a.n, 0, "gpu_unique");
	call.out = ARR_DATA_PTR(result);
	mp_run_array("gpu_unique", MP_OP_UNIQUE, &call, &a, NULL);
	PG_RETURN_ARRAYTYPE_P(mp_finish_result(result, call.nout));
}
