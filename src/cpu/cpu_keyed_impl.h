/*
 * cpu_keyed_impl.h
 *		A part of the k-way merge of runs that lie apart, each key with a
 *		payload, for one unsigned key width.
 *
 * Included by cpu_backend.c once per unsigned key width, after
 * cpu_kway_impl.h (whose tournament steps it shares), with MP_T (the key),
 * MP_C (an unsigned type wide enough for a key and a run number side by
 * side) and MP_NAME(x) defined; uses, never undefines them.
 *
 * Any part of the merge, places [lo, hi), is found on its own: the cut of
 * each run at place d is a search over the keys' values for the merge's
 * d-th key, then the copies of that key taken in run order (the merge is
 * stable).  So that processes which share nothing but the runs merge parts
 * of one merge side by side, each part written straight to its places.
 */

/* Keys of run[0 .. n) below x (below or at x when at_or_below). */
static int64_t
MP_NAME(keyed_rank) (const MP_T *run, int64_t n, MP_T x, bool at_or_below)
{
	int64_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (run[mid] < x || (at_or_below && run[mid] == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * cut[r]: the keys of run r among the merge's first d (d at most the runs'
 * keys in all).
 */
static void
MP_NAME(keyed_cut) (const MP_T *const *runs, const int64_t *len, int64_t k, int64_t d,
					int64_t *cut)
{
	MP_T		lo = 0,
				hi = ~(MP_T) 0;
	int64_t		left = d;

	/* x: the least value with more than d keys at or below it (the largest
	 * value when there is none: d is then every key) */
	while (lo < hi)
	{
		MP_T		mid = lo + (hi - lo) / 2;
		int64_t		at_or_below = 0;

		for (int64_t r = 0; r < k && at_or_below <= d; r++)
			at_or_below += MP_NAME(keyed_rank) (runs[r], len[r], mid, true);
		if (at_or_below > d)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (int64_t r = 0; r < k; r++)
	{
		cut[r] = MP_NAME(keyed_rank) (runs[r], len[r], lo, false);
		left -= cut[r];
	}
	/* the copies of x that make up the rest, in run order */
	for (int64_t r = 0; r < k && left > 0; r++)
	{
		int64_t		copies = MP_NAME(keyed_rank) (runs[r], len[r], lo, true) - cut[r];
		int64_t		take = copies < left ? copies : left;

		cut[r] += take;
		left -= take;
	}
}

/*
 * Places [lo, hi) of the merge: a loser tree over the runs' parts, as
 * kway_merge's (cpu_kway_impl.h), a head and its run number one composite
 * value.  The keys go out XORed with flip.  False when out of memory.
 */
static bool
MP_NAME(keyed_part) (const MP_T *const *runs, const uint64_t *const *payload, const int64_t *len,
					 int64_t k, int64_t lo, int64_t hi, MP_T flip, MP_T *out,
					 uint64_t *out_payload)
{
	int64_t		leaves = 1;
	int64_t    *next;
	int64_t    *end;
	MP_C	   *tree;			/* each inner node's loser */
	MP_C	   *win;			/* the first round's winners */
	MP_C		winner;
	const MP_C	exhausted = ~(MP_C) 0;

	while (leaves < k)
		leaves *= 2;
	next = malloc(2 * leaves * sizeof(int64_t));
	tree = malloc(leaves * sizeof(MP_C));
	win = malloc(2 * leaves * sizeof(MP_C));
	if (next == NULL || tree == NULL || win == NULL)
	{
		free(next);
		free(tree);
		free(win);
		return false;
	}
	end = next + leaves;
	MP_NAME(keyed_cut) (runs, len, k, lo, next);
	MP_NAME(keyed_cut) (runs, len, k, hi, end);

	/* the leaves' heads, then each inner node's match, bottom-up */
	for (int64_t r = 0; r < leaves; r++)
		win[leaves + r] = r < k && next[r] < end[r]
			? (MP_C) runs[r][next[r]] << 32 | (MP_C) r
			: exhausted;
	winner = MP_NAME(kway_first_round) (tree, win, leaves);
	free(win);

	for (int64_t o = 0; o < hi - lo; o++)
	{
		int64_t		r = (int64_t) (uint32_t) winner;
		int64_t		at = next[r]++;
		MP_C		c;

		out[o] = runs[r][at] ^ flip;
		out_payload[o] = payload[r][at];
		c = at + 1 < end[r] ? (MP_C) runs[r][at + 1] << 32 | (MP_C) r : exhausted;
		winner = MP_NAME(kway_replay) (tree, leaves, r, c);
	}
	free(next);
	free(tree);
	return true;
}
