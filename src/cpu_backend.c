/*
 * cpu_backend.c
 *		The CPU backend: plain C, no PostgreSQL headers.
 *
 * The fallback where there is no GPU or the input is small, and the fast twin
 * of the tests' reference.  Each operation is written once, in
 * cpu_merge_impl.h and cpu_setop_impl.h, and instantiated per element type
 * here.
 */
#include "mergepath.h"
#include "mp_order.h"

#include <string.h>

/* Outputs between two interrupt polls, and merges interleaved in a chunk. */
#define MP_CPU_CHUNK ((int64_t) 1 << 20)
#ifndef MP_CPU_LANES
#define MP_CPU_LANES 3
#endif
/* Size ratio from which a set operation gallops over the larger side. */
#define MP_CPU_GALLOP 32

#define MP_T int32_t
#define MP_U uint32_t
#define MP_LT mp_lt_int4
#define MP_NAME(x) x##_int4
#include "cpu_impl.h"

#define MP_T int64_t
#define MP_U uint64_t
#define MP_LT mp_lt_int8
#define MP_NAME(x) x##_int8
#include "cpu_impl.h"

#define MP_T float
#define MP_U uint32_t
#define MP_LT mp_lt_float4
#define MP_NAME(x) x##_float4
#include "cpu_impl.h"

#define MP_T double
#define MP_U uint64_t
#define MP_LT mp_lt_float8
#define MP_NAME(x) x##_float8
#include "cpu_impl.h"

mp_status
mp_cpu_merge(mp_type type, const void *a, int64_t na, const void *b,
			 int64_t nb, void *out, bool check_sorted, mp_poll_fn poll)
{
	switch (type)
	{
		case MP_INT4:
			return check_sorted ? merge_int4(a, na, b, nb, out, true, poll)
				: merge_int4(a, na, b, nb, out, false, poll);
		case MP_INT8:
			return check_sorted ? merge_int8(a, na, b, nb, out, true, poll)
				: merge_int8(a, na, b, nb, out, false, poll);
		case MP_FLOAT4:
			return check_sorted ? merge_float4(a, na, b, nb, out, true, poll)
				: merge_float4(a, na, b, nb, out, false, poll);
		case MP_FLOAT8:
			return check_sorted ? merge_float8(a, na, b, nb, out, true, poll)
				: merge_float8(a, na, b, nb, out, false, poll);
	}
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b,
			 int64_t nb, void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll)
{
	*nout = 0;
	switch (type)
	{
		case MP_INT4:
			return setop_int4(op, a, na, b, nb, out, nout, check_sorted, poll);
		case MP_INT8:
			return setop_int8(op, a, na, b, nb, out, nout, check_sorted, poll);
		case MP_FLOAT4:
			return setop_float4(op, a, na, b, nb, out, nout, check_sorted, poll);
		case MP_FLOAT8:
			return setop_float8(op, a, na, b, nb, out, nout, check_sorted, poll);
	}
	return MP_DEVICE_ERROR;
}

int64_t
mp_first_unsorted(mp_type type, const void *x, int64_t n)
{
	switch (type)
	{
		case MP_INT4:
			return first_unsorted_int4(x, n);
		case MP_INT8:
			return first_unsorted_int8(x, n);
		case MP_FLOAT4:
			return first_unsorted_float4(x, n);
		case MP_FLOAT8:
			return first_unsorted_float8(x, n);
	}
	return -1;
}
