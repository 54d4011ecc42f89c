/*
 * setops.c
 *		gpu_intersect, gpu_union, gpu_except, gpu_symdiff: multiset operations
 *		on two sorted arrays, with SQL's ALL meaning.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "mp_arrays.h"

/*
 * The result's length is known only afterwards: the backend writes into
 * room for the largest possible result, which is then cut to length.  Where
 * that room passes an array's limits (a union of two big arrays) but the
 * result itself may not, the backend writes into scratch memory instead.
 */
static Datum
run_setop(FunctionCallInfo fcinfo, mp_setop op, const char *fname)
{
	mp_arg		a,
				b;
	mp_array_call call;
	int64		room,
				least;
	size_t		elsize;
	ArrayType  *result;

	mp_fetch_arg(fcinfo, 0, fname, "a", &a);
	mp_fetch_arg(fcinfo, 1, fname, "b", &b);
	call = mp_call_of(MP_ARRAY_SETOP, op, &a, &b);
	room = mp_setop_capacity(op, a.n, b.n);
	least = mp_setop_minimum(op, a.n, b.n);
	elsize = mp_type_size(a.type);

	if (a.n + b.n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(a.elemtype));
	if (!mp_result_fits(elsize, least))
		mp_refuse_result(fname, least);

	if (mp_result_fits(elsize, room))
	{
		result = mp_new_result_room(a.elemtype, room, least, fname);
		call.out = room > 0 ? ARR_DATA_PTR(result) : NULL;
		mp_run_array(fname, MP_OP_SETOP, &call, &a, &b);
		result = mp_finish_result(result, call.nout);
	}
	else
	{
		void	   *scratch = palloc_extended((Size) room * elsize, MCXT_ALLOC_HUGE);

		call.out = scratch;
		mp_run_array(fname, MP_OP_SETOP, &call, &a, &b);
		if (!mp_result_fits(elsize, call.nout))
			mp_refuse_result(fname, call.nout);
		result = mp_new_result(a.elemtype, call.nout, fname);
		if (call.nout > 0)
			memcpy(ARR_DATA_PTR(result), scratch, (Size) call.nout * elsize);
		pfree(scratch);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}

/* min(m, n) copies of a key that a holds m times and b n times */
PG_FUNCTION_INFO_V1(mergepath_intersect);
Datum
mergepath_intersect(PG_FUNCTION_ARGS)
{
	return run_setop(fcinfo, MP_INTERSECT, "gpu_intersect");
}

/* max(m, n) copies */
PG_FUNCTION_INFO_V1(mergepath_union);
Datum
mergepath_union(PG_FUNCTION_ARGS)
{
	return run_setop(fcinfo, MP_UNION, "gpu_union");
}

/* max(m - n, 0) copies */
PG_FUNCTION_INFO_V1(mergepath_except);
Datum
mergepath_except(PG_FUNCTION_ARGS)
{
	return run_setop(fcinfo, MP_EXCEPT, "gpu_except");
}

/* |m - n| copies */
PG_FUNCTION_INFO_V1(mergepath_symdiff);
Datum
mergepath_symdiff(PG_FUNCTION_ARGS)
{
	return run_setop(fcinfo, MP_SYMDIFF, "gpu_symdiff");
}
