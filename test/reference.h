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
#include <stdlib.h>
#include <string.h>

#include "api/mp_api.h"

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
	const char *pa = (const char *) a,
			   *pb = (const char *) b;
	char	   *po = (char *) out;
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
	const char *pa = (const char *) a,
			   *pb = (const char *) b;
	char	   *po = (char *) out;
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

/*
 * The textbook binary search: the number of x[0..n) elements before key,
 * that is below it (upper false) or not above it (upper true).
 */
static inline int64_t
ref_bound(mp_type type, const void *x, int64_t n, const void *key, bool upper)
{
	size_t		sz = mp_type_size(type);
	int64_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;
		int			c = ref_cmp(type, (const char *) x + mid * sz, key);

		if (c < 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sorted search, one binary search a needle. */
static inline void
ref_search(mp_search kind, mp_type type, const void *hay, int64_t nh, const void *needles,
		   int64_t nn, int32_t *out)
{
	size_t		sz = mp_type_size(type);

	for (int64_t j = 0; j < nn; j++)
	{
		const void *key = (const char *) needles + j * sz;
		int64_t		lo = ref_bound(type, hay, nh, key, false),
					hi = ref_bound(type, hay, nh, key, true);

		out[j] = (int32_t) (kind == MP_LOWER_BOUND ? lo : kind == MP_UPPER_BOUND ? hi : hi - lo);
	}
}

/* a's elements that b holds (anti: lacks); returns how many. */
static inline int64_t
ref_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out)
{
	size_t		sz = mp_type_size(type);
	int64_t		o = 0;

	for (int64_t i = 0; i < na; i++)
	{
		const void *key = (const char *) a + i * sz;
		bool		found = ref_bound(type, b, nb, key, true) > ref_bound(type, b, nb, key, false);

		if (found != anti)
			memcpy((char *) out + o++ * sz, key, sz);
	}
	return o;
}

/*
 * The join's pairs in order, into a_pos/b_pos when not NULL; returns how
 * many there are.
 */
static inline int64_t
ref_join(mp_type type, const void *a, int64_t na, const void *b, int64_t nb, int32_t *a_pos,
		 int32_t *b_pos)
{
	size_t		sz = mp_type_size(type);
	int64_t		o = 0;

	for (int64_t i = 0; i < na; i++)
	{
		const void *key = (const char *) a + i * sz;
		int64_t		hi = ref_bound(type, b, nb, key, true);

		for (int64_t j = ref_bound(type, b, nb, key, false); j < hi; j++, o++)
			if (a_pos != NULL)
			{
				a_pos[o] = (int32_t) i;
				b_pos[o] = (int32_t) j;
			}
	}
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

static mp_type ref_sort_type;
static const char *ref_sort_base;

static inline int
ref_sort_cmp(const void *p, const void *q)
{
	int64_t		i = *(const int64_t *) p,
				j = *(const int64_t *) q;
	size_t		sz = mp_type_size(ref_sort_type);
	int			c = ref_cmp(ref_sort_type, ref_sort_base + i * sz, ref_sort_base + j * sz);

	return c ? c : (i > j) - (i < j);
}

/* The stable sort of in[0..n) into out. */
static inline void
ref_sort(mp_type type, const void *in, int64_t n, void *out)
{
	size_t		sz = mp_type_size(type);
	int64_t    *pos = (int64_t *) malloc((n > 0 ? n : 1) * sizeof(int64_t));

	for (int64_t i = 0; i < n; i++)
		pos[i] = i;
	ref_sort_type = type;
	ref_sort_base = (const char *) in;
	qsort(pos, (size_t) n, sizeof(int64_t), ref_sort_cmp);
	for (int64_t i = 0; i < n; i++)
		memcpy((char *) out + i * sz, (const char *) in + pos[i] * sz, sz);
	free(pos);
}

/* The first of each run of equal keys; returns how many. */
static inline int64_t
ref_unique(mp_type type, const void *x, int64_t n, void *out)
{
	size_t		sz = mp_type_size(type);
	int64_t		o = 0;

	for (int64_t i = 0; i < n; i++)
		if (i == 0 || ref_cmp(type, (const char *) x + (i - 1) * sz, (const char *) x + i * sz) != 0)
			memcpy((char *) out + o++ * sz, (const char *) x + i * sz, sz);
	return o;
}

#endif							/* REFERENCE_H */
