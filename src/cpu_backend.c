/*
 * cpu_backend.c
 *		The CPU backend: plain C, no PostgreSQL headers.
 *
 * The fallback where there is no GPU or the input is small, and the fast twin
 * of the tests' reference.  Each operation is written once, in
 * cpu_merge_impl.h, cpu_setop_impl.h, cpu_search_impl.h, cpu_sort_impl.h and
 * cpu_kway_impl.h, and instantiated per element type here.
 */
#include "mergepath.h"
#include "mp_order.h"

#include <stdlib.h>
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
#define MP_KEY mp_key_int4
#define MP_C uint64_t
#define MP_NAME(x) x##_int4
#include "cpu_impl.h"

#define MP_T int64_t
#define MP_U uint64_t
#define MP_LT mp_lt_int8
#define MP_KEY mp_key_int8
#define MP_C unsigned __int128
#define MP_NAME(x) x##_int8
#include "cpu_impl.h"

#define MP_T float
#define MP_U uint32_t
#define MP_LT mp_lt_float4
#define MP_KEY mp_key_float4
#define MP_C uint64_t
#define MP_NAME(x) x##_float4
#include "cpu_impl.h"

#define MP_T double
#define MP_U uint64_t
#define MP_LT mp_lt_float8
#define MP_KEY mp_key_float8
#define MP_C unsigned __int128
#define MP_NAME(x) x##_float8
#include "cpu_impl.h"

/* Unsigned keys (the aggregates' folded sort keys), for the k-way merge */
#define MP_IDENTITY(x) (x)
#define MP_T uint32_t
#define MP_KEY MP_IDENTITY
#define MP_C uint64_t
#define MP_NAME(x) x##_u32
#include "cpu_kway_impl.h"
#undef MP_T
#undef MP_KEY
#undef MP_C
#undef MP_NAME

#define MP_T uint64_t
#define MP_KEY MP_IDENTITY
#define MP_C unsigned __int128
#define MP_NAME(x) x##_u64
#include "cpu_kway_impl.h"
#undef MP_T
#undef MP_KEY
#undef MP_C
#undef MP_NAME

/* Below this many 4-byte elements (twice as many 8-byte ones) the sort
 * merges instead: bench_cpu --sort's crossover with 11-bit digits, 128 to
 * 192 elements. */
int64_t		mp_cpu_sort_small = 160;

/* One function per element type, picked by type; the rest of the call as is. */
#define MP_BY_TYPE(fn, type, ...) \
	switch (type) \
	{ \
		case MP_INT4: \
			return fn##_int4(__VA_ARGS__); \
		case MP_INT8: \
			return fn##_int8(__VA_ARGS__); \
		case MP_FLOAT4: \
			return fn##_float4(__VA_ARGS__); \
		case MP_FLOAT8: \
			return fn##_float8(__VA_ARGS__); \
	}

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
	MP_BY_TYPE(setop, type, op, a, na, b, nb, out, nout, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh, const void *needles,
			  int64_t nn, int32_t *out, bool check_sorted, mp_poll_fn poll)
{
	MP_BY_TYPE(search, type, kind, hay, nh, needles, nn, out, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll)
{
	*nout = 0;
	MP_BY_TYPE(semijoin, type, anti, a, na, b, nb, out, nout, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_join_count(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				  int64_t *npairs, bool check_sorted, mp_poll_fn poll)
{
	*npairs = 0;
	MP_BY_TYPE(join_count, type, a, na, b, nb, npairs, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

int64_t
mp_cpu_join_next(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				 mp_join_cursor *cursor, int32_t *a_pos, int32_t *b_pos, int64_t cap)
{
	MP_BY_TYPE(join_next, type, a, na, b, nb, cursor, a_pos, b_pos, cap);
	return 0;
}

int64_t
mp_first_unsorted(mp_type type, const void *x, int64_t n)
{
	MP_BY_TYPE(first_unsorted, type, x, n);
	return -1;
}

mp_status
mp_cpu_sort(mp_type type, const void *in, int64_t n, void *out, void *scratch, mp_poll_fn poll)
{
	MP_BY_TYPE(sort, type, in, n, out, scratch, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_unique(mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
			  bool check_sorted, mp_poll_fn poll)
{
	MP_BY_TYPE(unique, type, x, n, out, nout, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

int64_t
mp_copy_checked(mp_type type, const void *x, int64_t n, void *out)
{
	MP_BY_TYPE(copy_checked, type, x, n, out);
	return -1;
}

mp_status
mp_cpu_merge_runs(mp_type type, const void *in, const int64_t *bounds, int64_t k, void *out,
				  mp_poll_fn poll)
{
	if (k == 0)
		return MP_OK;
	MP_BY_TYPE(kway_merge, type, in, bounds, k, out, NULL, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_merge_key_runs(int word_bytes, const void *keys, const int64_t *bounds, int64_t k,
					  uint32_t *perm, mp_poll_fn poll)
{
	if (k == 0)
		return MP_OK;
	if (word_bytes == 4)
		return kway_merge_u32(keys, bounds, k, NULL, perm, poll);
	return kway_merge_u64(keys, bounds, k, NULL, perm, poll);
}
