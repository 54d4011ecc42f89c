/*
 * cpu_kway_impl.h
 *		The CPU backend's k-way merge of sorted runs for one element type.
 *
 * Included by cpu_backend.c once per element type and once per unsigned
 * key width, with MP_T, MP_KEY (the order-preserving unsigned key; the
 * identity for unsigned keys), MP_C (an unsigned type wide enough for a key
 * and a run number side by side) and MP_NAME(x) defined; uses, never
 * undefines them.
 *
 * A tournament (loser) tree over the runs: each leaf is a run's head, each
 * inner node holds the loser of the match played there, and the winner is
 * the smallest head.  Run r is in[starts[r] .. ends[r]); the output
 * (out, perm: the element's index in in) starts at its first element.
 * After it is written out, its run's next head plays
 * its way back up the tree, one comparison a level: log2(k) comparisons an
 * element.  A head and its run number travel as one composite value (the
 * key above, the run below), so that a match is a single unsigned
 * comparison, equal keys go to the run that came first (the merge is
 * stable), and an exhausted run, all ones, loses to every head.
 */

/*
 * The first round of the tournament: the leaves' heads in win[leaves ..
 * 2 * leaves), each inner node's match played bottom-up, the loser staying
 * at the node (tree[i]) and the winner going on; returns the overall
 * winner.  win[1 .. leaves) is overwritten.
 */
static inline MP_C
MP_NAME(kway_first_round) (MP_C *tree, MP_C *win, int64_t leaves)
{
	for (int64_t i = leaves - 1; i >= 1; i--)
	{
		MP_C		x = win[2 * i],
					y = win[2 * i + 1];

		win[i] = x < y ? x : y;
		tree[i] = x < y ? y : x;
	}
	return win[1];
}

/* Leaf r's next head c plays its way up the tree: the next winner. */
static inline MP_C
MP_NAME(kway_replay) (MP_C *tree, int64_t leaves, int64_t r, MP_C c)
{
	for (int64_t node = (leaves + r) / 2; node >= 1; node /= 2)
	{
		MP_C		t = tree[node];
		bool		swap = t < c;

		tree[node] = swap ? c : t;
		c = swap ? t : c;
	}
	return c;
}

static mp_status
MP_NAME(kway_merge) (const MP_T *in, const int64_t *starts, const int64_t *ends, int64_t k,
					 MP_T *out, uint32_t *perm, mp_poll_fn poll)
{
	int64_t		n = 0;
	int64_t		leaves = 1;
	int64_t    *next;
	MP_C	   *tree;
	MP_C	   *win;
	MP_C		winner;
	const MP_C	exhausted = ~(MP_C) 0;

	for (int64_t r = 0; r < k; r++)
		n += ends[r] - starts[r];
	if (k == 1)
	{
		if (out)
			memcpy(out, in + starts[0], n * sizeof(MP_T));
		if (perm)
			for (int64_t j = 0; j < n; j++)
				perm[j] = (uint32_t) (starts[0] + j);
		return MP_OK;
	}
	while (leaves < k)
		leaves *= 2;
	next = malloc(leaves * sizeof(int64_t));
	tree = malloc(3 * leaves * sizeof(MP_C));
	if (next == NULL || tree == NULL)
	{
		free(next);
		free(tree);
		return MP_OUT_OF_MEMORY;
	}
	win = tree + leaves;

	/* the leaves' heads, then each inner node's match, bottom-up: the loser
	 * stays at the node, the winner goes on to the next level */
	for (int64_t r = 0; r < leaves; r++)
	{
		next[r] = r < k ? starts[r] : 0;
		win[leaves + r] = r < k && starts[r] < ends[r]
			? (MP_C) MP_KEY(in[starts[r]]) << 32 | (MP_C) r
			: exhausted;
	}
	winner = MP_NAME(kway_first_round) (tree, win, leaves);

	for (int64_t lo = 0; lo < n; lo += MP_CPU_CHUNK)
	{
		int64_t		hi = lo + MP_CPU_CHUNK < n ? lo + MP_CPU_CHUNK : n;

		if (poll && poll())
		{
			free(next);
			free(tree);
			return MP_CANCELLED;
		}
		for (int64_t o = lo; o < hi; o++)
		{
			int64_t		r = (int64_t) (uint32_t) winner;
			int64_t		at = next[r]++;
			MP_C		c;

			if (out)
				out[o] = in[at];
			if (perm)
				perm[o] = (uint32_t) at;
			c = at + 1 < ends[r]
				? (MP_C) MP_KEY(in[at + 1]) << 32 | (MP_C) r
				: exhausted;
			winner = MP_NAME(kway_replay) (tree, leaves, r, c);
		}
	}
	free(next);
	free(tree);
	return MP_OK;
}

/* Two elements of a kway_values merge's runs in the merge's order. */
static int
MP_NAME(kway_cmp) (const void *ctx, int64_t a, int64_t b)
{
	const MP_T *in = ((const kway_values *) ctx)->in;
	MP_C		x = (MP_C) MP_KEY(in[a]),
				y = (MP_C) MP_KEY(in[b]);

	return x < y ? -1 : x > y;
}

/* One part of a kway_values merge, written from place `at` on. */
static mp_status
MP_NAME(kway_part) (const void *ctx, const int64_t *starts, const int64_t *ends, int64_t k,
					int64_t at, mp_poll_fn poll)
{
	const kway_values *v = ctx;

	return MP_NAME(kway_merge) (v->in, starts, ends, k, v->out ? (MP_T *) v->out + at : NULL,
								v->perm ? v->perm + at : NULL, poll);
}

/*
 * The runs bounds[r] .. bounds[r + 1] of in merged into out and perm (either
 * NULL), on threads (kway_parallel).
 */
static mp_status
MP_NAME(kway_merge_runs) (const MP_T *in, const int64_t *bounds, int64_t k, MP_T *out,
						  uint32_t *perm, mp_poll_fn poll)
{
	kway_values v = {in, out, perm};

	return kway_parallel(bounds, k, MP_NAME(kway_cmp), MP_NAME(kway_part), &v, poll);
}
