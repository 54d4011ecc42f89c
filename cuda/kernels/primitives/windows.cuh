/*
 * windows.cuh
 *		A tile's windows of A and B in shared memory: on sm_90 in bulk through
 *		the tensor memory accelerator, elsewhere by the block's threads, each
 *		with the element in front of it for the sortedness check.
 */
#ifndef MP_PRIMITIVES_WINDOWS_CUH
#define MP_PRIMITIVES_WINDOWS_CUH

#include <cstdint>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include "order.cuh"

namespace mp
{

/*
 * A tile's two windows in shared memory.  Each has a slot in front of it for
 * the element before it in global memory (or order<T>::lowest() when there
 * is none) and one after it for the element after it (or
 * order<T>::highest()).  A window starts at an index congruent to its
 * global address modulo 16 bytes, so that its 16-byte-aligned middle can be
 * copied in bulk.
 */
template <typename T, int NV>
struct tile_windows
{
	static constexpr int E = 16 / sizeof(T);	/* elements in 16 bytes */
	static constexpr int SIZE = NV + 2 * E + 4;	/* elements of shared memory */

	T		   *a;
	T		   *b;

	/* the first index >= from where x's element g can go */
	static __device__ __forceinline__ int place(int from, const T *x, int64_t g)
	{
		return from + (int) (((uintptr_t) (x + g) / sizeof(T) - (unsigned) from) & (E - 1));
	}
};

/*
 * One element of a window that a thread loads itself (see start_window):
 * its value and its index in the window, or NONE.
 */
template <typename T>
struct window_edge
{
	static constexpr int NONE = INT32_MIN;

	T			v;
	int			at;

	__device__ __forceinline__ void put(T *w) const
	{
		if (at != NONE)
			w[at] = v;
	}
};

/*
 * On sm_90: x[g0..g0+n) into w[0..n), w[-1] = x[g0 - 1] or the lowest key,
 * and w[n] = x[g0 + n] or the highest key (x has nx elements).  The issuer
 * starts one bulk copy (TMA) of the part that begins and ends on 16-byte
 * boundaries, completing on *bar, and adds its size to *bytes; the threads
 * with e in [0, 2E) load the elements at either end (fewer than E each) and
 * the ones around, one each, and return it to be put in place once all
 * loads are under way.
 */
template <typename T, int NV>
__device__ __forceinline__ window_edge<T>
start_window(const T *__restrict__ x, int64_t nx, int64_t g0, int n, T *w, bool issuer, int e,
			 uint64_t *bar, uint32_t *bytes)
{
	window_edge<T> ed = {T(), window_edge<T>::NONE};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	constexpr int E = tile_windows<T, NV>::E;
	const int	head = (int) ((0 - (uintptr_t) (x + g0)) % 16 / sizeof(T));
	const int	lo = head < n ? head : n;
	const int	tail = (int) ((uintptr_t) (x + g0 + n) % 16 / sizeof(T));
	const int	hi = n - tail > lo ? n - tail : lo;

	if (issuer && hi > lo)
	{
		cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, w + lo,
								 x + g0 + lo, (uint32_t) ((hi - lo) * sizeof(T)), bar);
		*bytes += (uint32_t) ((hi - lo) * sizeof(T));
	}
	if (e >= 0 && e < E - 1 && e < lo)
		ed.at = e;
	else if (e >= E - 1 && e < 2 * E - 2 && hi + e - (E - 1) < n)
		ed.at = hi + e - (E - 1);
	else if (e == 2 * E - 2)
		ed.at = -1;
	else if (e == 2 * E - 1)
		ed.at = n;
	if (ed.at != window_edge<T>::NONE)
	{
		const int64_t g = g0 + ed.at;

		ed.v = g < 0 ? order<T>::lowest() : g < nx ? x[g] : order<T>::highest();
	}
#else
	(void) x, (void) nx, (void) g0, (void) n, (void) w, (void) issuer, (void) e, (void) bar,
		(void) bytes;
#endif
	return ed;
}

/*
 * The same where the input allows one bulk copy of all: when the 16-byte
 * chunks that hold x[g0 - 1 .. g0 + n] lie inside x, the issuer copies
 * them, the elements around the window with them, and no thread loads any
 * (w then needs E - 1 slots more in front of w[-1] and after w[n]).
 * Elsewhere as start_window.
 */
template <typename T, int NV>
__device__ __forceinline__ window_edge<T>
start_window_whole(const T *__restrict__ x, int64_t nx, int64_t g0, int n, T *w, bool issuer,
				   int e, uint64_t *bar, uint32_t *bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	const uintptr_t at = (uintptr_t) (x + g0);
	const uintptr_t from = (at - sizeof(T)) & ~(uintptr_t) 15;
	const uintptr_t to = (at + (n + 1) * sizeof(T) + 15) & ~(uintptr_t) 15;

	if (from >= (uintptr_t) x && to <= (uintptr_t) (x + nx))
	{
		const int	s0 = -(int) ((at - from) / sizeof(T));

		if (issuer)
		{
			cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, w + s0,
									 x + g0 + s0, (uint32_t) (to - from), bar);
			*bytes += (uint32_t) (to - from);
		}
		return window_edge<T>{T(), window_edge<T>::NONE};
	}
#endif
	return start_window<T, NV>(x, nx, g0, n, w, issuer, e, bar, bytes);
}

/*
 * Without bulk copies: x[g0..g0+n) and the elements around into w[-1..n],
 * by the block's NT threads.
 */
template <typename T, int NT>
__device__ __forceinline__ void
load_window(const T *__restrict__ x, int64_t nx, int64_t g0, int n, T *w)
{
	for (int i = threadIdx.x; i < n; i += NT)
		w[i] = x[g0 + i];
	if (threadIdx.x == 0)
		w[-1] = g0 > 0 ? x[g0 - 1] : order<T>::lowest();
	if (threadIdx.x == 1)
		w[n] = g0 + n < nx ? x[g0 + n] : order<T>::highest();
}

/*
 * A tile's windows a[a0..a0+acount) and b[b0..b0+bcount) into s (of
 * tile_windows<T, NV>::SIZE elements, 16-byte aligned), with bar a barrier
 * in shared memory for the bulk copies; returns when they are there, to
 * every thread of the block.
 */
template <typename T, int NT, int NV>
__device__ __forceinline__ tile_windows<T, NV>
load_tile_windows(T *s, uint64_t *bar, const T *__restrict__ a, int64_t na, int64_t a0,
				  int acount, const T *__restrict__ b, int64_t nb, int64_t b0, int bcount)
{
	static_assert(NT >= 64, "warp 1 loads the windows' ends");
	typedef tile_windows<T, NV> windows;
	windows		w;
	uint32_t	bytes = 0;

	w.a = s + windows::place(1, a, a0);
	w.b = s + windows::place((int) (w.a - s) + acount + 2, b, b0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	if (threadIdx.x == 0)
	{
		cuda::ptx::mbarrier_init(bar, 1);
		cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
	}
	{
		const window_edge<T> ea = start_window<T, NV>(a, na, a0, acount, w.a, threadIdx.x == 0,
													  (int) threadIdx.x - 32, bar, &bytes);
		const window_edge<T> eb = start_window<T, NV>(b, nb, b0, bcount, w.b, threadIdx.x == 0,
													  (int) threadIdx.x - 48, bar, &bytes);

		ea.put(w.a);
		eb.put(w.b);
	}
	if (threadIdx.x == 0)
		cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
											 cuda::ptx::space_shared, bar, bytes);
	__syncthreads();
	while (!cuda::ptx::mbarrier_try_wait_parity(bar, 0))
		;
#else
	(void) bar;
	(void) bytes;
	load_window<T, NT>(a, na, a0, acount, w.a);
	load_window<T, NT>(b, nb, b0, bcount, w.b);
	__syncthreads();
#endif
	return w;
}

/*
 * A tile's windows a[a0..a0+acount) and b[b0..b0+count-acount) into s, one
 * after the other, with coalesced loads, all in flight before the first
 * store; each thread keeps what it loaded in r.  With unsorted non-null,
 * each element is checked against its predecessor, and sets *unsorted when
 * below it.  FULL tiles hold exactly NT * VT elements.
 */
template <typename T, int NT, int VT, bool FULL>
__device__ __forceinline__ void
load_windows(const T *__restrict__ a, const T *__restrict__ b, int64_t a0, int64_t b0,
			 int acount, int count, int *__restrict__ unsorted, T *s, T (&r)[VT])
{
	const int	tid = threadIdx.x;

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		int			idx = i * NT + tid;

		if (FULL || idx < count)
			r[i] = idx < acount ? a[a0 + idx] : b[b0 + (idx - acount)];
	}
#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		int			idx = i * NT + tid;

		if (FULL || idx < count)
			s[idx] = r[i];
	}
	__syncthreads();

	if (unsorted != nullptr)
	{
		bool		bad = false;

#pragma unroll
		for (int i = 0; i < VT; i++)
		{
			int			idx = i * NT + tid;

			if ((FULL || idx < count) && idx != 0 && idx != acount)
				bad |= order<T>::lt(r[i], s[idx - 1]);
		}
		if (tid == 0 && acount > 0 && a0 > 0)
			bad |= order<T>::lt(s[0], a[a0 - 1]);
		if (tid == 1 && acount < count && b0 > 0)
			bad |= order<T>::lt(s[acount], b[b0 - 1]);
		if (bad)
			*unsorted = 1;
	}
}

}								/* namespace mp */

#endif							/* MP_PRIMITIVES_WINDOWS_CUH */
