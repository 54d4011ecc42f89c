/*
 * balanced_path.cuh
 *		Balanced Path (Baxter, moderngpu): the run of a key around a Merge
 *		Path split, and the split balanced so that the copies in front of it
 *		pair up, as the set operations cut their tiles.
 */
#ifndef MP_PRIMITIVES_BALANCED_PATH_CUH
#define MP_PRIMITIVES_BALANCED_PATH_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "order.cuh"

namespace mp
{

/*
 * The run of key x around a split ai + bi (b[bi] is x): in *a_start the
 * first k from which a[k..ai) is not below x, in *b_start the same for
 * b[..bi), in *b_end the first j > bi at which x is below b[j] (or nb).
 * Each comes in with what is known: a_long when a[ai - 4..ai) are copies
 * (else *a_start is the answer), b_long the same for B, e_long when
 * b[bi + 1] is one (else *b_end is bi + 1).  The searches left go side by
 * side, one load of each a round: each gallops away from the split (1, 2,
 * 4, ... places), then halves what is left.
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
MP_HOST_DEVICE void
run_bounds(PtrA a, IndexT ai, PtrB b, IndexT bi, IndexT nb, T x, bool a_long, bool b_long,
		   bool e_long, IndexT *a_start, IndexT *b_start, IndexT *b_end)
{
	IndexT		a_lo = a_long ? 0 : *a_start,
				a_hi = a_long ? ai - 4 : *a_start,
				b_lo = b_long ? 0 : *b_start,
				b_hi = b_long ? bi - 4 : *b_start,
				e_lo = e_long ? bi + 2 : bi + 1,
				e_hi = e_long ? nb : bi + 1,
				step = 1;
	bool		a_on = a_long,
				b_on = b_long,
				e_on = e_long;

	while (a_on || b_on || e_on)
	{
		a_on = a_on && a_hi > step;
		b_on = b_on && b_hi > step;
		e_on = e_on && e_lo + step - 1 < nb;

		const IndexT pa = a_hi - step,
					pb = b_hi - step,
					pe = e_lo + step - 1;
		const T		va = a_on ? a[pa] : x,
					vb = b_on ? b[pb] : x,
					ve = e_on ? b[pe] : x;

		if (a_on && order<T>::lt(va, x))
		{
			a_lo = pa + 1;
			a_on = false;
		}
		else if (a_on)
			a_hi = pa;
		if (b_on && order<T>::lt(vb, x))
		{
			b_lo = pb + 1;
			b_on = false;
		}
		else if (b_on)
			b_hi = pb;
		if (e_on && order<T>::lt(x, ve))
		{
			e_hi = pe;
			e_on = false;
		}
		else if (e_on)
			e_lo = pe + 1;
		step <<= 1;
	}
	while (a_lo < a_hi || b_lo < b_hi || e_lo < e_hi)
	{
		const IndexT ma = (a_lo + a_hi) >> 1,
					mb = (b_lo + b_hi) >> 1,
					me = (e_lo + e_hi) >> 1;
		const bool	a_in = a_lo < a_hi,
					b_in = b_lo < b_hi,
					e_in = e_lo < e_hi;
		const T		va = a_in ? a[ma] : x,
					vb = b_in ? b[mb] : x,
					ve = e_in ? b[me] : x;

		if (a_in)
		{
			if (order<T>::lt(va, x))
				a_lo = ma + 1;
			else
				a_hi = ma;
		}
		if (b_in)
		{
			if (order<T>::lt(vb, x))
				b_lo = mb + 1;
			else
				b_hi = mb;
		}
		if (e_in)
		{
			if (!order<T>::lt(x, ve))
				e_lo = me + 1;
			else
				e_hi = me;
		}
	}
	*a_start = a_lo;
	*b_start = b_lo;
	*b_end = e_lo;
}

/*
 * The balanced split on diagonal diag, given its Merge Path split ai (A
 * first on ties): returns the A split and sets *star.  B's split is diag -
 * result, and with a star B's element there goes in front of the split too.
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
MP_HOST_DEVICE IndexT
balanced_path(PtrA a, PtrB b, IndexT nb, IndexT diag, IndexT ai, bool *star)
{
	IndexT		bi = diag - ai;

	*star = false;
	if (bi >= nb)
		return ai;

	/*
	 * The run of B's next key in front of the split, in A and in B (when
	 * any B copy is in front, so is every A copy: ties go to A first).
	 * Mostly it has at most three copies a side; then the ten loads that
	 * count them, and whether B holds a second copy from bi on, go out
	 * together, and the rule below needs no more.  Longer runs are
	 * searched for (run_bounds).
	 */
	const T		x = b[bi];
	bool		in_a[4] = {false, false, false, false},
				in_b[4] = {false, false, false, false},
				b_second = false;

	MP_UNROLL
	for (int k = 0; k < 4; k++)
	{
		if (ai > k)
			in_a[k] = !order<T>::lt(a[ai - 1 - k], x);
		if (bi > k)
			in_b[k] = !order<T>::lt(b[bi - 1 - k], x);
	}
	if (bi + 1 < nb)
		b_second = !order<T>::lt(x, b[bi + 1]);

	const bool	short_runs = !in_a[3] && !in_b[3];
	IndexT		a_start = ai - in_a[0] - in_a[1] - in_a[2],
				b_start = bi - in_b[0] - in_b[1] - in_b[2],
				b_end = bi + 1;

	if (!short_runs)
		run_bounds<T>(a, ai, b, bi, nb, x, in_a[3], in_b[3], b_second, &a_start, &b_start,
					  &b_end);

	const IndexT count = (ai - a_start) + (bi - b_start);

	/* give B half of the run's copies in front (or all it has there, if
	 * more), as far as B has them: lo is the end of B's run, up to b_start
	 * + b_adv + 1 (b[bi] is x, and with short runs b_adv + 1 is at most bi -
	 * b_start + 2) */
	IndexT		b_adv = count >> 1 > bi - b_start ? count >> 1 : bi - b_start;
	const IndexT b_cap = b_start + b_adv + 1;
	IndexT		lo = bi + 1;

	if (short_runs)
		lo = b_second && b_cap > lo ? lo + 1 : lo;
	else
		lo = b_end < b_cap ? b_end : b_cap > lo ? b_cap : lo;

	const IndexT b_run = lo - b_start;	/* B's copies of x, up to b_adv + 1 */

	b_adv = b_adv < b_run ? b_adv : b_run;

	const IndexT a_adv = count - b_adv;

	/* one A copy more than B's, and B has its partner: the star */
	*star = a_adv == b_adv + 1 && b_adv < b_run;
	return a_start + a_adv;
}

}								/* namespace mp */

#endif							/* MP_PRIMITIVES_BALANCED_PATH_CUH */
