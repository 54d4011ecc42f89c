/*
 * mp_arrays.h
 *		Shared by the SQL functions' entry points: array arguments read and
 *		checked, result arrays built.
 */
#ifndef MP_ARRAYS_H
#define MP_ARRAYS_H

#include "../run/mp_run.h"

/* arrays.c */
extern mp_type mp_type_of(Oid elemtype);
extern void mp_fetch_arg(FunctionCallInfo fcinfo, int argno, const char *fname,
						 const char *name, mp_arg *arg);
extern ArrayType *mp_new_result(Oid elemtype, int64 n, const char *fname);
extern ArrayType *mp_new_result_room(Oid elemtype, int64 room, int64 prefault,
									 const char *fname);
extern ArrayType *mp_finish_result(ArrayType *result, int64 n);
extern bool mp_result_fits(size_t elsize, int64 n);
pg_noreturn extern void mp_refuse_result(const char *fname, int64 n);

/* An array call of kind on the arguments a and b (b NULL for one array). */
static inline mp_array_call
mp_call_of(mp_array_kind kind, int variant, const mp_arg *a, const mp_arg *b)
{
	mp_array_call call = {kind, variant, a->type, a->data, a->n,
	b ? b->data : NULL, b ? b->n : 0};

	return call;
}

/* sort.c */
extern ArrayType *mp_sorted_array(const char *fname, mp_op op, const mp_arg *a);

#endif							/* MP_ARRAYS_H */
