/*
 * cpu_merge_impl.h
 *		The CPU backend's loops for one element type.
 *
 * Included by cpu_impl.h.
 *
 * A two-pointer merge is bound by latency, not bandwidth: the next loads
 * wait for this step's comparison.  So the merge is cut, as on the GPU, by
 * Merge Path: each chunk of MP_CPU_CHUNK outputs is split by cross-diagonal
 * search into MP_CPU_LANES segments of equal length, and the lanes' merges
 * run interleaved in one loop, their dependency chains overlapping.
 *
 * The sortedness check rides on the outputs: each lane's merge emits its A
 * and B windows in their own order, so a lane's output is ascending exactly
 * when its windows are; with splits that never go backwards and each lane's
 * first output not below the previous lane's last, the whole inputs are
 * ascending.  That is one comparison per element and no extra pass.
 */

/* Number of A elements among the first diag outputs of the stable merge. */
static inline int64_t
MP_NAME(merge_path) (const MP_T *a, int64_t na, const MP_T *b, int64_t nb, int64_t diag)
{
	int64_t		lo = diag > nb ? diag - nb : 0;
	int64_t		hi = diag < na ? diag : na;

	while (lo < hi)
	{
		int64_t		mid = (lo + hi) / 2;

		if (!MP_LT(b[diag - 1 - mid], a[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * take_y ? y : x without a branch: the merge's choices are as unpredictable
 * as the data, and a mispredicted branch costs more than the whole step.
 */
static inline MP_T
MP_NAME(select) (bool take_y, MP_T y, MP_T x)
{
	MP_U		ux,
				uy,
				ur;
	MP_T		v;

	memcpy(&ux, &x, sizeof(ux));
	memcpy(&uy, &y, sizeof(uy));
	ur = ux ^ ((ux ^ uy) & (MP_U) - (MP_U) take_y);
	memcpy(&v, &ur, sizeof(v));
	return v;
}

/*
 * One merge step: the smaller head of a[I] and b[J] (a's on ties) goes to
 * out[O], and the checked order against PREV.  A macro, not a function, so
 * that the interleaved lanes' indices stay in registers.
 */
#define MP_MERGE_STEP(I, J, O, PREV) \
	do { \
		MP_T		x_ = a[I], \
					y_ = b[J]; \
		bool		tb_ = MP_LT(y_, x_); \
		MP_T		v_ = MP_NAME(select) (tb_, y_, x_); \
		\
		out[O] = v_; \
		if (check) \
		{ \
			unsorted |= MP_LT(v_, PREV); \
			(PREV) = v_; \
		} \
		(I) += !tb_; \
		(J) += tb_; \
	} while (0)

/* One lane: a[i..iend) and b[j..jend) merged into out[o..oend). */
typedef struct MP_NAME(lane)
{
	int64_t		i,
				iend,
				j,
				jend,
				o,
				oend;
	MP_T		prev;			/* last output, for the check */
} MP_NAME(lane);

/* Steps every lane can take before any of its windows or outputs runs out. */
static inline int64_t
MP_NAME(safe_steps) (const MP_NAME(lane) *l)
{
	int64_t		s = l->oend - l->o;

	if (l->iend - l->i < s)
		s = l->iend - l->i;
	if (l->jend - l->j < s)
		s = l->jend - l->j;
	return s;
}

/* Finish a lane one of whose windows is used up. */
static inline bool
MP_NAME(lane_tail) (const MP_T *a, const MP_T *b, MP_T *restrict out, MP_NAME(lane) *l, bool check)
{
	const MP_T *src = l->i < l->iend ? a + l->i : b + l->j;
	int64_t		len = l->oend - l->o;
	bool		unsorted = false;

	if (check)
		for (int64_t s = 0; s < len; s++)
		{
			unsorted |= MP_LT(src[s], l->prev);
			l->prev = src[s];
		}
	memcpy(out + l->o, src, len * sizeof(MP_T));
	l->o = l->oend;
	return unsorted;
}

/*
 * Merge the outputs [r0, r1) given where they start in a and b; false when
 * the splits show unsorted input.
 */
static inline __attribute__((always_inline)) bool
MP_NAME(merge_chunk) (const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
					  MP_T *restrict out, int64_t r0, int64_t r1, bool check)
{
	MP_NAME(lane) lanes[MP_CPU_LANES];
	int64_t		split_a[MP_CPU_LANES + 1];
	bool		unsorted = false;

	for (int k = 0; k <= MP_CPU_LANES; k++)
	{
		int64_t		diag = r0 + (r1 - r0) * k / MP_CPU_LANES;

		split_a[k] = MP_NAME(merge_path) (a, na, b, nb, diag);
	}
	for (int k = 0; k < MP_CPU_LANES; k++)
	{
		MP_NAME(lane) *l = &lanes[k];

		l->o = r0 + (r1 - r0) * k / MP_CPU_LANES;
		l->oend = r0 + (r1 - r0) * (k + 1) / MP_CPU_LANES;
		l->i = split_a[k];
		l->iend = split_a[k + 1];
		l->j = l->o - l->i;
		l->jend = l->oend - l->iend;
		/* on sorted input splits only go forward; otherwise the windows
		 * would not fit the lane */
		if (l->iend < l->i || l->jend < l->j)
			return false;
		if (l->o == l->oend)
			continue;
		/* the lane's first output: nothing in the lane is below it */
		l->prev = l->i == l->iend ? b[l->j] : l->j == l->jend ? a[l->i] :
			MP_LT(b[l->j], a[l->i]) ? b[l->j] : a[l->i];
	}

	for (;;)
	{
		int64_t		steps = INT64_MAX;
		int			active = 0;

		for (int k = 0; k < MP_CPU_LANES; k++)
		{
			MP_NAME(lane) *l = &lanes[k];
			int64_t		s;

			if (l->o == l->oend)
				continue;
			s = MP_NAME(safe_steps) (l);
			if (s == 0)
			{
				unsorted |= MP_NAME(lane_tail) (a, b, out, l, check);
				continue;
			}
			active++;
			if (s < steps)
				steps = s;
		}
		if (active == 0)
			break;
		if (active == MP_CPU_LANES)
		{
			/* the hot loop: lane state in locals the compiler keeps in
			 * registers; a lane's next output goes to i + j, its diagonal */
			int64_t		li[MP_CPU_LANES],
						lj[MP_CPU_LANES];
			MP_T		lp[MP_CPU_LANES];

			for (int k = 0; k < MP_CPU_LANES; k++)
			{
				li[k] = lanes[k].i;
				lj[k] = lanes[k].j;
				lp[k] = lanes[k].prev;
			}
			for (int64_t s = 0; s < steps; s++)
			{
#pragma GCC unroll 8
				for (int k = 0; k < MP_CPU_LANES; k++)
					MP_MERGE_STEP(li[k], lj[k], li[k] + lj[k], lp[k]);
			}
			for (int k = 0; k < MP_CPU_LANES; k++)
			{
				lanes[k].i = li[k];
				lanes[k].j = lj[k];
				lanes[k].o = li[k] + lj[k];
				lanes[k].prev = lp[k];
			}
		}
		else
		{
			/* lanes finish at different times: the rest one by one */
			for (int k = 0; k < MP_CPU_LANES; k++)
			{
				MP_NAME(lane) *l = &lanes[k];
				int64_t		ls;

				if (l->o == l->oend)
					continue;
				ls = MP_NAME(safe_steps) (l);
				for (int64_t s = 0; s < ls; s++)
					MP_MERGE_STEP(l->i, l->j, l->o++, l->prev);
			}
		}
	}

	/* each lane's first output against the one before it */
	for (int k = 1; k < MP_CPU_LANES && check; k++)
	{
		int64_t		o = r0 + (r1 - r0) * k / MP_CPU_LANES;

		if (o > r0 && o < r1)
			unsorted |= MP_LT(out[o], out[o - 1]);
	}
	if (check && r0 > 0 && r1 > r0)
		unsorted |= MP_LT(out[r0], out[r0 - 1]);
	return !unsorted;
}

static inline __attribute__((always_inline)) mp_status
MP_NAME(merge) (const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
				MP_T *restrict out, bool check, mp_poll_fn poll)
{
	const int64_t n = na + nb;

	for (int64_t r0 = 0; r0 < n; r0 += MP_CPU_CHUNK)
	{
		int64_t		r1 = n - r0 < MP_CPU_CHUNK ? n : r0 + MP_CPU_CHUNK;

		if (!MP_NAME(merge_chunk) (a, na, b, nb, out, r0, r1, check))
		{
			if (check)
				return MP_UNSORTED;
			/* unchecked and unsorted: the result is unspecified, but every
			 * output is written (with the concatenation) */
			for (int64_t r = r0; r < r1;)
			{
				int64_t		len = r < na ? (r1 < na ? r1 : na) - r : r1 - r;

				memcpy(out + r, r < na ? a + r : b + (r - na), len * sizeof(MP_T));
				r += len;
			}
		}
		if (poll && poll())
			return MP_CANCELLED;
	}
	return MP_OK;
}

#undef MP_MERGE_STEP

static int64_t
MP_NAME(first_unsorted) (const MP_T *x, int64_t n)
{
	for (int64_t i = 1; i < n; i++)
		if (MP_LT(x[i], x[i - 1]))
			return i;
	return -1;
}
