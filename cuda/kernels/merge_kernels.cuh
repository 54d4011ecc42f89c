/*
 * merge_kernels.cuh
 *		Merge Path on the device, in two phases (one for small merges).
 *
 * 1. merge_partition: one thread per tile boundary binary-searches the
 *    cross-diagonal diag = tile * NV of the (A, B) grid and records how many A
 *    elements precede it in the merged order (in two levels, see there).  The
 *    splits are exact, so every tile merges exactly NV outputs and no atomics
 *    are needed.
 * 2. merge_tile: each block copies its A and B windows into shared memory
 *    (on sm_90 in bulk, see load_tile_windows), each thread finds its own
 *    start with the same search over the shared windows (diagonal
 *    tid * VT), merges VT items serially into registers, and each warp
 *    writes its items back through shared memory so that the stores are
 *    coalesced.  VT is odd so that the transposition has no bank
 *    conflicts.
 *
 * Small merges skip phase 1: each tile searches its own two boundaries
 * (merge_tile_self).
 *
 * The sortedness check rides on the serial merge (see merge_one_tile), and
 * compares the first element of each window with the one before it in
 * global memory.  On sorted input the splits never decrease; a tile whose
 * splits do signals unsorted input too.  The kernels only raise a flag:
 * where the first offending element is, the host finds out on the error
 * path.
 *
 * Ties go to A (stable).  Device-level, stream-ordered, no allocation: the
 * caller provides the partition array and the flag.  Header-only so that the
 * benchmarks can call it beside CUB on device-resident data.
 */
#ifndef MERGE_KERNELS_CUH
#define MERGE_KERNELS_CUH

#include <cstdint>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include "order.cuh"
#include "../../src/api/mp_measured.h"

namespace mp
{

/* Block shape per element size, tuned on an H100
 * (test/bench/NOTES.md, "gpu_merge kernel"). */
template <typename T>
struct merge_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 39 : 23;
	static constexpr int MINB = 6;	/* blocks per SM the registers must allow */
};

/*
 * Up to MERGE_SMALL_UPTO elements in all (MP_MERGE_SMALL_UPTO,
 * api/mp_measured.h), 4-byte keys merge in shorter tiles (H200: 1M a side in 0.016-0.017 ms at 128 x 15 against 0.018-0.020 at
 * 128 x 39): a merge that small fills the GPU in one wave either way, and
 * each tile's serial steps are what its latency is made of.
 */
template <typename T>
struct merge_small_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 15 : merge_shape<T>::VT;
	static constexpr int MINB = sizeof(T) == 4 ? 1 : merge_shape<T>::MINB;
};

#define MERGE_SMALL_UPTO MP_MERGE_SMALL_UPTO

/*
 * Programmatic dependent launch, on sm_90 and up: a tile kernel started with
 * launch_after_partition is scheduled while the partition kernel before it
 * still runs (the partition lets it in at once) and waits in
 * grid_dependency_wait until the splits are written, so the second launch's
 * latency hides behind the first kernel.  Elsewhere the wait is a no-op and
 * the launch an ordinary one.
 */
__device__ __forceinline__ void
grid_dependency_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void
grid_dependents_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Building with MP_DEPENDENT_LAUNCH=0 turns them off, for comparison. */
#ifndef MP_DEPENDENT_LAUNCH
#define MP_DEPENDENT_LAUNCH 1
#endif

/* Whether the current device takes programmatic dependent launches
 * (compute capability 9 and up). */
inline bool
dependent_launch_supported()
{
	static int	major = -1;

	if (major < 0)
	{
		int			dev = 0;

		if (cudaGetDevice(&dev) != cudaSuccess ||
			cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
		{
			(void) cudaGetLastError();
			major = 0;
		}
	}
	return MP_DEPENDENT_LAUNCH && major >= 9;
}

template <typename... Params, typename... Args>
inline cudaError_t
launch_after_partition(void (*kernel)(Params...), int64_t grid, int block, size_t smem,
					   cudaStream_t stream, Args... args)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr = {};

	cfg.gridDim = dim3((unsigned) grid);
	cfg.blockDim = dim3((unsigned) block);
	cfg.dynamicSmemBytes = smem;
	cfg.stream = stream;
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	if (dependent_launch_supported())
	{
		cfg.attrs = &attr;
		cfg.numAttrs = 1;
	}
	return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/*
 * Number of A elements among the first diag outputs of the stable merge,
 * known to lie in [lo, hi].
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
__device__ __forceinline__ IndexT
merge_path_between(PtrA a, PtrB b, IndexT diag, IndexT lo, IndexT hi)
{
	while (lo < hi)
	{
		IndexT		mid = (lo + hi) >> 1;

		if (!order<T>::lt(b[diag - 1 - mid], a[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The same, with a guess: first the two probes that bound the answer to
 * [guess - r, guess + r], side by side, then the search in what is left,
 * which is that window when the guess was good.  A good guess takes the
 * chain of dependent loads from log2(hi - lo) to 1 + log2(2r).
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
__device__ __forceinline__ IndexT
merge_path_near(PtrA a, PtrB b, IndexT diag, IndexT lo, IndexT hi, IndexT guess, IndexT r)
{
	guess = guess < lo ? lo : guess > hi ? hi : guess;

	const IndexT below = guess - r,
				above = guess + r;
	const bool	probe_below = below > lo,
				probe_above = above < hi;
	bool		past_below = false,
				past_above = false;

	if (probe_below)
		past_below = !order<T>::lt(b[diag - below], a[below - 1]);
	if (probe_above)
		past_above = !order<T>::lt(b[diag - 1 - above], a[above]);
	if (probe_below)
	{
		if (past_below)
			lo = below;
		else
			hi = below - 1;
	}
	if (probe_above)
	{
		if (past_above)
			lo = lo > above + 1 ? lo : above + 1;
		else
			hi = hi < above ? hi : above;
	}
	return merge_path_between<T>(a, b, diag, lo, hi);
}

/* Number of A elements among the first diag outputs of the stable merge. */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
__device__ __forceinline__ IndexT
merge_path_search(PtrA a, IndexT na, PtrB b, IndexT nb, IndexT diag)
{
	return merge_path_between<T>(a, b, diag, diag > nb ? diag - nb : 0, diag < na ? diag : na);
}

/*
 * merge_path_between by G lanes together (aligned groups of G lanes of a
 * warp, G a power of two, all with the same arguments): lane j of the group
 * probes at lo + (hi - lo) (j + 1) / G, so each round of dependent loads
 * cuts the range to a G-th instead of a half.  On sorted input the probes
 * that find A's element first are a prefix; the answer lies after the last
 * of them and at or before the next.
 */
template <typename T, int G, typename IndexT, typename PtrA, typename PtrB>
__device__ __forceinline__ IndexT
merge_path_group(PtrA a, PtrB b, IndexT diag, IndexT lo, IndexT hi)
{
	static_assert(G >= 2 && G <= 32 && (G & (G - 1)) == 0, "G is a power of two up to 32");
	constexpr int LOG_G = G == 2 ? 1 : G == 4 ? 2 : G == 8 ? 3 : G == 16 ? 4 : 5;
	const int	lane = threadIdx.x % 32;
	const int	j = lane % G;
	const int	base = lane - j;
	const unsigned group = (G == 32 ? ~0u : (1u << G) - 1) << base;

	while (lo < hi)
	{
		const IndexT n = hi - lo;
		const IndexT m = lo + ((n * (j + 1)) >> LOG_G);
		const bool	before = j < G - 1 && !order<T>::lt(b[diag - 1 - m], a[m]);
		const unsigned ahead = (__ballot_sync(group, before) & group) >> base;
		const int	c = __ffs(~ahead) - 1;	/* probes before the first that fails */

		hi = lo + ((n * (c + 1)) >> LOG_G);
		lo = c > 0 ? lo + ((n * c) >> LOG_G) + 1 : lo;
	}
	return lo;
}

/*
 * The split of tile boundary *p (diagonal *p * NV), for the calling thread;
 * false for threads past the last boundary.  Boundaries go 32 to a warp.
 * When bracketed, the warp first finds the splits at its first boundary and
 * 32 boundaries on, then every lane searches only between those two.  On
 * sorted input the splits never decrease, so each boundary's split lies in
 * that bracket; the narrow search takes about log2(32 * NV) steps instead of
 * log2(na + nb), over memory its neighbours touch too.  (On unsorted input a
 * bracket may be wrong; the tile kernel's check does not depend on where
 * the splits fall.)  With few boundaries the searches are bound by their
 * chain of dependent loads rather than by random fetches, and one full
 * search each is the shorter chain.
 *
 * NARROW (used by the set operations): the bracket's two splits are searched
 * by 8 lanes each, 7 probes a round, and each lane's search starts from a
 * guess, its diagonal's place between the bracket's ends, checked 128 places
 * either side (see merge_path_near): on keys that are spread alike in A and
 * B the split is seldom further off, and the search then fetches about half
 * as many sectors of the inputs.
 */
template <typename T, int NV, bool NARROW = false>
__device__ __forceinline__ bool
merge_partition_split(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
					  int64_t nb, int64_t num_parts, bool bracketed, int64_t *p, int64_t *split)
{
	const int	lane = threadIdx.x % 32;
	const int64_t first = ((int64_t) blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 32;
	const int64_t last = first + 32 < num_parts ? first + 32 : num_parts - 1;
	const int64_t total = na + nb;
	const int64_t d0 = first * NV < total ? first * NV : total;
	const int64_t d1 = last * NV < total ? last * NV : total;

	if (first >= num_parts)
		return false;

	int64_t		lo_a = 0,
				hi_a = na;

	if (bracketed && NARROW)
	{
		const int64_t diag = lane / 8 % 2 == 0 ? d0 : d1;
		const int64_t bracket = merge_path_group<T, 8>(a, b, diag, diag > nb ? diag - nb : 0,
													   diag < na ? diag : na);

		lo_a = __shfl_sync(0xFFFFFFFFu, bracket, 0);
		hi_a = __shfl_sync(0xFFFFFFFFu, bracket, 8);
	}
	else if (bracketed)
	{
		int64_t		bracket = 0;

		if (lane < 2)
			bracket = merge_path_search<T>(a, na, b, nb, lane == 0 ? d0 : d1);
		lo_a = __shfl_sync(0xFFFFFFFFu, bracket, 0);
		hi_a = __shfl_sync(0xFFFFFFFFu, bracket, 1);
	}

	*p = first + lane;
	if (*p >= num_parts)
		return false;

	int64_t		diag = *p * NV < total ? *p * NV : total;
	int64_t		lo = diag > nb ? diag - nb : 0;
	int64_t		hi = diag < na ? diag : na;

	lo = lo_a > lo && lo_a <= hi ? lo_a : lo;
	hi = hi_a < hi && hi_a >= lo ? hi_a : hi;
	if (bracketed && NARROW)
	{
		const int64_t guess = lo_a + (d1 > d0 ? (int64_t) ((double) (hi_a - lo_a) *
															(double) (diag - d0) / (double) (d1 - d0)) : 0);

		*split = merge_path_near<T>(a, b, diag, lo, hi, guess, (int64_t) 128);
	}
	else
		*split = merge_path_between<T>(a, b, diag, lo, hi);
	return true;
}

template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
merge_partition(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
				int64_t nb, int64_t *__restrict__ parts, int64_t num_parts, bool bracketed)
{
	int64_t		p,
				split;

	grid_dependents_launch();
	if (merge_partition_split<T, NT * VT>(a, na, b, nb, num_parts, bracketed, &p, &split))
		parts[p] = split;
}

/*
 * Few boundaries (up to MERGE_WIDE_UPTO): a warp a boundary, its 32 lanes
 * probing together (merge_path_group), so that each split takes about
 * log33(na + nb) rounds of dependent loads instead of log2(na + nb).  At 1M
 * a side that is 5 rounds instead of 21, and the chain of loads is what the
 * merge of a few million elements waits on.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
merge_partition_wide(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
					 int64_t nb, int64_t *__restrict__ parts, int64_t num_parts)
{
	constexpr int64_t NV = NT * VT;
	const int64_t p = ((int64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const int64_t total = na + nb;

	grid_dependents_launch();
	if (p >= num_parts)
		return;					/* the whole warp: p is the warp's */

	const int64_t diag = p * NV < total ? p * NV : total;
	const int64_t split = merge_path_group<T, 32>(a, b, diag, diag > nb ? diag - nb : 0,
												  diag < na ? diag : na);

	if (threadIdx.x % 32 == 0)
		parts[p] = split;
}

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

/*
 * One tile.  FULL tiles (all but the last) hold exactly NV outputs and need
 * no bounds checks.
 *
 * With unsorted non-null, the check rides on the serial steps of a full
 * tile: the keys a thread takes must not go down, starting from the
 * elements in front of its start (the last ones of the thread before, or of
 * the tile before), and each thread must end where the next one starts.
 * Together the threads' shares then cover both windows, so every element is
 * compared with its predecessor.  (Each thread takes VT elements from a
 * start whose diagonal leaves at least VT in the tile, so its steps stay in
 * the windows whatever the input.)  The one partial tile compares each
 * window element with the one before it instead.
 */
template <typename T, int NT, int VT, bool FULL>
__device__ __forceinline__ void
merge_one_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
			   int64_t a0, int64_t b0, int64_t d0, int acount, int count,
			   T *__restrict__ out, int *__restrict__ unsorted, T *s, uint64_t *bar,
			   int (*starts)[2])
{
	constexpr int NV = NT * VT;
	const int	tid = threadIdx.x;
	const int	bcount = count - acount;
	const tile_windows<T, NV> w =
		load_tile_windows<T, NT, NV>(s, bar, a, na, a0, acount, b, nb, b0, bcount);
	bool		bad = false;

	if (!FULL && unsorted != nullptr)
	{
		for (int i = tid; i < acount; i += NT)
			bad |= order<T>::lt(w.a[i], w.a[i - 1]);
		for (int i = tid; i < bcount; i += NT)
			bad |= order<T>::lt(w.b[i], w.b[i - 1]);
	}

	/* each thread's start, then VT serial merge steps in registers */
	const int	diag = FULL || tid * VT < count ? tid * VT : count;
	const int	mp = merge_path_search<T>(w.a, acount, w.b, bcount, diag);
	const T    *pa = w.a + mp,
			   *pb = w.b + (diag - mp);
	const T    *const a_end = w.a + acount,
			   *const b_end = w.b + bcount;
	T			ak = *pa,
				bk = *pb;
	T			r[VT];

	if (FULL && unsorted != nullptr)
	{
		T			prev = order<T>::lt(pa[-1], pb[-1]) ? pb[-1] : pa[-1];

		starts[tid][0] = mp;
		starts[tid][1] = diag - mp;
		if (tid == 0)
		{
			starts[NT][0] = acount;
			starts[NT][1] = bcount;
		}
#pragma unroll
		for (int i = 0; i < VT; i++)
		{
			bool		take_a = pb >= b_end || (pa < a_end && !order<T>::lt(bk, ak));
			T			v = *(take_a ? ++pa : ++pb);

			r[i] = take_a ? ak : bk;
			bad |= order<T>::lt(r[i], prev);
			prev = r[i];
			if (take_a)
				ak = v;
			else
				bk = v;
		}
	}
	else
	{
#pragma unroll
		for (int i = 0; i < VT; i++)
		{
			bool		take_a = pb >= b_end || (pa < a_end && !order<T>::lt(bk, ak));
			const T    *next = take_a ? ++pa : ++pb;
			const T    *last = take_a ? a_end : b_end;

			/* a partial tile's last threads step past its end: stay in
			 * the windows */
			T			v = FULL || next < last ? *next : *last;

			r[i] = take_a ? ak : bk;
			if (take_a)
				ak = v;
			else
				bk = v;
		}
	}
	__syncthreads();
	if (FULL && unsorted != nullptr)
		bad |= pa - w.a != starts[tid + 1][0] || pb - w.b != starts[tid + 1][1];
	if (bad && unsorted != nullptr)
		*unsorted = 1;

	/* each warp transposes its own outputs through its own part of shared
	 * memory, so that its stores are coalesced; no block-wide barrier */
	const int	lane = tid % 32;
	const int	warp_base = (tid / 32) * 32 * VT;
	T		   *ws = s + warp_base;

#pragma unroll
	for (int i = 0; i < VT; i++)
		ws[lane * VT + i] = r[i];
	__syncwarp();
#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		int			idx = warp_base + i * 32 + lane;

		if (FULL || idx < count)
			out[d0 + idx] = ws[i * 32 + lane];
	}
}

/*
 * A tile's share of a merge: outputs [d0, d1), A elements [a0, a1), B
 * elements [b0, b1), read from the partition once it is written (see
 * launch_after_partition).  Splits go backwards only on unsorted input, and
 * then the windows do not fit the tile.
 */
struct tile_span
{
	int64_t		d0,
				d1,
				a0,
				a1,
				b0,
				b1;

	__device__ bool backwards() const { return a1 < a0 || b1 < b0; }
};

template <int NV>
__device__ __forceinline__ tile_span
tile_span_after_partition(const int64_t *__restrict__ parts, int64_t total)
{
	const int64_t tile = blockIdx.x;
	tile_span	t;

	grid_dependency_wait();
	t.d0 = tile * NV;
	t.d1 = t.d0 + NV < total ? t.d0 + NV : total;
	t.a0 = parts[tile];
	t.a1 = parts[tile + 1];
	t.b0 = t.d0 - t.a0;
	t.b1 = t.d1 - t.a1;
	return t;
}

/*
 * The tile's span t merged into out, or on unsorted input (splits going
 * backwards) the flag raised and the tile's outputs zeroed, so that nothing
 * is left unwritten where checking is off and the result is unspecified.
 */
template <typename T, int NT, int VT>
__device__ __forceinline__ void
merge_span(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
		   const tile_span &t, T *__restrict__ out, int *__restrict__ unsorted, T *s,
		   uint64_t *bar, int (*starts)[2])
{
	constexpr int NV = NT * VT;

	if (t.backwards())
	{
		if (unsorted != nullptr && threadIdx.x == 0)
			*unsorted = 1;
		for (int64_t i = t.d0 + threadIdx.x; i < t.d1; i += NT)
			out[i] = T();
		return;
	}
	if (t.d1 - t.d0 == NV)
		merge_one_tile<T, NT, VT, true>(a, na, b, nb, t.a0, t.b0, t.d0, (int) (t.a1 - t.a0), NV,
										out, unsorted, s, bar, starts);
	else
		merge_one_tile<T, NT, VT, false>(a, na, b, nb, t.a0, t.b0, t.d0, (int) (t.a1 - t.a0),
										 (int) (t.d1 - t.d0), out, unsorted, s, bar, starts);
}

template <typename T, int NT, int VT, int MINB>
__global__ void __launch_bounds__(NT, MINB)
merge_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
		   int64_t nb, const int64_t *__restrict__ parts, T *__restrict__ out,
		   int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	static_assert(NT % 32 == 0 && VT % 2 == 1, "whole warps; VT is odd");
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;

	merge_span<T, NT, VT>(a, na, b, nb, tile_span_after_partition<NV>(parts, na + nb), out,
						  unsorted, s, &bar, starts);
}

/*
 * The same without a partition kernel, for merges of few tiles: warp 0
 * searches the tile's two boundaries first, 16 lanes each
 * (merge_path_group), about log17(na + nb) rounds of dependent loads.  Each
 * boundary is searched twice, by the tiles on either side, with the same
 * arguments, so they agree on it whatever the input.  At 1M a side this
 * takes 3 us off the merge: the second launch, the wait for the partition
 * grid to end and the round trip of its splits through memory
 * (test/bench/NOTES.md, "Merge at 1M a side").
 */
template <typename T, int NT, int VT, int MINB>
__global__ void __launch_bounds__(NT, MINB)
merge_tile_self(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
				int64_t nb, T *__restrict__ out, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	static_assert(NT % 32 == 0 && VT % 2 == 1, "whole warps; VT is odd");
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;
	__shared__ int64_t splits[2];
	const int64_t total = na + nb;
	tile_span	t;

	t.d0 = (int64_t) blockIdx.x * NV;
	t.d1 = t.d0 + NV < total ? t.d0 + NV : total;
	if (threadIdx.x < 32)
	{
		const int	end = threadIdx.x / 16;
		const int64_t diag = end ? t.d1 : t.d0;
		const int64_t split = merge_path_group<T, 16>(a, b, diag, diag > nb ? diag - nb : 0,
													  diag < na ? diag : na);

		if (threadIdx.x % 16 == 0)
			splits[end] = split;
	}
	__syncthreads();
	t.a0 = splits[0];
	t.a1 = splits[1];
	t.b0 = t.d0 - t.a0;
	t.b1 = t.d1 - t.a1;
	merge_span<T, NT, VT>(a, na, b, nb, t, out, unsorted, s, &bar, starts);
}

/* Tile boundaries from which the partition searches in two levels. */
#define MERGE_BRACKET_FROM 4096
/*
 * Tile boundaries up to which each has a warp of its own in the partition:
 * at 1M a side (700-1100 boundaries) that took the partition from
 * 0.011-0.012 ms to 0.008-0.009 on the H200; at 4000 (10M int32) it was
 * slower than a lane each (0.018 against 0.012-0.013).
 */
#define MERGE_WIDE_UPTO 2048

template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT>
inline int64_t
merge_num_tiles(int64_t na, int64_t nb)
{
	return (na + nb + NT * VT - 1) / (NT * VT);
}

/* Bytes of partition array that merge_on_device needs. */
template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT>
inline size_t
merge_parts_bytes(int64_t na, int64_t nb)
{
	return (size_t) (merge_num_tiles<T, NT, VT>(na, nb) + 1) * sizeof(int64_t);
}

/* Phase 1 alone: the split of every tile boundary into parts. */
template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT>
inline cudaError_t
merge_partition_on_device(const T *a, int64_t na, const T *b, int64_t nb, int64_t *parts,
						  cudaStream_t stream)
{
	int64_t		num_parts = merge_num_tiles<T, NT, VT>(na, nb) + 1;

	if (num_parts <= MERGE_WIDE_UPTO)
		merge_partition_wide<T, NT, VT><<<(unsigned) ((num_parts * 32 + 127) / 128), 128, 0, stream>>>
			(a, na, b, nb, parts, num_parts);
	else
		merge_partition<T, NT, VT><<<(unsigned) ((num_parts + 127) / 128), 128, 0, stream>>>
			(a, na, b, nb, parts, num_parts, num_parts > MERGE_BRACKET_FROM);
	return cudaGetLastError();
}

/*
 * out[0..na+nb) = stable merge of a and b.  unsorted may be null (no check);
 * otherwise *unsorted must be zero on entry and is set to 1 when an input is
 * not ascending.  With own_splits, the tiles search their own boundaries
 * (merge_tile_self) and parts is not used.
 */
template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT,
		  int MINB = merge_shape<T>::MINB>
inline cudaError_t
merge_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out,
				int64_t *parts, int *unsorted, cudaStream_t stream, bool own_splits = false)
{
	int64_t		tiles = merge_num_tiles<T, NT, VT>(na, nb);

	if (tiles == 0)
		return cudaSuccess;
	if (own_splits)
	{
		merge_tile_self<T, NT, VT, MINB><<<(unsigned) tiles, NT, 0, stream>>>(a, na, b, nb, out,
																			 unsorted);
		return cudaGetLastError();
	}
	if (cudaError_t err = merge_partition_on_device<T, NT, VT>(a, na, b, nb, parts, stream))
		return err;
	return launch_after_partition(merge_tile<T, NT, VT, MINB>, tiles, NT, 0, stream,
								  a, na, b, nb, (const int64_t *) parts, out, unsorted);
}


/* Bytes of partition array that merge_any_on_device needs (none for small merges). */
template <typename T>
inline size_t
merge_any_parts_bytes(int64_t na, int64_t nb)
{
	return na + nb <= MERGE_SMALL_UPTO ? 0 : merge_parts_bytes<T>(na, nb);
}

/*
 * merge_on_device in the shape for its size (see merge_small_shape); merges
 * that small search their tiles' boundaries in the tiles.  On the H200 at
 * 1M a side that is 0.012-0.016 ms against 0.014-0.018 with the partition
 * kernel; from 3M a side (tiles of 128 x 39) the two are level for 4-byte
 * keys, and at 10M the partition kernel is faster (test/bench/NOTES.md,
 * "Small merges without a partition kernel").
 */
template <typename T>
inline cudaError_t
merge_any_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out,
					int64_t *parts, int *unsorted, cudaStream_t stream)
{
	typedef merge_small_shape<T> S;

	if (na + nb <= MERGE_SMALL_UPTO)
		return merge_on_device<T, S::NT, S::VT, S::MINB>(a, na, b, nb, out, parts, unsorted, stream,
														 true);
	return merge_on_device<T>(a, na, b, nb, out, parts, unsorted, stream);
}

}								/* namespace mp */

#endif							/* MERGE_KERNELS_CUH */
