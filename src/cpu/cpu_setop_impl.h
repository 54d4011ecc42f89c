/*
 * cpu_setop_impl.h
 *		The CPU backend's multiset operations for one element type.
 *
 * Included by cpu_impl.h after cpu_merge_impl.h, whose merge_path and
 * select it uses.
 *
 * Two ways through the inputs, both pairing the k-th copy of a key in a with
 * the k-th copy in b:
 * - similar sizes: a two-pointer loop without branches on the data.  Each
 *   step compares the two heads, stores one of them at the output's end and
 *   moves the end only when the operation keeps it, so a mispredicted branch
 *   never costs a pipeline flush.  Such a loop is bound by latency (the next
 *   loads wait for this step's comparison), so, as the merge does, it runs
 *   in MP_CPU_LANES lanes interleaved, their dependency chains overlapping:
 *   the inputs are cut at Merge Path's splits, each moved back to the first
 *   copy of its key in both inputs, so that every copy of a key (and with
 *   them the pairs) falls in one lane, Balanced Path's condition.  Each lane
 *   writes into its own share of the output, as much as its windows can
 *   give, and the shares are closed up at the end.
 * - one side MP_CPU_GALLOP times smaller or more: for each element of the
 *   small side, an exponential then binary search from the last position in
 *   the large side.  The elements skipped over are copied out when the
 *   operation keeps them and otherwise only compared with their
 *   predecessors (when checking), a sequential scan much cheaper than merge
 *   steps; with the check off the work follows the small side.
 *
 * The sortedness check is fused as in the merge: each element is compared
 * with its predecessor in the loop that reads it, and every element is read
 * once.
 */

/* Which elements the operation keeps: a's unpaired, b's unpaired, pairs. */
#define MP_KEEP_A(op) ((op) != MP_INTERSECT)
#define MP_KEEP_B(op) ((op) == MP_UNION || (op) == MP_SYMDIFF)
#define MP_KEEP_PAIR(op) ((op) == MP_INTERSECT || (op) == MP_UNION)

/* Whether x[lo..hi) is ascending, each element also against x[lo - 1]. */
static inline bool
MP_NAME(run_sorted) (const MP_T *x, int64_t lo, int64_t hi)
{
	bool		bad = false;

	for (int64_t k = lo > 0 ? lo : 1; k < hi; k++)
		bad |= MP_LT(x[k], x[k - 1]);
	return !bad;
}

/* x[lo..hi) goes to the output when kept; checked either way. */
static inline bool
MP_NAME(pass_run) (const MP_T *x, int64_t lo, int64_t hi, bool keep, MP_T *restrict out,
				   int64_t *o, bool check)
{
	bool		ok = !check || MP_NAME(run_sorted) (x, lo, hi);

	if (keep && hi > lo)
	{
		memcpy(out + *o, x + lo, (hi - lo) * sizeof(MP_T));
		*o += hi - lo;
	}
	return ok;
}

/* The first k in [lo, hi) with !(x[k] < key) (x ascending there). */
static inline int64_t
MP_NAME(setop_lower) (const MP_T *x, int64_t lo, int64_t hi, MP_T key)
{
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (MP_LT(x[mid], key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first k in [lo, n) with !(x[k] < key), searched outward from lo. */
static inline int64_t
MP_NAME(gallop) (const MP_T *x, int64_t lo, int64_t n, MP_T key)
{
	int64_t		prev,
				step = 1,
				hi;

	if (lo >= n || !MP_LT(x[lo], key))
		return lo;
	prev = lo;
	while (prev + step < n && MP_LT(x[prev + step], key))
	{
		prev += step;
		step <<= 1;
	}
	hi = prev + step < n ? prev + step : n;
	return MP_NAME(setop_lower) (x, prev + 1, hi, key);
}

/* The most a lane with windows of la and lb elements can keep. */
static inline int64_t
MP_NAME(setop_bound) (mp_setop op, int64_t la, int64_t lb)
{
	return op == MP_INTERSECT ? (la < lb ? la : lb) : op == MP_EXCEPT ? la : la + lb;
}

/*
 * One step of a two-pointer loop: the heads a[I] and b[J] compared, the
 * smaller stored at out[O] and O moved on when the operation keeps it, the
 * order checked against PA and PB.  A macro, so that the interleaved lanes'
 * indices stay in registers.
 */
#define MP_SETOP_STEP(I, J, O, PA, PB) \
	do { \
		MP_T		x_ = a[I], \
					y_ = b[J]; \
		bool		lt_ = MP_LT(x_, y_), \
					gt_ = MP_LT(y_, x_); \
		\
		if (check) \
		{ \
			unsorted |= MP_LT(x_, PA); \
			unsorted |= MP_LT(y_, PB); \
			(PA) = x_; \
			(PB) = y_; \
		} \
		out[O] = MP_NAME(select) (gt_, y_, x_); \
		(O) += (lt_ & MP_KEEP_A(op)) | (gt_ & MP_KEEP_B(op)) | \
			(!lt_ & !gt_ & MP_KEEP_PAIR(op)); \
		(I) += !gt_; \
		(J) += !lt_; \
	} while (0)

/*
 * Both sides of similar size, in MP_CPU_LANES lanes (see the top).
 * Returns false on unsorted input; *nout is set either way.
 */
static inline __attribute__((always_inline)) bool
MP_NAME(setop_lanes) (mp_setop op, const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
					  MP_T *restrict out, int64_t *nout, bool check, mp_poll_fn poll,
					  bool *cancelled)
{
	int64_t		ia[MP_CPU_LANES + 1],
				jb[MP_CPU_LANES + 1],
				li[MP_CPU_LANES],
				lj[MP_CPU_LANES],
				lo[MP_CPU_LANES],
				start[MP_CPU_LANES],
				o = 0;
	MP_T		pa[MP_CPU_LANES],
				pb[MP_CPU_LANES];
	bool		unsorted = false;

	ia[0] = jb[0] = 0;
	ia[MP_CPU_LANES] = na;
	jb[MP_CPU_LANES] = nb;
	for (int k = 1; k < MP_CPU_LANES; k++)
	{
		int64_t		diag = (na + nb) * k / MP_CPU_LANES,
					i = MP_NAME(merge_path) (a, na, b, nb, diag),
					j = diag - i;

		if (i < na || j < nb)
		{
			/* the split's next output, a's on ties, and back to its first copies */
			MP_T		key = i >= na ? b[j] : j >= nb ? a[i] :
				MP_LT(b[j], a[i]) ? b[j] : a[i];

			i = MP_NAME(setop_lower) (a, ia[k - 1], i, key);
			j = MP_NAME(setop_lower) (b, jb[k - 1], j, key);
		}
		/* on unsorted input the splits need not go forward */
		ia[k] = i > ia[k - 1] ? i : ia[k - 1];
		jb[k] = j > jb[k - 1] ? j : jb[k - 1];
	}
	for (int k = 0; k < MP_CPU_LANES; k++)
	{
		li[k] = ia[k];
		lj[k] = jb[k];
		start[k] = lo[k] = o;
		o += MP_NAME(setop_bound) (op, ia[k + 1] - ia[k], jb[k + 1] - jb[k]);
		/* each lane's first elements checked against the ones before them */
		pa[k] = na == 0 ? (MP_T) 0 : a[ia[k] > 0 ? ia[k] - 1 : 0];
		pb[k] = nb == 0 ? (MP_T) 0 : b[jb[k] > 0 ? jb[k] - 1 : 0];
	}

	/* every lane a step at a time while none has used up a window */
	for (;;)
	{
		int64_t		steps = MP_CPU_CHUNK / MP_CPU_LANES;

		for (int k = 0; k < MP_CPU_LANES; k++)
		{
			if (ia[k + 1] - li[k] < steps)
				steps = ia[k + 1] - li[k];
			if (jb[k + 1] - lj[k] < steps)
				steps = jb[k + 1] - lj[k];
		}
		if (steps <= 0)
			break;
		for (int64_t s = 0; s < steps; s++)
		{
#pragma GCC unroll 8
			for (int k = 0; k < MP_CPU_LANES; k++)
				MP_SETOP_STEP(li[k], lj[k], lo[k], pa[k], pb[k]);
		}
		if (poll && poll())
		{
			*cancelled = true;
			*nout = 0;
			return true;
		}
	}
	/* then each lane on its own to its windows' ends, and its tails */
	for (int k = 0; k < MP_CPU_LANES; k++)
	{
		int64_t		i = li[k],
					j = lj[k],
					ko = lo[k];

		while (i < ia[k + 1] && j < jb[k + 1])
			MP_SETOP_STEP(i, j, ko, pa[k], pb[k]);
		unsorted |= !MP_NAME(pass_run) (a, i, ia[k + 1], MP_KEEP_A(op), out, &ko, check);
		unsorted |= !MP_NAME(pass_run) (b, j, jb[k + 1], MP_KEEP_B(op), out, &ko, check);
		lo[k] = ko;
	}
	/* the lanes' outputs closed up */
	o = lo[0];
	for (int k = 1; k < MP_CPU_LANES; k++)
	{
		memmove(out + o, out + start[k], (lo[k] - start[k]) * sizeof(MP_T));
		o += lo[k] - start[k];
	}
	*nout = o;
	return !unsorted;
}

#undef MP_SETOP_STEP

/*
 * Both sides of similar size, in one loop: for inputs too short to be worth
 * the lanes' splits.  Returns false on unsorted input; *nout is set either
 * way.
 */
static inline __attribute__((always_inline)) bool
MP_NAME(setop_linear) (mp_setop op, const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
					   MP_T *restrict out, int64_t *nout, bool check, mp_poll_fn poll,
					   bool *cancelled)
{
	int64_t		i = 0,
				j = 0,
				o = 0;
	bool		unsorted = false;
	MP_T		pa = na > 0 ? a[0] : (MP_T) 0,
				pb = nb > 0 ? b[0] : (MP_T) 0;

	while (i < na && j < nb)
	{
		/* each step moves i or j or both: this many cannot overrun */
		int64_t		steps = na - i < nb - j ? na - i : nb - j;

		if (steps > MP_CPU_CHUNK)
			steps = MP_CPU_CHUNK;
		for (int64_t s = 0; s < steps; s++)
		{
			MP_T		x = a[i],
						y = b[j];
			bool		lt = MP_LT(x, y),
						gt = MP_LT(y, x);

			if (check)
			{
				unsorted |= MP_LT(x, pa);
				unsorted |= MP_LT(y, pb);
				pa = x;
				pb = y;
			}
			/* o < capacity here: every kept element used up one of a or b
			 * (both, for intersect) and neither is used up yet */
			out[o] = MP_NAME(select) (gt, y, x);
			o += (lt & MP_KEEP_A(op)) | (gt & MP_KEEP_B(op)) | (!lt & !gt & MP_KEEP_PAIR(op));
			i += !gt;
			j += !lt;
		}
		if (poll && poll())
		{
			*cancelled = true;
			*nout = o;
			return true;
		}
	}
	unsorted |= !MP_NAME(pass_run) (a, i, na, MP_KEEP_A(op), out, &o, check);
	unsorted |= !MP_NAME(pass_run) (b, j, nb, MP_KEEP_B(op), out, &o, check);
	*nout = o;
	return !unsorted;
}

/*
 * s[0..ns) is much smaller than l[0..nl).  s_is_a says which argument s is,
 * and so which of the unpaired elements the operation keeps.  Pairs are
 * always taken from a.
 */
static inline __attribute__((always_inline)) bool
MP_NAME(setop_gallop) (mp_setop op, bool s_is_a, const MP_T *s, int64_t ns, const MP_T *l,
					   int64_t nl, MP_T *restrict out, int64_t *nout, bool check,
					   mp_poll_fn poll, bool *cancelled)
{
	const bool	keep_s = s_is_a ? MP_KEEP_A(op) : MP_KEEP_B(op);
	const bool	keep_l = s_is_a ? MP_KEEP_B(op) : MP_KEEP_A(op);
	int64_t		j = 0,
				o = 0;
	bool		ok = true;

	for (int64_t i = 0; i < ns; i++)
	{
		MP_T		key = s[i];
		int64_t		k = MP_NAME(gallop) (l, j, nl, key);

		if (check && i > 0)
			ok &= !MP_LT(key, s[i - 1]);
		/* l[j..k) is below key: unpaired */
		ok &= MP_NAME(pass_run) (l, j, k, keep_l, out, &o, check);
		if (k < nl && !MP_LT(key, l[k]))
		{
			/* l[k] equals key: the pair's copy comes from a */
			if (check && k > 0)
				ok &= !MP_LT(l[k], l[k - 1]);
			if (MP_KEEP_PAIR(op))
				out[o++] = s_is_a ? key : l[k];
			j = k + 1;
		}
		else
		{
			if (keep_s)
				out[o++] = key;
			j = k;
		}
		if ((i & 0xFFFF) == 0xFFFF && poll && poll())
		{
			*cancelled = true;
			*nout = o;
			return true;
		}
	}
	ok &= MP_NAME(pass_run) (l, j, nl, keep_l, out, &o, check);
	*nout = o;
	return ok;
}

static inline __attribute__((always_inline)) mp_status
MP_NAME(setop_as) (mp_setop op, const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
				   MP_T *restrict out, int64_t *nout, bool check, mp_poll_fn poll)
{
	bool		cancelled = false,
				ok;

	if (na > 0 && nb / MP_CPU_GALLOP >= na)
		ok = MP_NAME(setop_gallop) (op, true, a, na, b, nb, out, nout, check, poll, &cancelled);
	else if (nb > 0 && na / MP_CPU_GALLOP >= nb)
		ok = MP_NAME(setop_gallop) (op, false, b, nb, a, na, out, nout, check, poll, &cancelled);
	else if (na + nb < MP_CPU_SETOP_LANES_MIN)
		ok = MP_NAME(setop_linear) (op, a, na, b, nb, out, nout, check, poll, &cancelled);
	else
		ok = MP_NAME(setop_lanes) (op, a, na, b, nb, out, nout, check, poll, &cancelled);
	if (cancelled)
		return MP_CANCELLED;
	return ok || !check ? MP_OK : MP_UNSORTED;
}

/* One instance per operation, so that op is a constant in each loop. */
static mp_status
MP_NAME(setop) (mp_setop op, const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
				MP_T *restrict out, int64_t *nout, bool check, mp_poll_fn poll)
{
	switch (op)
	{
		case MP_INTERSECT:
			return MP_NAME(setop_as) (MP_INTERSECT, a, na, b, nb, out, nout, check, poll);
		case MP_UNION:
			return MP_NAME(setop_as) (MP_UNION, a, na, b, nb, out, nout, check, poll);
		case MP_EXCEPT:
			return MP_NAME(setop_as) (MP_EXCEPT, a, na, b, nb, out, nout, check, poll);
		case MP_SYMDIFF:
			return MP_NAME(setop_as) (MP_SYMDIFF, a, na, b, nb, out, nout, check, poll);
	}
	return MP_DEVICE_ERROR;
}

#undef MP_KEEP_A
#undef MP_KEEP_B
#undef MP_KEEP_PAIR
