/*
 * join.c
 *		gpu_join(a, b): the inner equi-join of two sorted arrays, as the
 *		subscripts of every pair of equal elements.
 *
 * A set-returning function in materialize mode: the backend counts the pairs
 * first (and checks the inputs), a result over the limit is refused before
 * anything is allocated for it, and then the pairs go into the tuplestore a
 * piece at a time, from the CPU backend's cursor or from the device, where
 * the GPU backend built them all.  No copy of the whole result is held
 * besides the tuplestore's.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "mp_glue.h"

/* Pairs handed to the tuplestore between two fetches. */
#define MP_JOIN_PIECE 65536

/* The most pairs a join returns: 1 GB of them as two int4 each. */
#define MP_JOIN_MAX_PAIRS ((int64) (MaxAllocSize / (2 * sizeof(int32))))

static mp_status
cpu_join_count(mp_call *call, bool check_sorted, mp_poll_fn poll)
{
	return mp_cpu_join_count(call->a->type, call->a->data, call->a->n, call->b->data,
							 call->b->n, &call->nout, check_sorted, poll);
}

static mp_status
gpu_join_count(mp_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	return mp_gpu_join(call->a->type, call->a->data, call->a->n, call->b->data, call->b->n,
					   call->limit, &call->nout, check_sorted, poll, timing);
}

/*
 * Every (a_pos, b_pos) with a[a_pos] = b[b_pos], in the arrays' own
 * subscripts, ordered by a_pos then b_pos
 */
static void
join_pairs(ReturnSetInfo *rsinfo, mp_arg *ap, mp_arg *bp)
{
	mp_arg		a = *ap,
				b = *bp;
	mp_call		call = {&a, &b};
	mp_join_cursor cursor;
	int32	   *a_pos,
			   *b_pos;
	double		t0;

	call.limit = MP_JOIN_MAX_PAIRS;
	mp_run_pair("gpu_join", &call, cpu_join_count, gpu_join_count);
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
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if (call.used_gpu)
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
			values[0] = Int32GetDatum((int32) (a.lbound + a_pos[k]));
			values[1] = Int32GetDatum((int32) (b.lbound + b_pos[k]));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		first += n;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(a_pos);
	pfree(b_pos);
	mp_extend_last_call(mp_now_ms() - t0, NULL);
}

PG_FUNCTION_INFO_V1(mergepath_join);
Datum
mergepath_join(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	mp_arg		a,
				b;

	mp_fetch_arg(fcinfo, 0, "a", &a);
	mp_fetch_arg(fcinfo, 1, "b", &b);
	InitMaterializedSRF(fcinfo, 0);
	if (a.n == 0 && b.n == 0)
		return (Datum) 0;

	/* the pairs stay on the GPU from the count until the last is fetched */
	mp_gpu_begin();
	PG_TRY();
	{
		join_pairs(rsinfo, &a, &b);
	}
	PG_FINALLY();
	{
		mp_gpu_end();
	}
	PG_END_TRY();
	return (Datum) 0;
}
