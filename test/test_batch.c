/*
 * test_batch.c
 *		Batches (mp_cpu_batch, mp_gpu_batch) against reference.h pair by
 *		pair: every kind, every element type, pair counts and sizes around
 *		the GPU tiles' edges, empty pairs (runs of them too), one giant pair
 *		among tiny ones, and unsorted pairs, whose first one the batch must
 *		name.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

/* The operations a batch runs, as (kind, variant). */
static const struct
{
	mp_array_kind kind;
	int			variant;
	const char *name;
}			ops[] = {
	{MP_ARRAY_MERGE, 0, "merge"},
	{MP_ARRAY_SETOP, MP_INTERSECT, "intersect"},
	{MP_ARRAY_SETOP, MP_UNION, "union"},
	{MP_ARRAY_SETOP, MP_EXCEPT, "except"},
	{MP_ARRAY_SETOP, MP_SYMDIFF, "symdiff"},
	{MP_ARRAY_SEARCH, MP_LOWER_BOUND, "lower_bound"},
	{MP_ARRAY_SEARCH, MP_UPPER_BOUND, "upper_bound"},
	{MP_ARRAY_SEARCH, MP_COUNT, "count"},
	{MP_ARRAY_SEMIJOIN, 0, "semijoin"},
	{MP_ARRAY_SEMIJOIN, 1, "antijoin"},
	{MP_ARRAY_SORT, 0, "sort"},
	{MP_ARRAY_UNIQUE, 0, "unique"},
};

#define NOPS ((int) (sizeof(ops) / sizeof(ops[0])))

/* Pair p's expected result into want; returns its length. */
static int64_t
ref_pair(int op, mp_type type, const char *a, int64_t na, const char *b, int64_t nb, void *want)
{
	switch (ops[op].kind)
	{
		case MP_ARRAY_MERGE:
			ref_merge(type, a, na, b, nb, want);
			return na + nb;
		case MP_ARRAY_SETOP:
			return ref_setop((mp_setop) ops[op].variant, type, a, na, b, nb, want);
		case MP_ARRAY_SEARCH:
			ref_search((mp_search) ops[op].variant, type, a, na, b, nb, want);
			return nb;
		case MP_ARRAY_SEMIJOIN:
			return ref_semijoin(ops[op].variant != 0, type, a, na, b, nb, want);
		case MP_ARRAY_SORT:
			ref_sort(type, a, na, want);
			return na;
		case MP_ARRAY_UNIQUE:
			return ref_unique(type, a, na, want);
		default:
			return 0;
	}
}

/* Elements of a pair's side: mostly small, some at the tiles' edges. */
static int64_t
pair_size(int shape, int64_t p, int64_t npairs)
{
	static const int64_t edges[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 255, 256, 257, 511, 512,
		513, 1023, 1024, 1025, 1407, 1408, 1409, 1919, 1920, 1921, 2047, 2048, 2049, 2943, 2944,
	2945, 3967, 3968, 3969, 4095, 4096, 4097, 4991, 4992, 4993};

	switch (shape)
	{
		case 0:					/* small and mixed, empty ones included */
			return rnd_below(60);
		case 1:					/* at the tiles' edges, and the sort's groups' */
			return edges[rnd_below(sizeof(edges) / sizeof(edges[0]))];
		case 2:					/* one giant pair among tiny ones */
			return p == npairs / 2 ? (quick ? 20000 : 60000) : rnd_below(4);
		case 3:					/* every pair empty */
			return 0;
		case 5:					/* runs of empty pairs among small ones, so
								 * that some start where a GPU thread's
								 * places do */
			return p % 7 < 3 ? 0 : 1 + rnd_below(40);
		default:				/* a few hundred each: the common shape */
			return 100 + rnd_below(400);
	}
}

typedef struct batch_input
{
	int64_t		npairs;
	int64_t    *a_off,
			   *b_off;
	char	   *a,
			   *b;
} batch_input;

/* Pairs of sorted sides (sort: unsorted ones, as drawn then shuffled). */
static void
make_input(batch_input *in, mp_type type, int shape, int64_t npairs, gen_kind gen, bool sort)
{
	size_t		sz = mp_type_size(type);

	in->npairs = npairs;
	in->a_off = xmalloc((npairs + 1) * sizeof(int64_t));
	in->b_off = xmalloc((npairs + 1) * sizeof(int64_t));
	in->a_off[0] = in->b_off[0] = 0;
	for (int64_t p = 0; p < npairs; p++)
	{
		in->a_off[p + 1] = in->a_off[p] + pair_size(shape, p, npairs);
		in->b_off[p + 1] = in->b_off[p] + pair_size(shape, p, npairs);
	}
	in->a = xmalloc(in->a_off[npairs] * sz + 1);
	in->b = xmalloc(in->b_off[npairs] * sz + 1);
	for (int64_t p = 0; p < npairs; p++)
	{
		int64_t		na = in->a_off[p + 1] - in->a_off[p];
		char	   *a = in->a + in->a_off[p] * sz;

		gen_sorted(type, gen, na, a);
		gen_sorted(type, gen, in->b_off[p + 1] - in->b_off[p], in->b + in->b_off[p] * sz);
		for (int64_t i = na - 1; sort && i > 0; i--)
		{
			int64_t		j = rnd_below(i + 1);
			char		t[8];

			memcpy(t, a + i * sz, sz);
			memcpy(a + i * sz, a + j * sz, sz);
			memcpy(a + j * sz, t, sz);
		}
	}
}

static void
free_input(batch_input *in)
{
	free(in->a_off);
	free(in->b_off);
	free(in->a);
	free(in->b);
}

static mp_batch_call
call_of(int op, mp_type type, const batch_input *in, void *out, int64_t *out_off)
{
	bool		one = ops[op].kind == MP_ARRAY_SORT || ops[op].kind == MP_ARRAY_UNIQUE;
	mp_batch_call call = {ops[op].kind, ops[op].variant, type, in->npairs, in->a, in->a_off,
		one ? NULL : in->b, one ? NULL : in->b_off, out, out_off, -2};

	return call;
}

/*
 * The batch's pairs apart (a_at, b_at, out_at), as a batch node lays them:
 * each side's pairs copied in reverse order into one buffer, the result
 * rooms likewise, each room 8-byte aligned and followed by guard bytes.
 */
typedef struct batch_apart
{
	char	   *a,
			   *b,
			   *out;
	const void **a_at,
			  **b_at;
	void	  **out_at;
	int64_t    *room_end;		/* where each room's guard is, in out */
} batch_apart;

#define GUARD 0x5A
#define GUARD_BYTES 8

/* Whether the guard after pair p's room is whole. */
static bool
guard_whole(const batch_apart *ap, int64_t p)
{
	for (int i = 0; i < GUARD_BYTES; i++)
		if ((unsigned char) ap->out[ap->room_end[p] + i] != GUARD)
			return false;
	return true;
}

static void
lay_apart(batch_apart *ap, mp_batch_call *call, const batch_input *in, size_t osz)
{
	size_t		sz = mp_type_size(call->type);
	int64_t		np = call->npairs;
	int64_t		room = mp_batch_room(call);
	size_t		at_a = 0,
				at_b = 0,
				at_out = 0;

	ap->a = xmalloc(in->a_off[np] * sz + 1);
	ap->b = xmalloc(in->b_off[np] * sz + 1);
	ap->out = xmalloc(room * osz + np * 16 + 1);
	ap->a_at = xmalloc((np + 1) * sizeof(void *));
	ap->b_at = xmalloc((np + 1) * sizeof(void *));
	ap->out_at = xmalloc((np + 1) * sizeof(void *));
	ap->room_end = xmalloc((np + 1) * sizeof(int64_t));
	memset(ap->out, 0xA5, room * osz + np * 16 + 1);
	for (int64_t p = np - 1; p >= 0; p--)
	{
		int64_t		na = in->a_off[p + 1] - in->a_off[p],
					nb = in->b_off[p + 1] - in->b_off[p];

		memcpy(ap->a + at_a, in->a + in->a_off[p] * sz, na * sz);
		memcpy(ap->b + at_b, in->b + in->b_off[p] * sz, nb * sz);
		ap->a_at[p] = ap->a + at_a;
		ap->b_at[p] = ap->b + at_b;
		at_a += na * sz;
		at_b += nb * sz;
		ap->out_at[p] = ap->out + at_out;
		at_out += mp_batch_pair_room(call, p) * osz;
		ap->room_end[p] = at_out;
		memset(ap->out + at_out, GUARD, GUARD_BYTES);
		at_out = (at_out + GUARD_BYTES + 7) / 8 * 8;
	}
	call->a = NULL;
	call->a_at = ap->a_at;
	if (mp_batch_has_b(call))
	{
		call->b = NULL;
		call->b_at = ap->b_at;
	}
	call->out = NULL;
	call->out_at = ap->out_at;
}

static void
free_apart(batch_apart *ap)
{
	free(ap->a);
	free(ap->b);
	free(ap->out);
	free(ap->a_at);
	free(ap->b_at);
	free(ap->out_at);
	free(ap->room_end);
}

/*
 * One batch, checked pair by pair, byte for byte, with the check on and
 * off, its pairs back to back and apart.
 */
static void
run_case(const backend *be, int op, mp_type type, int shape, int64_t npairs, gen_kind gen)
{
	batch_input in;
	size_t		sz = mp_type_size(type);
	size_t		osz = ops[op].kind == MP_ARRAY_SEARCH ? sizeof(int32_t) : sz;
	int64_t    *out_off = xmalloc((npairs + 1) * sizeof(int64_t));
	char		what[112];

	make_input(&in, type, shape, npairs, gen, ops[op].kind == MP_ARRAY_SORT);
	for (int form = 0; form < 4; form++)
	{
		bool		checked = form < 2,
					apart = form & 1;
		mp_batch_call call = call_of(op, type, &in, NULL, out_off);
		int64_t		room = mp_batch_room(&call);
		char	   *out = xmalloc(room * osz + 1);
		char	   *want = xmalloc((in.a_off[npairs] + in.b_off[npairs]) * sz + 1);
		batch_apart ap;
		bool		ok = true;
		mp_status	st;

		snprintf(what, sizeof(what), "batch %s shape %d %s, %" PRId64 " pairs%s", ops[op].name,
				 shape, gen_names[gen], npairs, apart ? ", apart" : "");
		memset(out, 0xA5, room * osz + 1);
		memset(out_off, 0xA5, (npairs + 1) * sizeof(int64_t));
		call.out = out;
		if (apart)
			lay_apart(&ap, &call, &in, osz);
		st = be->batch(&call, checked, NULL);
		ok = st == MP_OK && out_off[0] == 0;
		for (int64_t p = 0; ok && p < npairs; p++)
		{
			int64_t		na = in.a_off[p + 1] - in.a_off[p],
						nb = in.b_off[p + 1] - in.b_off[p];
			int64_t		n = ref_pair(op, type, in.a + in.a_off[p] * sz, na,
									 in.b + in.b_off[p] * sz, nb, want);
			const char *got = apart ? (const char *) ap.out_at[p] : out + out_off[p] * osz;

			ok = out_off[p + 1] - out_off[p] == n && memcmp(got, want, n * osz) == 0 &&
				(!apart || guard_whole(&ap, p));
			if (!ok)
				printf("  pair %" PRId64 " of %" PRId64 ": %" PRId64 " + %" PRId64
					   " in, %" PRId64 " out, %" PRId64 " expected%s\n", p, npairs, na, nb,
					   out_off[p + 1] - out_off[p], n,
					   apart && !guard_whole(&ap, p) ? ", past its room" : "");
		}
		check(ok, st != MP_OK ? "bad status" : checked ? "wrong output" :
			  "wrong output, check off", what, be, type, in.a_off[npairs], in.b_off[npairs]);
		if (apart)
			free_apart(&ap);
		free(out);
		free(want);
	}
	free(out_off);
	free_input(&in);
}

/*
 * The pairs bad1 and bad2 made unsorted (one element below its
 * predecessor, in a or in b): the batch must say MP_UNSORTED and name the
 * first; with the check off it must return.
 */
static void
run_unsorted(const backend *be, int op, mp_type type, int shape, int64_t npairs, int64_t bad1,
			 int64_t bad2)
{
	batch_input in;
	size_t		sz = mp_type_size(type);
	size_t		osz = ops[op].kind == MP_ARRAY_SEARCH ? sizeof(int32_t) : sz;
	int64_t    *out_off = xmalloc((npairs + 1) * sizeof(int64_t));
	int64_t		want_bad = -1;
	bool		b_checked = ops[op].kind != MP_ARRAY_UNIQUE;
	char		what[96];

	make_input(&in, type, shape, npairs, GEN_LOW, false);
	for (int i = 0; i < 2; i++)
	{
		int64_t		p = i ? bad2 : bad1;
		bool		in_b = b_checked && (rnd() & 1);
		int64_t    *off = in_b ? in.b_off : in.a_off;
		char	   *x = in_b ? in.b : in.a;
		int64_t		n = off[p + 1] - off[p];

		if (n < 2)
			continue;
		put(type, x + off[p] * sz, 1 + rnd_below(n - 1), -5000, -5000.0);
		if (want_bad < 0 || p < want_bad)
			want_bad = p;
	}
	snprintf(what, sizeof(what), "unsorted batch %s shape %d, pairs %" PRId64 " and %" PRId64,
			 ops[op].name, shape, bad1, bad2);
	for (int form = 0; form < 4; form++)
	{
		bool		checked = form < 2,
					apart = form & 1;
		mp_batch_call call = call_of(op, type, &in, NULL, out_off);
		int64_t		room = mp_batch_room(&call);
		char	   *out = xmalloc(room * osz + 1);
		batch_apart ap;
		mp_status	st;

		call.out = out;
		if (apart)
			lay_apart(&ap, &call, &in, osz);
		st = be->batch(&call, checked, NULL);
		if (apart)
			free_apart(&ap);
		if (checked && want_bad >= 0)
			check(st == MP_UNSORTED && call.bad_pair == want_bad,
				  st != MP_UNSORTED ? "not reported" : "wrong pair named", what, be, type,
				  in.a_off[npairs], in.b_off[npairs]);
		else
			check(st == MP_OK, "bad status", what, be, type, in.a_off[npairs],
				  in.b_off[npairs]);
		free(out);
	}
	free(out_off);
	free_input(&in);
}

void
run_batch_tests(const backend *be)
{
	static const int64_t counts[] = {0, 1, 2, 7, 100, 1000};
	static const gen_kind gens[] = {GEN_TINY, GEN_WIDE, GEN_SPECIAL, GEN_EQUAL};

	for (int op = 0; op < NOPS; op++)
		for (int t = MP_INT4; t <= MP_FLOAT8; t++)
		{
			mp_type		type = (mp_type) t;

			if (!shard_takes(op))
				continue;

			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
				for (size_t g = 0; g < sizeof(gens) / sizeof(gens[0]); g++)
				{
					if ((quick && counts[c] > 100) || !sweep_takes())
						continue;
					run_case(be, op, type, 0, counts[c], gens[g]);
					if (g < 2)
						run_case(be, op, type, 4, counts[c], gens[g]);
				}
			for (int64_t n = 1; n <= (quick ? 8 : 64); n *= 8)
			{
				run_case(be, op, type, 1, n, GEN_TINY);
				run_case(be, op, type, 1, n, GEN_WIDE);
			}
			run_case(be, op, type, 2, quick ? 200 : 2000, GEN_TINY);
			run_case(be, op, type, 2, quick ? 200 : 2000, GEN_WIDE);
			run_case(be, op, type, 3, 50, GEN_WIDE);
			run_case(be, op, type, 5, quick ? 700 : 7000, GEN_TINY);
			run_case(be, op, type, 5, quick ? 700 : 7000, GEN_WIDE);

			/* a batch spread over threads, then unsorted pairs */
			if (!quick)
				run_case(be, op, type, 4, 1000, GEN_LOW);
			if (ops[op].kind != MP_ARRAY_SORT)
			{
				run_unsorted(be, op, type, 4, 300, 170, 250);
				run_unsorted(be, op, type, 4, 300, 299, 3);
				run_unsorted(be, op, type, 0, 1000, 0, 999);
				run_unsorted(be, op, type, 4, quick ? 300 : 2000, 1500 % (quick ? 300 : 2000),
							 1700 % (quick ? 300 : 2000));
			}
		}
}
