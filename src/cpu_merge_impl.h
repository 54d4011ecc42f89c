/*
 * cpu_merge_impl.h
 *		The CPU backend's loops for one element type.
 *
 * Included by cpu_backend.c once per type, with MP_T (element type), MP_K
 * (its key type), MP_KEY (mp_order.h's key function) and MP_NAME(x) (a name
 * suffix) defined.  Undefines them at the end.
 */

/*
 * A merge that is checked only through its output: the two-pointer merge
 * emits each input's elements in their input order, so the output is
 * ascending exactly when both inputs are.  That costs one key comparison per
 * element and no extra pass.
 */
static inline __attribute__((always_inline)) mp_status
MP_NAME(merge) (const MP_T *a, int64_t na, const MP_T *b, int64_t nb,
				MP_T *restrict out, bool check, mp_poll_fn poll)
{
	int64_t		i = 0,
				j = 0,
				k = 0;
	const int64_t n = na + nb;
	MP_K		prev = 0;
	bool		unsorted = false;

	while (k < n)
	{
		int64_t		kend = n - k < MP_CPU_CHUNK ? n : k + MP_CPU_CHUNK;

		/* both sides have elements: no step can run past either end */
		for (;;)
		{
			int64_t		steps = kend - k;

			if (na - i < steps)
				steps = na - i;
			if (nb - j < steps)
				steps = nb - j;
			if (steps == 0)
				break;
			for (int64_t s = 0; s < steps; s++)
			{
				MP_T		x = a[i],
							y = b[j];
				MP_K		kx = MP_KEY(x),
							ky = MP_KEY(y);
				bool		take_b = ky < kx;
				MP_K		kv = take_b ? ky : kx;

				out[k++] = take_b ? y : x;
				if (check)
				{
					unsorted |= kv < prev;
					prev = kv;
				}
				i += !take_b;
				j += take_b;
			}
		}
		/* one side is used up: the rest of this chunk comes from the other */
		while (k < kend)
		{
			MP_T		v = i < na ? a[i++] : b[j++];

			if (check)
			{
				MP_K		kv = MP_KEY(v);

				unsorted |= kv < prev;
				prev = kv;
			}
			out[k++] = v;
		}
		if (unsorted)
			return MP_UNSORTED;
		if (poll && poll())
			return MP_CANCELLED;
	}
	return MP_OK;
}

static int64_t
MP_NAME(first_unsorted) (const MP_T *x, int64_t n)
{
	for (int64_t i = 1; i < n; i++)
		if (MP_KEY(x[i]) < MP_KEY(x[i - 1]))
			return i;
	return -1;
}

#undef MP_T
#undef MP_K
#undef MP_KEY
#undef MP_NAME
