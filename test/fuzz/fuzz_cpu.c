/*
 * fuzz_cpu.c
 *		A libFuzzer harness over the CPU backend's C API: every operation on
 *		arrays made from the fuzzer's bytes, each result checked against
 *		test/reference.h, under AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 * The input's first bytes choose the operation, the element type, whether
 * the check is on, whether the inputs are sorted first (most interesting
 * cases are sorted), whether the elements come from a small alphabet
 * (duplicates; for floats -0, +0, NaNs, infinities, a subnormal), and where
 * the elements split between the two arguments (a tiny one beside a large
 * one takes the galloping paths).  Then:
 *   - sorted inputs: the result is the reference's, bit for bit;
 *   - unsorted inputs with the check on: MP_UNSORTED;
 *   - unsorted inputs with the check off ("unspecified result"): still a
 *     result of the documented shape: MP_OK, lengths within their bounds,
 *     ranks within [0, n], counts never negative, and exactly as many join
 *     pairs as counted, each within both arrays.
 * Any other outcome aborts, which libFuzzer reports with the input.
 *
 *   make fuzz && test/fuzz/fuzz_cpu -max_total_time=60 test/fuzz/corpus
 */
#include <stdio.h>
#include <stdlib.h>

#include "reference.h"

#define REQUIRE(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_cpu: %s:%d: %s fails (op %d, type %d, check %d, na %lld, nb %lld)\n", \
					__FILE__, __LINE__, #cond, op, (int) type, (int) check, \
					(long long) na, (long long) nb); \
			abort(); \
		} \
	} while (0)

enum
{
	OP_MERGE,
	OP_INTERSECT,
	OP_UNION,
	OP_EXCEPT,
	OP_SYMDIFF,
	OP_LOWER,
	OP_UPPER,
	OP_COUNT,
	OP_SEMI,
	OP_ANTI,
	OP_JOIN,
	OP_SORT,
	OP_UNIQUE,
	N_OPS
};

static const mp_type types[] = {MP_INT4, MP_INT8, MP_FLOAT4, MP_FLOAT8};

/* Element k of the small alphabet, as type. */
static void
alphabet(mp_type type, unsigned k, void *out)
{
	static const double f[8] = {-INFINITY, -1.0, -0.0, 0.0, 1e-310, 2.5, INFINITY, NAN};

	k %= 8;
	switch (type)
	{
		case MP_INT4:
			*(int32_t *) out = k == 0 ? INT32_MIN : k == 7 ? INT32_MAX : (int32_t) k - 3;
			break;
		case MP_INT8:
			*(int64_t *) out = k == 0 ? INT64_MIN : k == 7 ? INT64_MAX : (int64_t) k - 3;
			break;
		case MP_FLOAT4:
			*(float *) out = (float) f[k];
			break;
		case MP_FLOAT8:
			*(double *) out = f[k];
			break;
	}
}

/* A stable insertion sort by ref_cmp: the reference sort for small n. */
static void
insertion_sort(mp_type type, void *x, int64_t n)
{
	size_t		sz = mp_type_size(type);
	char		tmp[8];

	for (int64_t i = 1; i < n; i++)
	{
		int64_t		j = i;

		memcpy(tmp, (char *) x + i * sz, sz);
		while (j > 0 && ref_cmp(type, (char *) x + (j - 1) * sz, tmp) > 0)
		{
			memcpy((char *) x + j * sz, (char *) x + (j - 1) * sz, sz);
			j--;
		}
		memcpy((char *) x + j * sz, tmp, sz);
	}
}

/* An allocation of exactly n elements (at least one byte), so that ASan
 * sees a write one past its end. */
static void *
exact(int64_t n, size_t sz)
{
	void	   *p = malloc(n > 0 ? (size_t) n * sz : 1);

	if (p == NULL)
		abort();
	return p;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;

	const int	op = data[0] % N_OPS;
	const mp_type type = types[data[1] & 3];
	const bool	check = (data[1] & 4) == 0;
	const bool	sort_first = (data[1] & 24) != 0;	/* three times in four */
	const bool	small = (data[1] & 32) != 0;
	const unsigned split = data[2] | (unsigned) data[3] << 8;
	const size_t sz = mp_type_size(type);
	const uint8_t *p = data + 4;
	const int64_t n = small ? (int64_t) (size - 4) : (int64_t) ((size - 4) / sz);
	const int64_t na = n * split / 65536,
				nb = n - na;
	char	   *a = exact(na, sz),
			   *b = exact(nb, sz);
	mp_status	st;

	for (int64_t i = 0; i < n; i++)
	{
		char	   *dst = i < na ? a + i * sz : b + (i - na) * sz;

		if (small)
			alphabet(type, p[i], dst);
		else
			memcpy(dst, p + i * sz, sz);
	}
	if (sort_first)
	{
		insertion_sort(type, a, na);
		insertion_sort(type, b, nb);
	}

	/* Which inputs the operation requires ascending, and whether they are. */
	bool		a_sorted = ref_first_unsorted(type, a, na) < 0,
				b_sorted = ref_first_unsorted(type, b, nb) < 0;
	bool		sorted = op == OP_SORT ? true : op == OP_UNIQUE ? a_sorted : a_sorted && b_sorted;

	switch (op)
	{
		case OP_MERGE:
			{
				char	   *out = exact(na + nb, sz),
						   *ref = exact(na + nb, sz);

				st = mp_cpu_merge(type, a, na, b, nb, out, check, NULL);
				if (sorted)
				{
					REQUIRE(st == MP_OK);
					ref_merge(type, a, na, b, nb, ref);
					REQUIRE(memcmp(out, ref, (na + nb) * sz) == 0);
				}
				else
					REQUIRE(st == (check ? MP_UNSORTED : MP_OK));
				free(out);
				free(ref);
				break;
			}
		case OP_INTERSECT:
		case OP_UNION:
		case OP_EXCEPT:
		case OP_SYMDIFF:
			{
				mp_setop	sop = (mp_setop) (MP_INTERSECT + (op - OP_INTERSECT));
				int64_t		cap = mp_setop_capacity(sop, na, nb),
							nout = -1;
				char	   *out = exact(cap, sz),
						   *ref = exact(cap, sz);

				st = mp_cpu_setop(sop, type, a, na, b, nb, out, &nout, check, NULL);
				if (sorted)
				{
					int64_t		nref = ref_setop(sop, type, a, na, b, nb, ref);

					REQUIRE(st == MP_OK);
					REQUIRE(nout == nref);
					REQUIRE(memcmp(out, ref, nref * sz) == 0);
				}
				else if (check)
					REQUIRE(st == MP_UNSORTED);
				else
				{
					REQUIRE(st == MP_OK);
					REQUIRE(nout >= 0 && nout <= cap);
				}
				free(out);
				free(ref);
				break;
			}
		case OP_LOWER:
		case OP_UPPER:
		case OP_COUNT:
			{
				mp_search	kind = op == OP_LOWER ? MP_LOWER_BOUND : op == OP_UPPER ? MP_UPPER_BOUND : MP_COUNT;
				int32_t    *out = exact(nb, sizeof(int32_t)),
						   *ref = exact(nb, sizeof(int32_t));

				/* a is the haystack, b the needles */
				st = mp_cpu_search(kind, type, a, na, b, nb, out, check, NULL);
				if (sorted)
				{
					REQUIRE(st == MP_OK);
					ref_search(kind, type, a, na, b, nb, ref);
					REQUIRE(memcmp(out, ref, nb * sizeof(int32_t)) == 0);
				}
				else if (check)
					REQUIRE(st == MP_UNSORTED);
				else
				{
					REQUIRE(st == MP_OK);
					for (int64_t j = 0; j < nb; j++)
						REQUIRE(out[j] >= 0 && out[j] <= na);
				}
				free(out);
				free(ref);
				break;
			}
		case OP_SEMI:
		case OP_ANTI:
			{
				int64_t		nout = -1;
				char	   *out = exact(na, sz),
						   *ref = exact(na, sz);

				st = mp_cpu_semijoin(op == OP_ANTI, type, a, na, b, nb, out, &nout, check, NULL);
				if (sorted)
				{
					int64_t		nref = ref_semijoin(op == OP_ANTI, type, a, na, b, nb, ref);

					REQUIRE(st == MP_OK);
					REQUIRE(nout == nref);
					REQUIRE(memcmp(out, ref, nref * sz) == 0);
				}
				else if (check)
					REQUIRE(st == MP_UNSORTED);
				else
				{
					REQUIRE(st == MP_OK);
					REQUIRE(nout >= 0 && nout <= na);
				}
				free(out);
				free(ref);
				break;
			}
		case OP_JOIN:
			{
				int64_t		npairs = -1,
							got = 0,
							nref = sorted ? ref_join(type, a, na, b, nb, NULL, NULL) : 0;
				int32_t    *ra = exact(nref, sizeof(int32_t)),
						   *rb = exact(nref, sizeof(int32_t));
				mp_join_cursor cur = {0};
				int32_t		pa[7],
							pb[7];
				int64_t		k;

				st = mp_cpu_join_count(type, a, na, b, nb, &npairs, check, NULL);
				if (!sorted && check)
				{
					REQUIRE(st == MP_UNSORTED);
					free(ra);
					free(rb);
					break;
				}
				REQUIRE(st == MP_OK);
				REQUIRE(npairs >= 0);
				if (sorted)
				{
					ref_join(type, a, na, b, nb, ra, rb);
					REQUIRE(npairs == nref);
				}
				/* in pieces of 7, as the SQL function takes them in pieces */
				while ((k = mp_cpu_join_next(type, a, na, b, nb, &cur, pa, pb, 7)) > 0)
				{
					REQUIRE(got + k <= npairs);
					for (int64_t q = 0; q < k; q++)
					{
						REQUIRE(pa[q] >= 0 && pa[q] < na && pb[q] >= 0 && pb[q] < nb);
						if (sorted)
							REQUIRE(pa[q] == ra[got + q] && pb[q] == rb[got + q]);
					}
					got += k;
				}
				REQUIRE(got == npairs);
				free(ra);
				free(rb);
				break;
			}
		case OP_SORT:
			{
				char	   *in = exact(n, sz),
						   *out = exact(n, sz),
						   *scratch = exact(n, sz),
						   *ref = exact(n, sz);

				memcpy(in, a, na * sz);
				memcpy(in + na * sz, b, nb * sz);
				memcpy(ref, in, n * sz);
				insertion_sort(type, ref, n);
				REQUIRE(mp_cpu_sort(type, in, n, out, scratch, NULL) == MP_OK);
				REQUIRE(memcmp(out, ref, n * sz) == 0);
				free(in);
				free(out);
				free(scratch);
				free(ref);
				break;
			}
		case OP_UNIQUE:
			{
				int64_t		nout = -1,
							nref = 0;
				char	   *out = exact(na, sz),
						   *ref = exact(na, sz);

				st = mp_cpu_unique(type, a, na, out, &nout, check, NULL);
				for (int64_t i = 0; i < na; i++)
					if (i == 0 || ref_cmp(type, a + i * sz, a + (i - 1) * sz) != 0)
						memcpy(ref + nref++ * sz, a + i * sz, sz);
				if (sorted)
				{
					REQUIRE(st == MP_OK);
					REQUIRE(nout == nref);
					REQUIRE(memcmp(out, ref, nref * sz) == 0);
				}
				else if (check)
					REQUIRE(st == MP_UNSORTED);
				else
				{
					REQUIRE(st == MP_OK);
					REQUIRE(nout >= (na > 0) && nout <= na);
				}
				free(out);
				free(ref);
				break;
			}
	}
	free(a);
	free(b);
	return 0;
}
