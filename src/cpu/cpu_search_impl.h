/*
 * cpu_search_impl.h
 *		The CPU backend's sorted search and joins for one element type.
 *
 * Included by cpu_impl.h after cpu_setop_impl.h, whose run_sorted it uses.
 *
 * Every function here is a merge of the needles (or a's elements) into the
 * haystack (or b): a pointer into the haystack only moves forward, each
 * needle moving it past the elements below it (lower bound) or not above it
 * (upper bound).  With similar sizes the pointer steps one element at a
 * time; when the haystack is MP_CPU_GALLOP times larger or more, it gallops
 * (exponential then binary search), so that with the check off the work
 * follows the needles.  Lower and upper bounds of similar sizes run as the
 * merge does: a step without branches on the data, in MP_CPU_LANES lanes
 * cut at Merge Path's splits and interleaved in one loop, so that their
 * dependency chains overlap.
 *
 * The sortedness check is fused: the needles are compared with their
 * predecessors as they are read, and the haystack elements a pointer moves
 * over are compared with theirs (a sequential scan of what galloping skips),
 * the rest after the last needle.
 */

/*
 * The first k in [from, n) where x[k] is not before key: not below it
 * (upper false) or above it (upper true); n when there is none.  Galloping
 * or stepping; with check, the elements moved over are checked and *bad
 * set when one is below its predecessor.
 */
static inline __attribute__((always_inline)) int64_t
MP_NAME(seek) (const MP_T *x, int64_t from, int64_t n, MP_T key, bool upper, bool gallop,
			   bool check, bool *bad)
{
#define MP_BEFORE(k) (upper ? !MP_LT(key, x[k]) : MP_LT(x[k], key))
	int64_t		k = from;

	if (!gallop)
	{
		while (k < n && MP_BEFORE(k))
		{
			if (check && k > 0)
				*bad |= MP_LT(x[k], x[k - 1]);
			k++;
		}
		return k;
	}
	if (k < n && MP_BEFORE(k))
	{
		int64_t		prev = k,
					step = 1,
					hi;

		while (prev + step < n && MP_BEFORE(prev + step))
		{
			prev += step;
			step <<= 1;
		}
		hi = prev + step < n ? prev + step : n;
		k = prev + 1;
		while (k < hi)
		{
			int64_t		mid = k + (hi - k) / 2;

			if (MP_BEFORE(mid))
				k = mid + 1;
			else
				hi = mid;
		}
	}
	if (check)
		*bad |= !MP_NAME(run_sorted) (x, from, k);
	return k;
#undef MP_BEFORE
}

/* Whether the haystack is large enough, against the needles, to gallop. */
static inline bool
MP_NAME(gallops) (int64_t nhay, int64_t nneedles)
{
	return nhay / MP_CPU_GALLOP >= nneedles;
}

/*
 * Lower (upper) bounds of needles among similar numbers of haystack
 * elements, as a merge of the two in which a haystack element comes first
 * when it is below the needle (not above it).  Each step compares a
 * haystack element with a needle, writes the haystack's position as the
 * needle's bound, and moves past the one that comes first: the last
 * position written for a needle is its bound.  Lanes of the merge start at
 * Merge Path's splits, each lane's first elements checked against the ones
 * before them.  Returns false on unsorted input.
 */
static inline __attribute__((always_inline)) bool
MP_NAME(bounds_lanes) (bool upper, const MP_T *hay, int64_t nh, const MP_T *needles,
					   int64_t nn, int32_t *restrict out, bool check, mp_poll_fn poll,
					   bool *cancelled)
{
#define MP_HAY_FIRST(x, key) (upper ? !MP_LT(key, x) : MP_LT(x, key))
#define MP_BOUND_STEP(K, J, PH, PN) \
	do { \
		MP_T		x_ = hay[K], \
					key_ = needles[J]; \
		bool		first_ = MP_HAY_FIRST(x_, key_); \
		\
		if (check) \
		{ \
			unsorted |= MP_LT(x_, PH); \
			unsorted |= MP_LT(key_, PN); \
			(PH) = x_; \
			(PN) = key_; \
		} \
		out[J] = (int32_t) (K); \
		(K) += first_; \
		(J) += !first_; \
	} while (0)
	int64_t		hk[MP_CPU_LANES + 1],
				nj[MP_CPU_LANES + 1],
				lk[MP_CPU_LANES],
				lj[MP_CPU_LANES];
	MP_T		ph[MP_CPU_LANES],
				pn[MP_CPU_LANES];
	bool		unsorted = false;

	hk[0] = nj[0] = 0;
	hk[MP_CPU_LANES] = nh;
	nj[MP_CPU_LANES] = nn;
	for (int s = 1; s < MP_CPU_LANES; s++)
	{
		int64_t		diag = (nh + nn) * s / MP_CPU_LANES,
					lo = diag > nn ? diag - nn : 0,
					hi = diag < nh ? diag : nh;

		while (lo < hi)
		{
			int64_t		mid = (lo + hi) / 2;

			if (MP_HAY_FIRST(hay[mid], needles[diag - 1 - mid]))
				lo = mid + 1;
			else
				hi = mid;
		}
		/* on unsorted input the splits need not go forward */
		hk[s] = lo > hk[s - 1] ? lo : hk[s - 1];
		nj[s] = diag - lo > nj[s - 1] ? diag - lo : nj[s - 1];
	}
	for (int s = 0; s < MP_CPU_LANES; s++)
	{
		lk[s] = hk[s];
		lj[s] = nj[s];
		ph[s] = nh == 0 ? (MP_T) 0 : hay[hk[s] > 0 ? hk[s] - 1 : 0];
		pn[s] = nn == 0 ? (MP_T) 0 : needles[nj[s] > 0 ? nj[s] - 1 : 0];
	}
	for (;;)
	{
		int64_t		steps = MP_CPU_CHUNK / MP_CPU_LANES;

		for (int s = 0; s < MP_CPU_LANES; s++)
		{
			if (hk[s + 1] - lk[s] < steps)
				steps = hk[s + 1] - lk[s];
			if (nj[s + 1] - lj[s] < steps)
				steps = nj[s + 1] - lj[s];
		}
		if (steps <= 0)
			break;
		for (int64_t t = 0; t < steps; t++)
		{
#pragma GCC unroll 8
			for (int s = 0; s < MP_CPU_LANES; s++)
				MP_BOUND_STEP(lk[s], lj[s], ph[s], pn[s]);
		}
		if (poll && poll())
		{
			*cancelled = true;
			return true;
		}
	}
	for (int s = 0; s < MP_CPU_LANES; s++)
	{
		int64_t		k = lk[s],
					j = lj[s];

		while (k < hk[s + 1] && j < nj[s + 1])
			MP_BOUND_STEP(k, j, ph[s], pn[s]);
		/* the lane's haystack used up: its other needles' bound is its end */
		for (int64_t r = j; r < nj[s + 1]; r++)
			out[r] = (int32_t) hk[s + 1];
		if (check)
			unsorted |= !MP_NAME(run_sorted) (hay, k, hk[s + 1]) ||
				!MP_NAME(run_sorted) (needles, j, nj[s + 1]);
	}
	return !unsorted;
#undef MP_BOUND_STEP
#undef MP_HAY_FIRST
}

/* Room for n bounds: small (MP_CPU_SMALL_BOUNDS of them) or allocated. */
static inline int32_t *
MP_NAME(bounds_room) (int32_t *small, int64_t n)
{
	return n <= MP_CPU_SMALL_BOUNDS ? small : malloc(n * sizeof(int32_t));
}

/*
 * Where the upper-bound pointer of a count or a join seeks from: with the
 * check on, where it last stopped, so that it moves over (and checks) every
 * element the lower-bound pointer does; with it off, not before the lower
 * bound, so that a count is never negative on unsorted input.  On sorted
 * input the two are the same place: every element between them is below
 * the key.
 */
static inline int64_t
MP_NAME(upper_from) (int64_t lo, int64_t hi, bool check)
{
	return check || hi > lo ? hi : lo;
}

/*
 * One instance per kind, so that the kind is a constant in the loop.  For
 * MP_COUNT two pointers go through the haystack: lo for the lower bounds,
 * hi for the upper ones.  hi, which moves over every element lo does, does
 * the checking.
 */
static inline __attribute__((always_inline)) mp_status
MP_NAME(search_as) (mp_search kind, const MP_T *hay, int64_t nh, const MP_T *needles,
					int64_t nn, int32_t *restrict out, bool check, mp_poll_fn poll)
{
	const bool	gallop = MP_NAME(gallops) (nh, nn);
	int64_t		lo = 0,
				hi = 0;
	bool		bad = false;
	int32_t		small[MP_CPU_SMALL_BOUNDS],
			   *uppers = NULL;

	/* a count: the upper bounds less the lower ones (or, without memory for
	 * them, the loop below) */
	if (!gallop && nh + nn >= MP_CPU_SETOP_LANES_MIN &&
		(kind != MP_COUNT || (uppers = MP_NAME(bounds_room) (small, nn)) != NULL))
	{
		bool		cancelled = false,
					ok = true;

		if (kind != MP_UPPER_BOUND)
			ok &= MP_NAME(bounds_lanes) (false, hay, nh, needles, nn, out, check, poll,
										 &cancelled);
		if (kind != MP_LOWER_BOUND && !cancelled)
			ok &= MP_NAME(bounds_lanes) (true, hay, nh, needles, nn, uppers ? uppers : out,
										 check, poll, &cancelled);
		for (int64_t j = 0; uppers && !cancelled && j < nn; j++)
			out[j] = uppers[j] > out[j] ? uppers[j] - out[j] : 0;
		if (uppers != small)
			free(uppers);
		if (cancelled)
			return MP_CANCELLED;
		return ok || !check ? MP_OK : MP_UNSORTED;
	}
	for (int64_t j = 0; j < nn; j++)
	{
		MP_T		key = needles[j];

		if (check && j > 0)
			bad |= MP_LT(key, needles[j - 1]);
		if (kind == MP_LOWER_BOUND)
			out[j] = (int32_t) (lo = MP_NAME(seek) (hay, lo, nh, key, false, gallop, check, &bad));
		else if (kind == MP_UPPER_BOUND)
			out[j] = (int32_t) (hi = MP_NAME(seek) (hay, hi, nh, key, true, gallop, check, &bad));
		else
		{
			lo = MP_NAME(seek) (hay, lo, nh, key, false, gallop, false, &bad);
			hi = MP_NAME(seek) (hay, MP_NAME(upper_from) (lo, hi, check), nh, key, true, gallop,
								check, &bad);
			out[j] = (int32_t) (hi > lo ? hi - lo : 0);
		}
		if ((j & 0xFFFF) == 0xFFFF && poll && poll())
			return MP_CANCELLED;
	}
	if (check)
	{
		bad |= !MP_NAME(run_sorted) (hay, kind == MP_LOWER_BOUND ? lo : hi, nh);
		if (bad)
			return MP_UNSORTED;
	}
	return MP_OK;
}

static mp_status
MP_NAME(search) (mp_search kind, const MP_T *hay, int64_t nh, const MP_T *needles,
				 int64_t nn, int32_t *restrict out, bool check, mp_poll_fn poll)
{
	switch (kind)
	{
		case MP_LOWER_BOUND:
			return MP_NAME(search_as) (MP_LOWER_BOUND, hay, nh, needles, nn, out, check, poll);
		case MP_UPPER_BOUND:
			return MP_NAME(search_as) (MP_UPPER_BOUND, hay, nh, needles, nn, out, check, poll);
		case MP_COUNT:
			return MP_NAME(search_as) (MP_COUNT, hay, nh, needles, nn, out, check, poll);
	}
	return MP_DEVICE_ERROR;
}

/*
 * a's elements that occur in b (anti: that do not), in a's order.  With
 * similar sizes, from the lower bounds of a's elements in b (in lanes),
 * then a pass without branches that keeps each element whose bound holds it
 * (or, without memory for the bounds, the loop below).
 */
static mp_status
MP_NAME(semijoin) (bool anti, const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
				   MP_T *restrict out, int64_t *nout, bool check, mp_poll_fn poll)
{
	const bool	gallop = MP_NAME(gallops) (nb, na);
	int64_t		k = 0,
				o = 0;
	bool		bad = false;
	int32_t		small[MP_CPU_SMALL_BOUNDS],
			   *bounds;

	if (!gallop && na + nb >= MP_CPU_SETOP_LANES_MIN &&
		(bounds = MP_NAME(bounds_room) (small, na)) != NULL)
	{
		bool		cancelled = false,
					ok = MP_NAME(bounds_lanes) (false, b, nb, a, na, bounds, check, poll,
											   &cancelled);

		for (int64_t i = 0; !cancelled && i < na; i++)
		{
			int64_t		at = bounds[i];

			out[o] = a[i];
			o += (at < nb && !MP_LT(a[i], b[at])) != anti;
		}
		if (bounds != small)
			free(bounds);
		*nout = o;
		if (cancelled)
			return MP_CANCELLED;
		return ok || !check ? MP_OK : MP_UNSORTED;
	}
	for (int64_t i = 0; i < na; i++)
	{
		MP_T		key = a[i];
		bool		found;

		if (check && i > 0)
			bad |= MP_LT(key, a[i - 1]);
		k = MP_NAME(seek) (b, k, nb, key, false, gallop, check, &bad);
		found = k < nb && !MP_LT(key, b[k]);
		out[o] = key;
		o += found != anti;
		if ((i & 0xFFFF) == 0xFFFF && poll && poll())
		{
			*nout = o;
			return MP_CANCELLED;
		}
	}
	*nout = o;
	if (check && (bad || !MP_NAME(run_sorted) (b, k, nb)))
		return MP_UNSORTED;
	return MP_OK;
}

/* The number of pairs of the join, and the check of both inputs. */
static mp_status
MP_NAME(join_count) (const MP_T *a, int64_t na, const MP_T *b, int64_t nb, int64_t *npairs,
					 bool check, mp_poll_fn poll)
{
	const bool	gallop = MP_NAME(gallops) (nb, na);
	int64_t		lo = 0,
				hi = 0,
				pairs = 0;
	bool		bad = false;

	for (int64_t i = 0; i < na; i++)
	{
		MP_T		key = a[i];

		if (check && i > 0)
			bad |= MP_LT(key, a[i - 1]);
		lo = MP_NAME(seek) (b, lo, nb, key, false, gallop, false, &bad);
		hi = MP_NAME(seek) (b, MP_NAME(upper_from) (lo, hi, check), nb, key, true, gallop, check,
							&bad);
		pairs += hi > lo ? hi - lo : 0;
		if ((i & 0xFFFF) == 0xFFFF && poll && poll())
			return MP_CANCELLED;
	}
	*npairs = pairs;
	if (check && (bad || !MP_NAME(run_sorted) (b, hi, nb)))
		return MP_UNSORTED;
	return MP_OK;
}

/*
 * The next pairs after the cursor; inputs already checked by join_count.
 * Its pointers move as join_count's did with the check off, which on sorted
 * input is where they went with it on, so that the pairs are the ones
 * counted, also on unsorted input with the check off.
 */
static int64_t
MP_NAME(join_next) (const MP_T *a, int64_t na, const MP_T *b, int64_t nb, mp_join_cursor *c,
					int32_t *restrict a_pos, int32_t *restrict b_pos, int64_t cap)
{
	const bool	gallop = MP_NAME(gallops) (nb, na);
	int64_t		o = 0;
	bool		unused = false;

	while (o < cap)
	{
		if (c->started && c->j < c->hi)
		{
			int64_t		take = c->hi - c->j < cap - o ? c->hi - c->j : cap - o;

			for (int64_t k = 0; k < take; k++)
			{
				a_pos[o + k] = (int32_t) c->i;
				b_pos[o + k] = (int32_t) (c->j + k);
			}
			o += take;
			c->j += take;
			continue;
		}
		if (c->started)
			c->i++;
		c->started = true;
		if (c->i >= na)
		{
			c->i = na;
			break;
		}
		c->lo = MP_NAME(seek) (b, c->lo, nb, a[c->i], false, gallop, false, &unused);
		c->hi = MP_NAME(seek) (b, MP_NAME(upper_from) (c->lo, c->hi, false), nb, a[c->i], true,
							   gallop, false, &unused);
		c->j = c->lo;
	}
	return o;
}
