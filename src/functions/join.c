/*
 * join.c
 *		gpu_join(a, b, kind): the inner, left, right or full equi-join of two
 *		sorted arrays, as the subscripts of every pair of equal elements and
 *		of the outer sides' unmatched elements.
 *
 * A set-returning function in materialize mode: the backend counts the pairs
 * first (and checks the inputs), a result over the limit is refused before
 * anything is allocated for it, and then the pairs go into the tuplestore a
 * piece at a time, from the CPU backend's cursor or from the device, where
 * the GPU backend built them all.  No copy of the whole result is held
 * besides the tuplestore's.  The outer kinds need nothing more of the
 * backends: the pairs, in key order, say which rows are matched, and the
 * unmatched ones are put between them here.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "mp_arrays.h"
#include "../api/mp_order.h"

/* Pairs handed to the tuplestore between two fetches. */
#define MP_JOIN_PIECE 65536

/* The most pairs a join returns: 1 GB of them as two int4 each. */
#define MP_JOIN_MAX_PAIRS ((int64) (MaxAllocSize / (2 * sizeof(int32))))

/* gpu_join's kinds */
typedef enum join_kind
{
	JOIN_KIND_INNER,
	JOIN_KIND_LEFT,
	JOIN_KIND_RIGHT,
	JOIN_KIND_FULL
} join_kind;

static const char *const join_kind_names[] = {"inner", "left", "right", "full"};

static join_kind
parse_join_kind(text *kind)
{
	char	   *name = text_to_cstring(kind);

	for (int k = 0; k < lengthof(join_kind_names); k++)
		if (pg_strcasecmp(name, join_kind_names[k]) == 0)
			return (join_kind) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("gpu_join: unknown join kind \"%s\"", name),
			 errhint("The kinds are inner, left, right and full.")));
	pg_unreachable();
}

/*
 * Where the rows go: the tuplestore, with each position turned into the
 * array's own subscript, or NULL for no position (-1).  Outer joins also
 * compare keys, to put the unmatched rows of both sides in key order.
 */
typedef struct join_out
{
	ReturnSetInfo *rsinfo;
	const mp_arg *a;
	const mp_arg *b;
	bool		a_unmatched;	/* a's unmatched rows are returned (left, full) */
	bool		b_unmatched;	/* b's (right, full) */
} join_out;

static void
put_row(join_out *o, int64 i, int64 j)
{
	Datum		values[2];
	bool		nulls[2] = {i < 0, j < 0};

	values[0] = Int32GetDatum(i < 0 ? 0 : (int32) (o->a->lbound + i));
	values[1] = Int32GetDatum(j < 0 ? 0 : (int32) (o->b->lbound + j));
	tuplestore_putvalues(o->rsinfo->setResult, o->rsinfo->setDesc, values, nulls);
}

/* Element i of an array as mp_order.h's unsigned key, widened. */
static inline uint64
key_at(const mp_arg *x, int64 i)
{
	switch (x->type)
	{
		case MP_INT4:
			return mp_key_int4(((const int32 *) x->data)[i]);
		case MP_INT8:
			return mp_key_int8(((const int64 *) x->data)[i]);
		case MP_FLOAT4:
			return mp_key_float4(((const float4 *) x->data)[i]);
		case MP_FLOAT8:
			return mp_key_float8(((const float8 *) x->data)[i]);
	}
	pg_unreachable();
}

/*
 * The unmatched rows a[i0..i1) and b[j0..j1), those the kind returns, in
 * key order, a's first on equal keys.
 */
static void
put_unmatched(join_out *o, int64 i0, int64 i1, int64 j0, int64 j1)
{
	if (!o->b_unmatched)
		j0 = j1;
	if (!o->a_unmatched)
		i0 = i1;
	while (i0 < i1 && j0 < j1)
	{
		if (key_at(o->a, i0) <= key_at(o->b, j0))
			put_row(o, i0++, -1);
		else
			put_row(o, -1, j0++);
	}
	for (; i0 < i1; i0++)
		put_row(o, i0, -1);
	for (; j0 < j1; j0++)
		put_row(o, -1, j0);
}

/*
 * Every row of the join of the kind: the pairs (a_pos, b_pos) with
 * a[a_pos] = b[b_pos], from the chosen backend, ordered by a_pos then b_pos
 * (and so by key), and for an outer join the unmatched rows of the outer
 * sides between them, in key order.  The pairs say which rows are matched:
 * a row of a is unmatched when no pair names it; a row of b when it lies
 * before the first partner of the next a row that has one and after the
 * last partner seen.
 */
static void
join_rows(ReturnSetInfo *rsinfo, mp_arg *ap, mp_arg *bp, join_kind kind)
{
	mp_arg		a = *ap,
				b = *bp;
	mp_array_call call = mp_call_of(MP_ARRAY_JOIN_COUNT, 0, &a, &b);
	join_out	o = {rsinfo, &a, &b, kind == JOIN_KIND_LEFT || kind == JOIN_KIND_FULL,
	kind == JOIN_KIND_RIGHT || kind == JOIN_KIND_FULL};
	mp_join_cursor cursor;
	int32	   *a_pos,
			   *b_pos;
	int64		i = 0,			/* a[0..i) and b[0..j) are accounted for */
				j = 0;
	double		t0;
	bool		on_gpu;

	call.max_pairs = MP_JOIN_MAX_PAIRS;
	on_gpu = mp_run_array("gpu_join", MP_OP_JOIN, &call, &a, &b);
	if (call.nout > MP_JOIN_MAX_PAIRS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_join: result would have " INT64_FORMAT " pairs, more than a join returns",
						call.nout),
				 errdetail("A join returns at most " INT64_FORMAT " pairs (1 GB of int4 pairs).",
						   MP_JOIN_MAX_PAIRS)));

	t0 = mp_now_ms();
	a_pos = palloc(MP_JOIN_PIECE * sizeof(int32));
	b_pos = palloc(MP_JOIN_PIECE * sizeof(int32));
	memset(&cursor, 0, sizeof(cursor));
	for (int64 first = 0; first < call.nout;)
	{
		int64		n = Min(MP_JOIN_PIECE, call.nout - first);

		if (on_gpu)
		{
			mp_gpu_timing timing = {0};
			mp_status	st = mp_gpu_join_fetch(first, n, a_pos, b_pos, NULL, &timing);

			if (st != MP_OK)
				ereport(ERROR,
						(errcode(st == MP_OUT_OF_MEMORY ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
						 errmsg("gpu_join: the pairs could not be fetched from the GPU: %s",
								mp_gpu_last_error())));
			mp_extend_last_call(0, &timing);
		}
		else
			n = mp_cpu_join_next(a.type, a.data, a.n, b.data, b.n, &cursor, a_pos, b_pos, n);
		if (n <= 0)
			elog(ERROR, "gpu_join: the backend ran out of pairs at " INT64_FORMAT " of " INT64_FORMAT,
				 first, call.nout);

		for (int64 k = 0; k < n; k++)
		{
			if (kind != JOIN_KIND_INNER && a_pos[k] >= i)
			{
				/* the first pair of an a row: the unmatched rows before it */
				put_unmatched(&o, i, a_pos[k], j, Max(j, b_pos[k]));
				i = a_pos[k] + 1;
				j = Max(j, b_pos[k]);
			}
			put_row(&o, a_pos[k], b_pos[k]);
			j = Max(j, b_pos[k] + 1);
		}
		first += n;
		CHECK_FOR_INTERRUPTS();
	}
	if (kind != JOIN_KIND_INNER)
		put_unmatched(&o, i, a.n, j, b.n);
	pfree(a_pos);
	pfree(b_pos);
	mp_extend_last_call(mp_now_ms() - t0, NULL);
}

PG_FUNCTION_INFO_V1(mergepath_join);
Datum
mergepath_join(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	join_kind	kind = PG_NARGS() > 2 ? parse_join_kind(PG_GETARG_TEXT_PP(2)) : JOIN_KIND_INNER;
	mp_arg		a,
				b;

	mp_fetch_arg(fcinfo, 0, "gpu_join", "a", &a);
	mp_fetch_arg(fcinfo, 1, "gpu_join", "b", &b);
	InitMaterializedSRF(fcinfo, 0);
	if (a.n == 0 && b.n == 0)
		return (Datum) 0;

	/* the pairs stay on the GPU from the count until the last is fetched */
	mp_gpu_begin();
	PG_TRY();
	{
		join_rows(rsinfo, &a, &b, kind);
	}
	PG_FINALLY();
	{
		mp_gpu_end();
	}
	PG_END_TRY();
	return (Datum) 0;
}
