/*
 * reference.h
 *		The tests' oracle: PostgreSQL's order written as plain comparisons,
 *		independently of mp_order.h's keys, and the textbook merge and
 *		multiset operations.
 */
#ifndef REFERENCE_H
#define REFERENCE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mergepath.h"

/* -1, 0, 1 as PostgreSQL's btree comparison of two elements at p and q */
static inline int
ref_cmp(mp_type type, const void *p, const void *q)
{
	switch (type)
	{
		case MP_INT4:
			{
				int32_t		x = *(const int32_t *) p,
							y = *(const int32_t *) q;

				return (x > y) - (x < y);
			}
		case MP_INT8:
			{
				int64_t		x = *(const int64_t *) p,
							y = *(const int64_t *) q;

				return (x > y) - (x < y);
			}
		case MP_FLOAT4:
		case MP_FLOAT8:
			{
				double		x = type == MP_FLOAT4 ? *(const float *) p : *(const double *) p;
				double		y = type == MP_FLOAT4 ? *(const float *) q : *(const double *) q;

				if (isnan(x))
					return isnan(y) ? 0 : 1;
				if (isnan(y))
					return -1;
				return (x > y) - (x < y);
			}
	}
	return 0;
}

/* The textbook stable merge: take from b only when b's element is smaller. */
static inline void
ref_merge(mp_type type, const void *a, int64_t na, const void *b, int64_t nb, void *out)
{
	size_t		sz = mp_type_size(type);
	const char *pa = a,
			   *pb = b;
	char	   *po = out;
	int64_t		i = 0,
				j = 0;

	while (i < na || j < nb)
	{
		if (j < nb && (i == na || ref_cmp(type, pb + j * sz, pa + i * sz) < 0))
			memcpy(po, pb + sz * j++, sz);
		else
			memcpy(po, pa + sz * i++, sz);
		po += sz;
	}
}

/*
 * The textbook multiset operations, as C++'s std::set_intersection,
 * set_union, set_difference and set_symmetric_difference write them:
 * returns the number of elements written to out.
 */
static inline int64_t
ref_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
		  void *out)
{
	size_t		sz = mp_type_size(type);
	const char *pa = a,
			   *pb = b;
	char	   *po = out;
	int64_t		i = 0,
				j = 0,
				o = 0;

	while (i < na && j < nb)
	{
		int			c = ref_cmp(type, pa + i * sz, pb + j * sz);

		if (c < 0)
		{
			if (op != MP_INTERSECT)
				memcpy(po + sz * o++, pa + i * sz, sz);
			i++;
		}
		else if (c > 0)
		{
			if (op == MP_UNION || op == MP_SYMDIFF)
				memcpy(po + sz * o++, pb + j * sz, sz);
			j++;
		}
		else
		{
			if (op == MP_INTERSECT || op == MP_UNION)
				memcpy(po + sz * o++, pa + i * sz, sz);
			i++;
			j++;
		}
	}
	for (; i < na && op != MP_INTERSECT; i++)
		memcpy(po + sz * o++, pa + i * sz, sz);
	for (; j < nb && (op == MP_UNION || op == MP_SYMDIFF); j++)
		memcpy(po + sz * o++, pb + j * sz, sz);
	return o;
}

/* Index of the first element less than its predecessor, or -1. */
static inline int64_t
ref_first_unsorted(mp_type type, const void *x, int64_t n)
{
	size_t		sz = mp_type_size(type);

	for (int64_t i = 1; i < n; i++)
		if (ref_cmp(type, (const char *) x + i * sz, (const char *) x + (i - 1) * sz) < 0)
			return i;
	return -1;
}

#endif							/* REFERENCE_H */
