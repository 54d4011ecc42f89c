/*
 * cpu_sort_impl.h
 *		The CPU backend's sort, unique and checked copy for one element type.
 *
 * Included by cpu_impl.h; uses MP_KEY, mp_order.h's order-preserving
 * unsigned key of the type.
 *
 * The sort is a least-significant-digit radix sort over the keys, 11 bits a
 * pass, moving the values themselves (a key is never written back, so -0
 * stays -0 and a NaN keeps its payload; keys that are equal keep their input
 * order, which is what makes the sort stable).  One read of the input first
 * counts every digit's histogram and sees whether it is sorted already: a
 * sorted input is copied, and a pass whose digit is the same for every
 * element (the high digits of small integers) is skipped.  The passes
 * alternate between out and scratch, starting where the last one ends in
 * out.  Below MP_CPU_SORT_SMALL elements a merge sort (insertion-sorted runs,
 * then merges) is quicker than a radix sort's fixed costs.
 */

/* Insertion-sorted run length of the small sort. */
#define MP_SORT_RUN 16

/* Stable merge of x[lo..mid) and x[mid..hi) into y[lo..hi). */
static inline void
MP_NAME(merge_runs) (const MP_T *x, int64_t lo, int64_t mid, int64_t hi, MP_T *restrict y)
{
	int64_t		i = lo,
				j = mid,
				o = lo;

	while (i < mid && j < hi)
	{
		bool		take_b = MP_LT(x[j], x[i]);

		y[o++] = take_b ? x[j] : x[i];
		j += take_b;
		i += !take_b;
	}
	while (i < mid)
		y[o++] = x[i++];
	while (j < hi)
		y[o++] = x[j++];
}

static void
MP_NAME(small_sort) (const MP_T *in, int64_t n, MP_T *out, MP_T *scratch)
{
	MP_T	   *src = out,
			   *dst = scratch;

	memcpy(out, in, n * sizeof(MP_T));
	for (int64_t lo = 0; lo < n; lo += MP_SORT_RUN)
	{
		int64_t		hi = lo + MP_SORT_RUN < n ? lo + MP_SORT_RUN : n;

		for (int64_t i = lo + 1; i < hi; i++)
		{
			MP_T		x = out[i];
			int64_t		j = i;

			while (j > lo && MP_LT(x, out[j - 1]))
			{
				out[j] = out[j - 1];
				j--;
			}
			out[j] = x;
		}
	}
	for (int64_t width = MP_SORT_RUN; width < n; width *= 2)
	{
		MP_T	   *t;

		for (int64_t lo = 0; lo < n; lo += 2 * width)
		{
			int64_t		mid = lo + width < n ? lo + width : n;
			int64_t		hi = lo + 2 * width < n ? lo + 2 * width : n;

			MP_NAME(merge_runs) (src, lo, mid, hi, dst);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != out)
		memcpy(out, src, n * sizeof(MP_T));
}

/*
 * 11-bit digits: three passes over 4-byte keys and six over 8-byte ones,
 * instead of four and eight a byte at a time.  A pass is bound by its
 * scattered stores, not by the buckets' count: 2048 buckets' open lines
 * (128 kB) stay in the core's L2.  On the GPU host, 10M int4 in 380 ms
 * against 470 (test/bench/NOTES.md).
 */
#define MP_RADIX_BITS 11
#define MP_RADIX (1 << MP_RADIX_BITS)
#define MP_PASSES ((int) (8 * sizeof(MP_U) + MP_RADIX_BITS - 1) / MP_RADIX_BITS)
#define MP_DIGIT(k, d) ((int) (((k) >> (MP_RADIX_BITS * (d))) & (MP_RADIX - 1)))

static mp_status
MP_NAME(sort) (const MP_T *in, int64_t n, MP_T *out, MP_T *scratch, mp_poll_fn poll)
{
	int64_t		hist[MP_PASSES][MP_RADIX];
	bool		moves[MP_PASSES];
	int			passes = 0;
	bool		unsorted = false;
	MP_U		prev;
	const MP_T *src;
	MP_T	   *dst;

	if (n / (int64_t) (sizeof(MP_T) / 4) < mp_cpu_sort_small)
	{
		MP_NAME(small_sort) (in, n, out, scratch);
		return MP_OK;
	}

	/* every digit's histogram, and whether the input is sorted already */
	memset(hist, 0, sizeof(hist));
	prev = MP_KEY(in[0]);
	for (int64_t lo = 0; lo < n; lo += MP_CPU_CHUNK)
	{
		int64_t		hi = lo + MP_CPU_CHUNK < n ? lo + MP_CPU_CHUNK : n;

		if (poll && poll())
			return MP_CANCELLED;
		for (int64_t i = lo; i < hi; i++)
		{
			MP_U		k = MP_KEY(in[i]);

			unsorted |= k < prev;
			prev = k;
			for (int d = 0; d < MP_PASSES; d++)
				hist[d][MP_DIGIT(k, d)]++;
		}
	}
	if (!unsorted)
	{
		memcpy(out, in, n * sizeof(MP_T));
		return MP_OK;
	}
	for (int d = 0; d < MP_PASSES; d++)
	{
		moves[d] = hist[d][MP_DIGIT(MP_KEY(in[0]), d)] != n;
		passes += moves[d];
	}

	/* an odd number of passes starts into out, an even one into scratch */
	src = in;
	dst = passes % 2 ? out : scratch;
	for (int d = 0; d < MP_PASSES; d++)
	{
		int64_t		next[MP_RADIX];
		int64_t		sum = 0;

		if (!moves[d])
			continue;
		for (int v = 0; v < MP_RADIX; v++)
		{
			next[v] = sum;
			sum += hist[d][v];
		}
		for (int64_t lo = 0; lo < n; lo += MP_CPU_CHUNK)
		{
			int64_t		hi = lo + MP_CPU_CHUNK < n ? lo + MP_CPU_CHUNK : n;

			if (poll && poll())
				return MP_CANCELLED;
			for (int64_t i = lo; i < hi; i++)
			{
				MP_T		x = src[i];

				dst[next[MP_DIGIT(MP_KEY(x), d)]++] = x;
			}
		}
		src = dst;
		dst = dst == out ? scratch : out;
	}
	return MP_OK;
}

#undef MP_DIGIT
#undef MP_PASSES
#undef MP_RADIX
#undef MP_RADIX_BITS

static mp_status
MP_NAME(unique) (const MP_T *x, int64_t n, MP_T *restrict out, int64_t *nout, bool check,
				 mp_poll_fn poll)
{
	int64_t		o = 1;
	bool		bad = false;

	*nout = 0;
	if (n == 0)
		return MP_OK;
	out[0] = x[0];
	for (int64_t lo = 1; lo < n; lo += MP_CPU_CHUNK)
	{
		int64_t		hi = lo + MP_CPU_CHUNK < n ? lo + MP_CPU_CHUNK : n;

		if (poll && poll())
			return MP_CANCELLED;
		/* every element is stored; the end moves past it only for a new key */
		for (int64_t i = lo; i < hi; i++)
		{
			out[o] = x[i];
			o += MP_LT(x[i - 1], x[i]);
			if (check)
				bad |= MP_LT(x[i], x[i - 1]);
		}
		if (bad)
			return MP_UNSORTED;
	}
	*nout = o;
	return MP_OK;
}

static int64_t
MP_NAME(copy_checked) (const MP_T *x, int64_t n, MP_T *restrict out)
{
	bool		bad = false;

	if (n > 0)
		out[0] = x[0];
	for (int64_t i = 1; i < n; i++)
	{
		out[i] = x[i];
		bad |= MP_LT(x[i], x[i - 1]);
	}
	return bad ? MP_NAME(first_unsorted) (x, n) : -1;
}
