/*
 * cpu_batch.c
 *		mp_cpu_batch: many small operations of one kind, the pairs spread
 *		over mergepath.cpu_threads threads.
 *
 * Each pair runs the single call's code, so a batch gives exactly the
 * results of its pairs run one by one.  What the batch saves is everything
 * around that code: a SQL call's argument handling, backend choice and
 * bookkeeping happen once a batch instead of once a pair.
 *
 * Results are written where each pair's room starts (its largest result,
 * rooms back to back), then moved down over the rooms left unused, in pair
 * order, so that they end up back to back.  Merges, searches and sorts fill
 * their rooms exactly, and move nothing; nor does a batch whose pairs have
 * rooms of their own (out_at).  The threads take shares of equal
 * input elements, not of equal pairs, so that a large pair among small ones
 * is one thread's whole share.
 */
#include <stdlib.h>
#include <string.h>

#include "../api/mp_api.h"

/* Input elements from which a batch is shared out among threads, and the
 * least a thread then takes (a thread costs tens of microseconds). */
#define BATCH_THREAD_MIN ((int64_t) 1 << 16)

/* Pairs between two interrupt polls on the calling thread. */
#define BATCH_POLL_PAIRS 1024

typedef struct batch_work
{
	mp_batch_call *call;
	const int64_t *room_off;	/* where each pair's room starts */
	int64_t    *nout;			/* each pair's result length */
	int64_t    *in_off;			/* input elements before each pair */
	bool		check_sorted;
	mp_poll_fn	poll;			/* NULL on the threads */
	int64_t		bad_pair;		/* the first unsorted pair yet, or -1 */
	int			failed;			/* another failure's mp_status, or 0 */
} batch_work;

/* Pair p into out, its result's length into *nout. */
static mp_status
run_pair(const mp_batch_call *call, int64_t p, void *out, int64_t *nout, void *scratch,
		 bool check)
{
	int64_t		na,
				nb;
	const char *a = mp_batch_pair_a(call, p, &na);
	const char *b = mp_batch_pair_b(call, p, &nb);

	*nout = 0;
	switch (call->kind)
	{
		case MP_ARRAY_MERGE:
			*nout = na + nb;
			return mp_cpu_merge(call->type, a, na, b, nb, out, check, NULL);
		case MP_ARRAY_SETOP:
			return mp_cpu_setop((mp_setop) call->variant, call->type, a, na, b, nb, out, nout,
								check, NULL);
		case MP_ARRAY_SEARCH:
			*nout = nb;
			return mp_cpu_search((mp_search) call->variant, call->type, a, na, b, nb, out,
								 check, NULL);
		case MP_ARRAY_SEMIJOIN:
			return mp_cpu_semijoin(call->variant != 0, call->type, a, na, b, nb, out, nout,
								   check, NULL);
		case MP_ARRAY_SORT:
			*nout = na;
			return mp_cpu_sort(call->type, a, na, out, scratch, NULL);
		case MP_ARRAY_UNIQUE:
			return mp_cpu_unique(call->type, a, na, out, nout, check, NULL);
		case MP_ARRAY_JOIN_COUNT:
			break;
	}
	return MP_DEVICE_ERROR;
}

/* The first pair whose input starts at or after element e. */
static int64_t
pair_at(const int64_t *in_off, int64_t npairs, int64_t e)
{
	int64_t		lo = 0,
				hi = npairs;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (in_off[mid] < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The pairs whose inputs start in elements [lo, hi), in order; the share
 * stops at its first unsorted pair (later ones do not matter). */
static void
run_share(void *arg, int64_t lo, int64_t hi)
{
	batch_work *w = arg;
	mp_batch_call *call = w->call;
	int64_t		total = w->in_off[call->npairs];
	int64_t		first = pair_at(w->in_off, call->npairs, lo);
	int64_t		last = hi >= total ? call->npairs : pair_at(w->in_off, call->npairs, hi);
	size_t		osize = mp_batch_out_size(call);
	void	   *scratch = NULL;
	mp_status	st = MP_OK;

	if (call->kind == MP_ARRAY_SORT)
	{
		int64_t		most = 1;

		for (int64_t p = first; p < last; p++)
			if (call->a_off[p + 1] - call->a_off[p] > most)
				most = call->a_off[p + 1] - call->a_off[p];
		scratch = malloc((size_t) most * mp_type_size(call->type));
		if (scratch == NULL)
			st = MP_OUT_OF_MEMORY;
	}
	for (int64_t p = first; p < last && st == MP_OK; p++)
	{
		if (w->poll != NULL && (p - first) % BATCH_POLL_PAIRS == BATCH_POLL_PAIRS - 1 &&
			w->poll())
			st = MP_CANCELLED;
		else
			st = run_pair(call, p,
						  call->out_at ? call->out_at[p] :
						  (char *) call->out + w->room_off[p] * osize,
						  &w->nout[p], scratch, w->check_sorted);
		if (st == MP_UNSORTED)
		{
			int64_t		seen = __atomic_load_n(&w->bad_pair, __ATOMIC_RELAXED);

			while ((seen < 0 || p < seen) &&
				   !__atomic_compare_exchange_n(&w->bad_pair, &seen, p, false,
												__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				;
		}
		else if (st != MP_OK)
			__atomic_store_n(&w->failed, (int) st, __ATOMIC_RELAXED);
	}
	free(scratch);
}

mp_status
mp_cpu_batch(mp_batch_call *call, bool check_sorted, mp_poll_fn poll)
{
	int64_t		np = call->npairs;
	size_t		osize = mp_batch_out_size(call);
	int64_t    *room_off = malloc(sizeof(int64_t) * (np + 1) * 3);
	batch_work	w;
	mp_status	st = MP_OK;

	call->bad_pair = -1;
	if (room_off == NULL)
		return MP_OUT_OF_MEMORY;
	memset(&w, 0, sizeof(w));
	w.call = call;
	w.room_off = room_off;
	w.nout = room_off + (np + 1);
	w.in_off = room_off + 2 * (np + 1);
	w.check_sorted = check_sorted;
	room_off[0] = 0;
	w.in_off[0] = 0;
	for (int64_t p = 0; p < np; p++)
	{
		room_off[p + 1] = room_off[p] + mp_batch_pair_room(call, p);
		w.in_off[p + 1] = w.in_off[p] + (call->a_off[p + 1] - call->a_off[p]) +
			(call->b_off ? call->b_off[p + 1] - call->b_off[p] : 0);
	}

	/* shares of equal input elements, one a thread */
	w.bad_pair = -1;
	if (w.in_off[np] < 2 * BATCH_THREAD_MIN || mp_cpu_threads_now() <= 1)
	{
		w.poll = poll;
		run_share(&w, 0, w.in_off[np]);
	}
	else
		mp_cpu_parallel(mp_cpu_threads_now(), w.in_off[np], BATCH_THREAD_MIN, run_share, &w);

	/* another failure first; then the first unsorted pair */
	if (w.failed != 0)
		st = (mp_status) w.failed;
	else if (w.bad_pair >= 0)
	{
		st = MP_UNSORTED;
		call->bad_pair = w.bad_pair;
	}
	if (st == MP_OK)
	{
		call->out_off[0] = 0;
		for (int64_t p = 0; p < np; p++)
		{
			int64_t		at = call->out_off[p];

			if (call->out_at == NULL && at != room_off[p] && w.nout[p] > 0)
				memmove((char *) call->out + at * osize,
						(char *) call->out + room_off[p] * osize, (size_t) w.nout[p] * osize);
			call->out_off[p + 1] = at + w.nout[p];
		}
	}
	free(room_off);
	return st;
}

int64_t
mp_batch_first_unsorted(const mp_batch_call *call)
{
	int			inputs = mp_batch_checked_inputs(call->kind);

	for (int64_t p = 0; p < call->npairs; p++)
	{
		int64_t		na,
					nb;
		const char *a = mp_batch_pair_a(call, p, &na);
		const char *b = mp_batch_pair_b(call, p, &nb);

		if (((inputs & 1) && mp_first_unsorted(call->type, a, na) >= 0) ||
			((inputs & 2) && b != NULL && mp_first_unsorted(call->type, b, nb) >= 0))
			return p;
	}
	return -1;
}
