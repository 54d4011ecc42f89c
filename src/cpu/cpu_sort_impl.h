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
 * then merges) is quicker than a radix sort's fixed costs, and below
 * MP_CPU_SORT_BYTES a radix sort of byte digits, whose counts are smaller.
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
 * The radix sort of a few hundred to a few thousand elements: byte digits,
 * so that its counts (256 a digit, 32-bit) take 4 kB for 4-byte keys where
 * the 11-bit digits' take 48 kB, which clearing and summing cost more than
 * such a sort's passes (test/bench/NOTES.md, "The CPU sort of small
 * arrays").  Same plan as the large sort below: one read counts every
 * digit and sees whether the input is sorted, a pass whose digit never
 * varies is skipped, and the passes alternate between out and scratch.
 */
static void
MP_NAME(byte_sort) (const MP_T *in, int64_t n, MP_T *out, MP_T *scratch)
{
	uint32_t	hist[sizeof(MP_U)][256];
	bool		moves[sizeof(MP_U)];
	int			passes = 0;
	bool		unsorted = false;
	MP_U		prev = MP_KEY(in[0]);
	const MP_T *src = in;
	MP_T	   *dst;

	memset(hist, 0, sizeof(hist));
	for (int64_t i = 0; i < n; i++)
	{
		MP_U		k = MP_KEY(in[i]);

		unsorted |= k < prev;
		prev = k;
		for (int d = 0; d < (int) sizeof(MP_U); d++)
			hist[d][(k >> (8 * d)) & 255]++;
	}
	if (!unsorted)
	{
		memcpy(out, in, n * sizeof(MP_T));
		return;
	}
	for (int d = 0; d < (int) sizeof(MP_U); d++)
	{
		moves[d] = hist[d][(MP_KEY(in[0]) >> (8 * d)) & 255] != (uint32_t) n;
		passes += moves[d];
	}
	dst = passes % 2 ? out : scratch;
	for (int d = 0; d < (int) sizeof(MP_U); d++)
	{
		uint32_t	next[256];
		uint32_t	sum = 0;

		if (!moves[d])
			continue;
		for (int v = 0; v < 256; v++)
		{
			next[v] = sum;
			sum += hist[d][v];
		}
		for (int64_t i = 0; i < n; i++)
		{
			MP_T		x = src[i];

			dst[next[(MP_KEY(x) >> (8 * d)) & 255]++] = x;
		}
		src = dst;
		dst = dst == out ? scratch : out;
	}
}

/*
 * 11-bit digits: three passes over 4-byte keys and six over 8-byte ones,
 * instead of four and eight a byte at a time.  A pass is bound by its
 * scattered stores, not by the buckets' count: 2048 buckets' open lines
 * (128 kB) stay in the core's L2.  On the GPU host, 10M int4 in 380 ms
 * against 470 (test/bench/NOTES.md, "The CPU sort: 11-bit digits").
 */
#define MP_RADIX_BITS 11
#define MP_RADIX (1 << MP_RADIX_BITS)
#define MP_PASSES ((int) (8 * sizeof(MP_U) + MP_RADIX_BITS - 1) / MP_RADIX_BITS)
#define MP_DIGIT(k, d) ((int) (((k) >> (MP_RADIX_BITS * (d))) & (MP_RADIX - 1)))

/*
 * The radix sort on mp_cpu_threads_now() threads: the input cut into as many
 * parts, each pass counted and scattered part by part, a part's elements of
 * each digit value going to a slot range of their own (all the lower parts'
 * elements of that value before them), so that the order is that of one
 * thread's pass and the sort stays stable.  A pass's counts are the first
 * read's where its input is the input, and a read of their own otherwise.
 * The parts advance in rounds of MP_CPU_CHUNK elements each, with a poll
 * between rounds (the threads themselves never poll).
 */
typedef struct MP_NAME(radix_job)
{
	const MP_T *src;
	MP_T	   *dst;
	int64_t		n;
	int			nparts;
	int			digit;			/* -1: the first read, every digit */
	int64_t		round;			/* of the parts' rounds */
	int64_t    *counts;			/* a part's MP_PASSES x MP_RADIX counts, then next slots */
	bool	   *unsorted;		/* a part's: some element below the one before */
	bool		scatter;
} MP_NAME(radix_job);

/* Part t's elements in the job's round. */
static inline void
MP_NAME(radix_round) (const MP_NAME(radix_job) *job, int t, int64_t *lo, int64_t *hi)
{
	int64_t		start = job->n * t / job->nparts,
				end = job->n * (t + 1) / job->nparts;

	*lo = start + job->round * MP_CPU_CHUNK;
	*hi = *lo + MP_CPU_CHUNK < end ? *lo + MP_CPU_CHUNK : end;
}

static void
MP_NAME(radix_part) (void *ctx, int64_t first, int64_t last)
{
	const MP_NAME(radix_job) *job = ctx;

	for (int t = (int) first; t < (int) last; t++)
	{
		int64_t    *counts = job->counts + (size_t) t * MP_PASSES * MP_RADIX;
		const MP_T *src = job->src;
		int64_t		lo,
					hi;

		MP_NAME(radix_round) (job, t, &lo, &hi);
		if (job->digit < 0)
		{
			bool		unsorted = false;

			for (int64_t i = lo; i < hi; i++)
			{
				MP_U		k = MP_KEY(src[i]);

				unsorted |= i > 0 && k < MP_KEY(src[i - 1]);
				for (int d = 0; d < MP_PASSES; d++)
					counts[d * MP_RADIX + MP_DIGIT(k, d)]++;
			}
			job->unsorted[t] |= unsorted;
		}
		else if (!job->scatter)
		{
			int64_t    *c = counts + job->digit * MP_RADIX;

			for (int64_t i = lo; i < hi; i++)
				c[MP_DIGIT(MP_KEY(src[i]), job->digit)]++;
		}
		else
		{
			int64_t    *next = counts + job->digit * MP_RADIX;
			MP_T	   *restrict dst = job->dst;

			for (int64_t i = lo; i < hi; i++)
			{
				MP_T		x = src[i];

				dst[next[MP_DIGIT(MP_KEY(x), job->digit)]++] = x;
			}
		}
	}
}

/* Every part's round, on the threads; then a poll. */
static bool
MP_NAME(radix_rounds) (MP_NAME(radix_job) *job, mp_poll_fn poll)
{
	int64_t		rounds = (job->n / job->nparts + 1 + MP_CPU_CHUNK - 1) / MP_CPU_CHUNK;

	for (job->round = 0; job->round < rounds; job->round++)
	{
		mp_cpu_parallel(job->nparts, job->nparts, 1, MP_NAME(radix_part), job);
		if (poll && poll())
			return false;
	}
	return true;
}

/*
 * Returns MP_OUT_OF_MEMORY, having done nothing, when the counts cannot be
 * allocated: the caller sorts on its own thread then.
 */
static mp_status
MP_NAME(sort_threads) (const MP_T *in, int64_t n, MP_T *out, MP_T *scratch, int nparts,
					   mp_poll_fn poll)
{
	MP_NAME(radix_job) job = {in, NULL, n, nparts, -1, 0, NULL, NULL, false};
	bool		moves[MP_PASSES];
	bool		unsorted = false;
	int			passes = 0;
	bool		first = true;
	MP_T	   *dst;

	job.counts = calloc((size_t) nparts * MP_PASSES * MP_RADIX, sizeof(int64_t));
	job.unsorted = calloc(nparts, sizeof(bool));
	if (job.counts == NULL || job.unsorted == NULL)
	{
		free(job.counts);
		free(job.unsorted);
		return MP_OUT_OF_MEMORY;
	}
	if (!MP_NAME(radix_rounds) (&job, poll))
		goto cancelled;
	for (int t = 0; t < nparts; t++)
		unsorted |= job.unsorted[t];
	if (!unsorted)
	{
		memcpy(out, in, n * sizeof(MP_T));
		goto done;
	}
	for (int d = 0; d < MP_PASSES; d++)
	{
		int64_t		all = 0;

		for (int t = 0; t < nparts; t++)
			all += job.counts[((size_t) t * MP_PASSES + d) * MP_RADIX + MP_DIGIT(MP_KEY(in[0]), d)];
		moves[d] = all != n;
		passes += moves[d];
	}

	dst = passes % 2 ? out : scratch;
	for (int d = 0; d < MP_PASSES; d++)
	{
		int64_t		sum = 0;

		if (!moves[d])
			continue;
		job.digit = d;
		if (!first)
		{
			/* the parts' counts of this digit, over this pass's input */
			for (int t = 0; t < nparts; t++)
				memset(job.counts + ((size_t) t * MP_PASSES + d) * MP_RADIX, 0,
					   MP_RADIX * sizeof(int64_t));
			job.scatter = false;
			if (!MP_NAME(radix_rounds) (&job, poll))
				goto cancelled;
		}
		first = false;
		/* counts into next slots: value by value, part by part */
		for (int v = 0; v < MP_RADIX; v++)
			for (int t = 0; t < nparts; t++)
			{
				int64_t    *c = &job.counts[((size_t) t * MP_PASSES + d) * MP_RADIX + v];
				int64_t		count = *c;

				*c = sum;
				sum += count;
			}
		job.dst = dst;
		job.scatter = true;
		if (!MP_NAME(radix_rounds) (&job, poll))
			goto cancelled;
		job.src = dst;
		dst = dst == out ? scratch : out;
	}
done:
	free(job.counts);
	free(job.unsorted);
	return MP_OK;
cancelled:
	free(job.counts);
	free(job.unsorted);
	return MP_CANCELLED;
}

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
	int			threads;

	if (n / (int64_t) (sizeof(MP_T) / 4) < mp_cpu_sort_small)
	{
		MP_NAME(small_sort) (in, n, out, scratch);
		return MP_OK;
	}
	if (n / (int64_t) (sizeof(MP_T) / 4) < mp_cpu_sort_bytes)
	{
		MP_NAME(byte_sort) (in, n, out, scratch);
		return MP_OK;
	}
	if (n >= 2 * MP_SORT_THREAD_MIN && (threads = mp_cpu_threads_now()) > 1)
	{
		int			nparts = threads < n / MP_SORT_THREAD_MIN ? threads
			: (int) (n / MP_SORT_THREAD_MIN);
		mp_status	st = MP_NAME(sort_threads) (in, n, out, scratch, nparts, poll);

		if (st != MP_OUT_OF_MEMORY)
			return st;
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
