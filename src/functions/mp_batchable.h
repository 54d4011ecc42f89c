/*
 * mp_batchable.h
 *		What the batch node (src/nodes/batch_*.c) needs of the SQL
 *		functions: which of them a batch can run, and their arguments and
 *		results handled as each function handles its own.
 */
#ifndef MP_BATCHABLE_H
#define MP_BATCHABLE_H

#include "mp_arrays.h"

/* A SQL function that runs as an mp_batch_call of this kind. */
typedef struct mp_batch_fn
{
	const char *fname;			/* the SQL name, for messages and EXPLAIN */
	mp_array_kind kind;
	int			variant;
	mp_op		op;				/* whose GPU threshold the batch takes */
	int			nargs;			/* 1 or 2 arrays */
} mp_batch_fn;

/* The function's batch form, or NULL when it has none. */
extern const mp_batch_fn *mp_batch_fn_of(Oid funcid);

/*
 * An argument's array as the function would take it: one dimension at
 * most, no NULL element.  False when the function would raise an error
 * about it instead (the row is then run by the function itself).
 */
extern bool mp_batch_arg_ok(ArrayType *array);

/* Elements of an array that mp_batch_arg_ok accepted. */
static inline int64
mp_batch_arg_length(ArrayType *array)
{
	return ARR_NDIM(array) == 0 ? 0 : ARR_DIMS(array)[0];
}

/*
 * A batch's result built where the batch wrote it: the bytes of an array
 * with room for `room` elements of elsize bytes, whose elements start at
 * ARR_DATA_PTR of a one-dimensional array without NULLs.  Once n of them
 * are written there, mp_batch_result_finish makes the memory the array
 * the function would return (result_elemtype: INT4OID for the searches,
 * else the arguments'), or returns false when the function would raise an
 * error about its size instead.
 */
extern Size mp_batch_result_size(size_t elsize, int64 room);
extern bool mp_batch_result_finish(ArrayType *result, Oid result_elemtype, size_t elsize,
								   int64 n);

/* Where a result's elements go in memory that mp_batch_result_size sized. */
static inline void *
mp_batch_result_data(ArrayType *result)
{
	return (char *) result + ARR_OVERHEAD_NONULLS(1);
}

#endif							/* MP_BATCHABLE_H */
