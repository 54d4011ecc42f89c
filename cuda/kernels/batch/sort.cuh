/*
 * sort.cuh (batch)
 *		The sort of every pair's a, pair by pair.  A pair of up to
 *		BATCH_SORT_GROUP_MAX elements is sorted by a group of threads of its
 *		own, in shared memory, by merge sort: each thread sorts its VT
 *		elements in registers (odd-even transposition, stable), then rounds
 *		of merges double the sorted runs until the group's G x VT places are
 *		one run, each thread finding its VT outputs of a merge by a Merge
 *		Path search (ties to the left run, so stable); the order is mp_order's,
 *		so floats' -0 and 0 keep their input order and NaNs come last.  A
 *		pair's places past its end hold order<T>::highest(), which a stable
 *		sort keeps after the pair's own elements.  The places skip one
 *		element every 128 bytes (batch_sort_places), so that the threads'
 *		runs of VT fall in banks of their own; a group of a warp waits on
 *		its warp alone.
 *
 *		Pairs fall into classes by length, each with its group's shape
 *		(batch_sort_shape): 16 elements a thread, 8 threads for the
 *		shortest, up to 256 for 4096.  Two passes over the offsets list
 *		each class's pairs (counted, then placed, by one atomic a warp and
 *		class); a kernel a class then runs blocks that take its pairs in
 *		turn.  Longer pairs, and the classes whose shape says so, are left
 *		to CUB's segmented sort, which the caller runs over those pairs
 *		alone (the others given as empty), or over all of them where they
 *		are all CUB's.
 */
#ifndef MP_BATCH_SORT_CUH
#define MP_BATCH_SORT_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "../primitives/merge_path.cuh"

namespace mp
{

/* the classes of short pairs, and the class of the long ones after them */
constexpr int BATCH_SORT_CLASSES = 6;
constexpr int BATCH_SORT_LONG = BATCH_SORT_CLASSES;
constexpr int BATCH_SORT_GROUP_MAX = 4096;

/* A pair's class by its length (class c: up to 128 << c elements), -1
 * for an empty one, nothing to do. */
__host__ __device__ __forceinline__ int
batch_sort_class(int64_t len)
{
	if (len <= 0)
		return -1;
	for (int c = 0; c < BATCH_SORT_CLASSES; c++)
		if (len <= (128 << c))
			return c;
	return BATCH_SORT_LONG;
}

/*
 * Class C's group for keys of W bytes: G threads of VT elements (G x VT the
 * class's longest pair), in blocks of NT threads; or, where CUB, the class
 * left to CUB's segmented sort with the long pairs (where that measured the
 * faster: test/bench/NOTES.md, "The segmented sort").
 */
template <int W, int C>
struct batch_sort_shape;

#define MP_SORT_SHAPE(W, C, G_, VT_, CUB_) \
template <> \
struct batch_sort_shape<W, C> \
{ \
	static constexpr int G = G_, VT = VT_, NV = G_ * VT_, NT = G_ < 128 ? 128 : G_; \
	static constexpr bool CUB = CUB_; \
	static_assert(NV == 128 << C, "a class's group holds its longest pair"); \
}

MP_SORT_SHAPE(4, 0, 8, 16, true);
MP_SORT_SHAPE(4, 1, 16, 16, false);
MP_SORT_SHAPE(4, 2, 32, 16, false);
MP_SORT_SHAPE(4, 3, 64, 16, false);
MP_SORT_SHAPE(4, 4, 128, 16, false);
MP_SORT_SHAPE(4, 5, 256, 16, false);
MP_SORT_SHAPE(8, 0, 8, 16, false);
MP_SORT_SHAPE(8, 1, 16, 16, false);
MP_SORT_SHAPE(8, 2, 32, 16, false);
MP_SORT_SHAPE(8, 3, 64, 16, false);
MP_SORT_SHAPE(8, 4, 128, 16, false);
MP_SORT_SHAPE(8, 5, 256, 16, false);

#undef MP_SORT_SHAPE

/* Whether class c's pairs (keys of W bytes) go to CUB's segmented sort. */
template <int W>
__host__ __device__ __forceinline__ bool
batch_sort_by_cub(int c)
{
	switch (c)
	{
		case 0:
			return batch_sort_shape<W, 0>::CUB;
		case 1:
			return batch_sort_shape<W, 1>::CUB;
		case 2:
			return batch_sort_shape<W, 2>::CUB;
		case 3:
			return batch_sort_shape<W, 3>::CUB;
		case 4:
			return batch_sort_shape<W, 4>::CUB;
		case 5:
			return batch_sort_shape<W, 5>::CUB;
		default:
			return c == BATCH_SORT_LONG;
	}
}

/*
 * The words the lists take: counts[0 .. 7), cursors[8 .. 15) (zeroed
 * before the count), then one pair index a short pair.
 */
constexpr int BATCH_SORT_COUNTERS = 16;

/*
 * Pass 1 (place == false): how many pairs each class has, into counts.
 * Pass 2: each short pair's index into its class's part of lists (the
 * classes one after another, in class order); with ends, also each pair's
 * end for CUB's sort (its start where the pair's class is not CUB's).
 */
template <int W, bool PLACE>
__global__ void __launch_bounds__(256)
batch_sort_list(const int64_t *__restrict__ off, int64_t npairs,
				unsigned long long *__restrict__ counters, int64_t *__restrict__ lists,
				int64_t *__restrict__ ends)
{
	const int	lane = threadIdx.x & 31;
	unsigned long long start[BATCH_SORT_CLASSES] = {};

	if (PLACE)
	{
		unsigned long long sum = 0;

		for (int c = 0; c < BATCH_SORT_CLASSES; c++)
		{
			start[c] = sum;
			sum += counters[c];
		}
	}
	/* whole warps go round together, so that their ballots see every lane */
	for (int64_t base = (int64_t) blockIdx.x * blockDim.x; base < npairs;
		 base += (int64_t) gridDim.x * blockDim.x)
	{
		const int64_t p = base + threadIdx.x;
		const int64_t begin = p < npairs ? off[p] : 0,
					end = p < npairs ? off[p + 1] : 0;
		const int	c = batch_sort_class(end - begin);

		if (PLACE && ends != nullptr && p < npairs)
			ends[p] = batch_sort_by_cub<W>(c) ? end : begin;
		for (int k = 0; k <= (PLACE ? BATCH_SORT_CLASSES - 1 : BATCH_SORT_LONG); k++)
		{
			const unsigned mask = __ballot_sync(0xffffffffu, c == k);

			if (mask == 0)
				continue;

			const int	leader = __ffs(mask) - 1;
			unsigned long long first = 0;

			if (lane == leader)
				first = atomicAdd(&counters[PLACE ? BATCH_SORT_COUNTERS / 2 + k : k],
								  (unsigned long long) __popc(mask));
			first = __shfl_sync(0xffffffffu, first, leader);
			if (PLACE && c == k)
				lists[start[k] + first + __popc(mask & ((1u << lane) - 1))] = p;
		}
	}
}

/*
 * A group's places in shared memory; with SKEW, one element skipped after
 * every 128 bytes: a thread's VT elements (VT a power of two) then lie in
 * banks of their own across its warp.
 */
template <typename T, bool SKEW = true>
struct batch_sort_places
{
	static constexpr int ROW = 128 / sizeof(T);
	T		   *base;
	int			origin;

	static __host__ __device__ constexpr int room(int n) { return SKEW ? n + n / ROW : n; }
	__device__ __forceinline__ T &operator[](int i) const
	{
		const int	j = origin + i;

		return base[SKEW ? j + j / ROW : j];
	}
};

/*
 * Class c's pairs (its part of lists), a group of G threads of VT elements
 * each, sorted from in into out at the same offsets.  Groups of a warp or
 * less wait on their warp alone.
 */
template <typename T, int G, int VT, bool SKEW = true>
__global__ void __launch_bounds__(G < 128 ? 128 : G)
batch_sort_groups(const T *__restrict__ in, const int64_t *__restrict__ off,
				  const int64_t *__restrict__ lists,
				  const unsigned long long *__restrict__ counters, int c_,
				  T *__restrict__ out)
{
	typedef batch_sort_places<T, SKEW> P;
	constexpr int NV = G * VT,
				NT = G < 128 ? 128 : G,
				GROUPS = NT / G;
	__shared__ T shared[GROUPS * P::room(NV)];

	const int	group = threadIdx.x / G,
				lane = threadIdx.x % G;
	const P		places = {shared + group * P::room(NV), 0};
	const auto	sync = [] {
		if constexpr (G <= 32)
			__syncwarp();
		else
			__syncthreads();
	};
	int64_t		first = 0,
				count = counters[c_];

	for (int c = 0; c < c_; c++)
		first += counters[c];
	/* block-wide rounds, so that every thread meets every barrier */
	for (int64_t round = (int64_t) blockIdx.x * GROUPS; round < count;
		 round += (int64_t) gridDim.x * GROUPS)
	{
		const int64_t k = round + group;
		int64_t		begin = 0;
		int			len = 0;
		T			x[VT];

		if (k < count)
		{
			const int64_t p = lists[first + k];

			begin = off[p];
			len = (int) (off[p + 1] - begin);
		}
		for (int i = lane; i < NV; i += G)
			places[i] = i < len ? in[begin + i] : order<T>::highest();
		sync();
#pragma unroll
		for (int i = 0; i < VT; i++)
			x[i] = places[lane * VT + i];

		/* the thread's own VT, by odd-even transposition: stable */
#pragma unroll
		for (int r = 0; r < VT; r++)
#pragma unroll
			for (int i = r & 1; i + 1 < VT; i += 2)
				if (order<T>::lt(x[i + 1], x[i]))
				{
					T			t = x[i];

					x[i] = x[i + 1];
					x[i + 1] = t;
				}

		/* runs of span threads' elements merged two by two */
#pragma unroll
		for (int span = 2; span <= G; span *= 2)
		{
			sync();
#pragma unroll
			for (int i = 0; i < VT; i++)
				places[lane * VT + i] = x[i];
			sync();

			const int	half = span / 2 * VT;
			const P		a = {places.base, (lane & ~(span - 1)) * VT},
						b = {places.base, a.origin + half};
			const int	diag = (lane & (span - 1)) * VT;
			int			ai = merge_path_search<T>(a, half, b, half, diag),
						bi = diag - ai;

#pragma unroll
			for (int i = 0; i < VT; i++)
			{
				const T		av = a[ai < half ? ai : half - 1],
							bv = b[bi < half ? bi : half - 1];
				const bool	from_a = ai < half && (bi >= half || !order<T>::lt(bv, av));

				x[i] = from_a ? av : bv;
				ai += from_a;
				bi += !from_a;
			}
		}

		sync();
#pragma unroll
		for (int i = 0; i < VT; i++)
			places[lane * VT + i] = x[i];
		sync();
		for (int i = lane; i < len; i += G)
			out[begin + i] = places[i];
		sync();
	}
}

}								/* namespace mp */

#endif							/* MP_BATCH_SORT_CUH */
