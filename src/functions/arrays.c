/*
 * arrays.c
 *		Array arguments in, result arrays out, and the errors about them.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "mp_arrays.h"

mp_type
mp_type_of(Oid elemtype)
{
	switch (elemtype)
	{
		case INT4OID:
			return MP_INT4;
		case INT8OID:
			return MP_INT8;
		case FLOAT4OID:
			return MP_FLOAT4;
		case FLOAT8OID:
			return MP_FLOAT8;
	}
	elog(ERROR, "mergepath: unsupported array element type %u", elemtype);
	pg_unreachable();
}

/*
 * Fetch (detoasting) and check an array argument of the SQL function fname:
 * one dimension at most, no NULL element.  Any lower bound is accepted.
 */
void
mp_fetch_arg(FunctionCallInfo fcinfo, int argno, const char *fname, const char *name,
			 mp_arg *arg)
{
	ArrayType  *array = PG_GETARG_ARRAYTYPE_P(argno);
	int			ndim = ARR_NDIM(array);

	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: array must be one-dimensional", fname),
				 errdetail("Argument \"%s\" has %d dimensions.", name, ndim)));
	if (array_contains_nulls(array))
	{
		bits8	   *bitmap = ARR_NULLBITMAP(array);
		int			i = 0;

		while (bitmap[i / 8] & (1 << (i % 8)))
			i++;
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: array must not contain nulls", fname),
				 errdetail("Argument \"%s\" has a NULL element at subscript %d.", name,
						   ARR_LBOUND(array)[0] + i),
				 errhint("Remove the NULLs first, for example with array_remove(%s, NULL).",
						 name)));
	}

	arg->name = name;
	arg->elemtype = ARR_ELEMTYPE(array);
	arg->type = mp_type_of(arg->elemtype);
	arg->data = ARR_DATA_PTR(array);
	arg->n = ndim == 0 ? 0 : ARR_DIMS(array)[0];
	arg->lbound = ndim == 0 ? 1 : ARR_LBOUND(array)[0];
}

/* 54000: a result of n elements is more than PostgreSQL can hold. */
void
mp_refuse_result(const char *fname, int64 n)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s: result would have " INT64_FORMAT " elements, more than an array can hold",
					fname, n),
			 errdetail("An array holds at most %d elements and 1 GB.", (int) MaxArraySize)));
}

/* Whether an array of n elements of elsize bytes fits PostgreSQL's limits. */
bool
mp_result_fits(size_t elsize, int64 n)
{
	return n <= (int64) MaxArraySize &&
		(Size) n <= (MaxAllocSize - ARR_OVERHEAD_NONULLS(1)) / elsize;
}

/*
 * A one-dimensional array with room for `room` elements, lower bound 1,
 * data left for the caller to fill, and its first `prefault` elements'
 * pages faulted in ahead.  Refuses, before allocating, a result PostgreSQL
 * could not hold.  mp_finish_result sets the length actually used.
 */
ArrayType *
mp_new_result_room(Oid elemtype, int64 room, int64 prefault, const char *fname)
{
	size_t		elsize = mp_type_size(mp_type_of(elemtype));
	ArrayType  *result;
	Size		nbytes;

	if (room == 0)
		return construct_empty_array(elemtype);
	if (!mp_result_fits(elsize, room))
		mp_refuse_result(fname, room);

	nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) room * elsize;
	result = (ArrayType *) palloc(nbytes);
	mp_prefault(result, ARR_OVERHEAD_NONULLS(1) + (Size) prefault * elsize);
	memset(result, 0, ARR_OVERHEAD_NONULLS(1));
	SET_VARSIZE(result, nbytes);
	result->ndim = 1;
	result->dataoffset = 0;
	result->elemtype = elemtype;
	ARR_DIMS(result)[0] = (int) room;
	ARR_LBOUND(result)[0] = 1;
	return result;
}

/* A result of exactly n elements. */
ArrayType *
mp_new_result(Oid elemtype, int64 n, const char *fname)
{
	return mp_new_result_room(elemtype, n, n, fname);
}

/*
 * Cut a result made by mp_new_result_room down to its first n elements,
 * giving back the memory when much of the room went unused.
 */
ArrayType *
mp_finish_result(ArrayType *result, int64 n)
{
	size_t		elsize;
	Size		nbytes;

	if (ARR_NDIM(result) == 0 || n == ARR_DIMS(result)[0])
		return result;
	if (n == 0)
	{
		Oid			elemtype = ARR_ELEMTYPE(result);

		pfree(result);
		return construct_empty_array(elemtype);
	}
	elsize = mp_type_size(mp_type_of(ARR_ELEMTYPE(result)));
	nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * elsize;
	if (nbytes < VARSIZE(result) / 2)
		result = (ArrayType *) repalloc(result, nbytes);
	SET_VARSIZE(result, nbytes);
	ARR_DIMS(result)[0] = (int) n;
	return result;
}
