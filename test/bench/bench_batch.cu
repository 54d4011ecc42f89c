/*
 * bench_batch.cu
 *		Batches of many small pairs (batch/launch.cuh) beside CUB in one
 *		process: the merge beside one cub::DeviceMerge over (pair, key)
 *		composite keys, the set operations and the search beside a copy of
 *		their bytes, the sort beside cub::DeviceSegmentedSort.
 *
 *	bench_batch [--reps 7] [--sizes 100000,1000000]
 *	(--sizes: only the shapes and sorts of that many pairs)
 *	SORT_SHAPES=1, TILE_SHAPES=1 or PIPE_SHAPES=1 bench_batch: the sweeps
 *	that chose the shapes (below)
 *
 * Each shape is P pairs of NA + NB sorted keys drawn from [0, NA + NB)
 * (so that the pairs share many keys), on the device before timing.  The
 * batched results are checked against the CPU backend's batch, bit for
 * bit, on the shapes of up to 10M elements, and the merge against CUB's on
 * all of them.  "copy" is cudaMemcpy of the inputs' bytes, device to
 * device; a set operation's "of copy" is its rate (inputs and output bytes
 * over its time) against the copy's (twice the inputs' bytes over its
 * time).  Timings include the sortedness check where the SQL path has it
 * on (the merge's and the set operations' ride on their steps; the
 * filters' is a pass of its own).
 */
#include <cinttypes>

#include <cub/device/device_merge.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "bench_common.cuh"
#include "../../cuda/kernels/batch/launch.cuh"

struct shape
{
	int64_t		pairs,
				na,
				nb;
};

static const shape shapes[] = {
	{100000, 500, 500}, {1000000, 50, 50}, {100, 2500, 5000}, {10000, 500, 500},
};

/* (pair, key) as one key for CUB's merge: the pair above the key's order */
template <typename T>
struct composite
{
	int64_t		pair;
	T			key;
};

template <typename T>
struct composite_less
{
	__device__ bool operator()(const composite<T> &x, const composite<T> &y) const
	{
		return x.pair < y.pair || (x.pair == y.pair && mp::order<T>::lt(x.key, y.key));
	}
};

/* The pair of element e of a side whose pair p starts at off[p]. */
__device__ int64_t
pair_of_element(const int64_t *off, int64_t pairs, int64_t e)
{
	int64_t		lo = 0,
				hi = pairs - 1;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo + 1) / 2;

		if (off[mid] <= e)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* 32-bit keys packed with their pair into 64 bits, the pair above the
 * order's key */
__global__ void
pack(const int32_t *x, int64_t n, const int64_t *off, int64_t pairs, uint64_t *out)
{
	for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < n;
		 e += (int64_t) gridDim.x * blockDim.x)
		out[e] = ((uint64_t) pair_of_element(off, pairs, e) << 32) | mp_key_int4(x[e]);
}

template <typename T>
__global__ void
make_composite(const T *x, int64_t n, const int64_t *off, int64_t pairs, composite<T> *out)
{
	for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < n;
		 e += (int64_t) gridDim.x * blockDim.x)
		out[e] = {pair_of_element(off, pairs, e), x[e]};
}

/* A side of `pairs` pairs of n keys each, sorted pair by pair (sorted) or
 * not, on the device, and its offsets on both sides. */
template <typename T>
static T *
make_side(int64_t pairs, int64_t n, uint64_t seed, uint64_t range, bool sorted,
		  std::vector<int64_t> &off, int64_t **d_off)
{
	int64_t		total = pairs * n;
	T		   *raw,
			   *out;
	void	   *tmp = nullptr;
	size_t		bytes = 0;

	off.resize(pairs + 1);
	for (int64_t p = 0; p <= pairs; p++)
		off[p] = p * n;
	CK(cudaMalloc(d_off, (pairs + 1) * sizeof(int64_t)));
	CK(cudaMemcpy(*d_off, off.data(), (pairs + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&raw, total * sizeof(T) + 1));
	CK(cudaMalloc(&out, total * sizeof(T) + 1));
	fill_random<<<(unsigned) ((total + 255) / 256), 256>>>(raw, total, seed, range);
	if (!sorted)
	{
		CK(cudaFree(out));
		return raw;
	}
	CK(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, raw, out, total, pairs, *d_off,
										  *d_off + 1));
	CK(cudaMalloc(&tmp, bytes));
	CK(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, raw, out, total, pairs, *d_off,
										  *d_off + 1));
	CK(cudaDeviceSynchronize());
	CK(cudaFree(tmp));
	CK(cudaFree(raw));
	return out;
}

template <typename T>
static std::vector<T>
to_host(const T *d, int64_t n)
{
	std::vector<T> h(n + 1);

	CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return h;
}

struct op_case
{
	const char *name;
	mp_array_kind kind;
	int			variant;
};

static const op_case filter_ops[] = {
	{"intersect", MP_ARRAY_SETOP, MP_INTERSECT}, {"union", MP_ARRAY_SETOP, MP_UNION},
	{"except", MP_ARRAY_SETOP, MP_EXCEPT}, {"symdiff", MP_ARRAY_SETOP, MP_SYMDIFF},
	{"semijoin", MP_ARRAY_SEMIJOIN, 0}, {"lower_bound", MP_ARRAY_SEARCH, MP_LOWER_BOUND},
};

template <typename T>
static void
bench_shape(const shape &s)
{
	const int64_t pairs = s.pairs,
				na = pairs * s.na,
				nb = pairs * s.nb,
				n = na + nb;
	const bool	check_cpu = n <= 10000000;
	std::vector<int64_t> a_off,
				b_off;
	int64_t    *d_aoff,
			   *d_boff;
	T		   *a = make_side<T>(pairs, s.na, 11, s.na + s.nb, true, a_off, &d_aoff);
	T		   *b = make_side<T>(pairs, s.nb, 12, s.na + s.nb, true, b_off, &d_boff);
	T		   *out,
			   *copy;
	int		   *flag;
	int64_t    *parts;
	std::vector<T> ha = to_host(a, na),
				hb = to_host(b, nb);
	char		label[96];

	CK(cudaMalloc(&out, n * sizeof(T)));
	CK(cudaMalloc(&copy, n * sizeof(T)));
	CK(cudaMalloc(&flag, sizeof(int)));
	CK(cudaMalloc(&parts, mp::batch_merge_parts<T>(n) * sizeof(int64_t)));
	snprintf(label, sizeof(label), "%s, %" PRId64 " pairs of %" PRId64 " + %" PRId64,
			 type_name<T>::get(), pairs, s.na, s.nb);

	float		copy_ms = median_ms([&] {
		CK(cudaMemcpyAsync(copy, a, na * sizeof(T), cudaMemcpyDeviceToDevice));
		CK(cudaMemcpyAsync(copy + na, b, nb * sizeof(T), cudaMemcpyDeviceToDevice));
	});
	double		copy_rate = 2.0 * n * sizeof(T) / copy_ms;

	/* the merge, beside CUB's over composite keys */
	float		merge_ms = median_ms([&] {
		CK(mp::batch_merge_on_device(a, d_aoff, b, d_boff, pairs, n, out, parts, flag, 0));
	});
	float		merge_unchecked_ms = median_ms([&] {
		CK(mp::batch_merge_on_device(a, d_aoff, b, d_boff, pairs, n, out, parts, (int *) nullptr,
									 0));
	});
	float		cub_ms;
	bool		same;

	if constexpr (sizeof(T) == 4 && !std::is_floating_point<T>::value)
	{
		uint64_t   *ka,
				   *kb,
				   *ko;
		void	   *tmp = nullptr;
		size_t		bytes = 0;

		CK(cudaMalloc(&ka, na * 8));
		CK(cudaMalloc(&kb, nb * 8));
		CK(cudaMalloc(&ko, n * 8));
		pack<<<1024, 256>>>(a, na, d_aoff, pairs, ka);
		pack<<<1024, 256>>>(b, nb, d_boff, pairs, kb);
		CK(cub::DeviceMerge::MergeKeys(tmp, bytes, ka, na, kb, nb, ko));
		CK(cudaMalloc(&tmp, bytes));
		cub_ms = median_ms([&] { CK(cub::DeviceMerge::MergeKeys(tmp, bytes, ka, na, kb, nb, ko)); });

		std::vector<uint64_t> hk = to_host(ko, n);
		std::vector<T> hm = to_host(out, n);

		same = true;
		for (int64_t e = 0; e < n && same; e++)
			same = mp_key_int4(hm[e]) == (uint32_t) hk[e];
		CK(cudaFree(ka));
		CK(cudaFree(kb));
		CK(cudaFree(ko));
		CK(cudaFree(tmp));
	}
	else
	{
		composite<T> *ka,
				   *kb,
				   *ko;
		void	   *tmp = nullptr;
		size_t		bytes = 0;

		CK(cudaMalloc(&ka, na * sizeof(composite<T>)));
		CK(cudaMalloc(&kb, nb * sizeof(composite<T>)));
		CK(cudaMalloc(&ko, n * sizeof(composite<T>)));
		make_composite<<<1024, 256>>>(a, na, d_aoff, pairs, ka);
		make_composite<<<1024, 256>>>(b, nb, d_boff, pairs, kb);
		CK(cub::DeviceMerge::MergeKeys(tmp, bytes, ka, na, kb, nb, ko, composite_less<T>()));
		CK(cudaMalloc(&tmp, bytes));
		cub_ms = median_ms([&] {
			CK(cub::DeviceMerge::MergeKeys(tmp, bytes, ka, na, kb, nb, ko, composite_less<T>()));
		});

		std::vector<composite<T>> hk = to_host(ko, n);
		std::vector<T> hm = to_host(out, n);

		same = true;
		for (int64_t e = 0; e < n && same; e++)
			same = memcmp(&hm[e], &hk[e].key, sizeof(T)) == 0;
		CK(cudaFree(ka));
		CK(cudaFree(kb));
		CK(cudaFree(ko));
		CK(cudaFree(tmp));
	}
	printf("%-40s copy %8.3f ms | merge %8.3f (unchecked %8.3f) cub composite %8.3f: "
		   "%5.2fx%s\n", label, copy_ms, merge_ms, merge_unchecked_ms, cub_ms,
		   cub_ms / merge_ms, same ? "" : "  RESULTS DIFFER");

	/* the filters and the search */
	for (const op_case &c : filter_ops)
	{
		std::vector<int64_t> out_off(pairs + 1);
		mp_batch_call call = {c.kind, c.variant, mp_type_of<T>::v, pairs, ha.data(),
			a_off.data(), hb.data(), b_off.data(), nullptr, out_off.data(), -1, nullptr, nullptr,
			nullptr};
		int64_t		room = mp_batch_room(&call);
		size_t		osize = mp_batch_out_size(&call);
		std::vector<char> host_out(room * osize + 1);
		mp_gpu_timing timing;
		double		device_ms;
		int64_t		nout;
		bool		ok = true;

		/* through the backend's entry point, for the kernels' own time
		 * (its timing) and the results to check */
		call.out = host_out.data();
		if (mp_gpu_batch(&call, true, nullptr, &timing) != MP_OK)
		{
			printf("  %s: the batch failed: %s\n", c.name, mp_gpu_last_error());
			continue;
		}
		nout = out_off[pairs];
		std::vector<double> t;

		for (int r = 0; r < reps; r++)
		{
			mp_gpu_batch(&call, true, nullptr, &timing);
			t.push_back(timing.kernel_ms);
		}
		std::sort(t.begin(), t.end());
		device_ms = t[t.size() / 2];
		if (check_cpu)
		{
			std::vector<int64_t> cpu_off(pairs + 1);
			std::vector<char> cpu_out(room * osize + 1);
			mp_batch_call cc = call;

			cc.out = cpu_out.data();
			cc.out_off = cpu_off.data();
			ok = mp_cpu_batch(&cc, true, nullptr) == MP_OK && cpu_off == out_off &&
				memcmp(cpu_out.data(), host_out.data(), nout * osize) == 0;
		}
		printf("  %-12s %8.3f ms (kernels), %9" PRId64 " out, %5.1f%% of copy%s\n", c.name,
			   device_ms, nout,
			   100.0 * (n * sizeof(T) + nout * osize) / device_ms / copy_rate,
			   !check_cpu ? "" : ok ? ", same as the CPU's" : "  DIFFERS FROM THE CPU'S");
	}
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(out));
	CK(cudaFree(copy));
	CK(cudaFree(flag));
	CK(cudaFree(parts));
	CK(cudaFree(d_aoff));
	CK(cudaFree(d_boff));
}

/* The segmented sort, beside CUB's (unstable and stable) on the same keys. */
template <typename T>
static void
bench_sort(int64_t pairs, int64_t len)
{
	const int64_t n = pairs * len;
	std::vector<int64_t> off;
	int64_t    *d_off;
	T		   *in = make_side<T>(pairs, len, 31, 0, false, off, &d_off),
			   *out,
			   *ref;
	typename mp::order<T>::key_type *keys;
	void	   *tmp = nullptr,
			   *cub_tmp = nullptr;
	size_t		bytes = 0,
				cub_bytes = 0;

	CK(cudaMalloc(&out, n * sizeof(T)));
	CK(cudaMalloc(&ref, n * sizeof(T)));
	CK(cudaMalloc(&keys, 2 * n * sizeof(*keys)));
	CK(mp::batch_sort_on_device<T>(nullptr, nullptr, pairs, n, len, len, nullptr, nullptr,
								   nullptr, nullptr, &bytes, 0));
	CK(cudaMalloc(&tmp, bytes));
	CK(cub::DeviceSegmentedSort::SortKeys(cub_tmp, cub_bytes, in, ref, n, pairs, d_off,
										  d_off + 1));
	CK(cudaMalloc(&cub_tmp, cub_bytes));

	float		ours = median_ms([&] {
		CK(mp::batch_sort_on_device<T>(in, d_off, pairs, n, len, len, out, keys, keys + n, tmp,
									   &bytes, 0));
	});
	float		cub_unstable = median_ms([&] {
		CK(cub::DeviceSegmentedSort::SortKeys(cub_tmp, cub_bytes, in, ref, n, pairs, d_off,
											  d_off + 1));
	});

	printf("sort %-8s %7" PRId64 " segments x %5" PRId64 ": batch %8.3f ms, "
		   "cub::DeviceSegmentedSort::SortKeys %8.3f ms: %5.2fx%s\n", type_name<T>::get(),
		   pairs, len, ours, cub_unstable, cub_unstable / ours,
		   same_bits(out, ref, n) ? "" : "  RESULTS DIFFER");
	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(ref));
	CK(cudaFree(keys));
	CK(cudaFree(tmp));
	CK(cudaFree(cub_tmp));
	CK(cudaFree(d_off));
}

/*
 * SORT_SHAPES=1: the group sort's shapes swept on one length of pair, each
 * (G threads of VT, the places skewed or not) timed with its two list
 * passes and checked against CUB's result.
 */
template <typename T, int G, int VT, bool SKEW>
static void
sweep_shape(const T *in, const int64_t *d_off, int64_t pairs, int64_t len, T *out,
			const T *ref, void *tmp)
{
	constexpr int NT = G < 128 ? 128 : G;
	unsigned long long *counters = (unsigned long long *) tmp;
	int64_t    *lists = (int64_t *) tmp + mp::BATCH_SORT_COUNTERS;
	const int	c = mp::batch_sort_class(len);
	const unsigned list_blocks = (unsigned) ((pairs + 255) / 256 < 4096 ? (pairs + 255) / 256 : 4096);
	int			sms = 0;

	if (G * VT < len)
		return;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

	const int64_t blocks = (pairs + NT / G - 1) / (NT / G),
				full = (int64_t) sms * (2048 / NT);

	CK(cudaMemset(out, 0, pairs * len * sizeof(T)));
	float		ms = median_ms([&] {
		CK(cudaMemsetAsync(counters, 0, mp::BATCH_SORT_COUNTERS * sizeof(*counters)));
		mp::batch_sort_list<sizeof(T), false><<<list_blocks, 256>>>(d_off, pairs, counters, nullptr, nullptr);
		mp::batch_sort_list<sizeof(T), true><<<list_blocks, 256>>>(d_off, pairs, counters, lists, nullptr);
		mp::batch_sort_groups<T, G, VT, SKEW><<<(unsigned) (blocks < full ? blocks : full), NT>>>(
			in, d_off, lists, counters, c, out);
		CK(cudaGetLastError());
	});

	printf("  %-8s %7" PRId64 " x %5" PRId64 ": G %3d, VT %2d, %-8s %8.3f ms%s\n",
		   type_name<T>::get(), pairs, len, G, VT, SKEW ? "skewed" : "plain", ms,
		   same_bits(out, ref, pairs * len) ? "" : "  RESULTS DIFFER");
}

template <typename T>
static void
sweep_shapes(int64_t pairs, int64_t len)
{
	const int64_t n = pairs * len;
	std::vector<int64_t> off;
	int64_t    *d_off;
	T		   *in = make_side<T>(pairs, len, 31, 0, false, off, &d_off),
			   *out,
			   *ref;
	void	   *tmp = nullptr,
			   *cub_tmp = nullptr;
	size_t		cub_bytes = 0;

	CK(cudaMalloc(&out, n * sizeof(T)));
	CK(cudaMalloc(&ref, n * sizeof(T)));
	CK(cudaMalloc(&tmp, (mp::BATCH_SORT_COUNTERS + pairs) * sizeof(int64_t)));
	CK(cub::DeviceSegmentedSort::SortKeys(cub_tmp, cub_bytes, in, ref, n, pairs, d_off,
										  d_off + 1));
	CK(cudaMalloc(&cub_tmp, cub_bytes));
	printf("  %-8s %7" PRId64 " x %5" PRId64 ": cub::DeviceSegmentedSort::SortKeys %8.3f ms\n",
		   type_name<T>::get(), pairs, len, median_ms([&] {
		CK(cub::DeviceSegmentedSort::SortKeys(cub_tmp, cub_bytes, in, ref, n, pairs, d_off,
											  d_off + 1));
	}));
#define MP_SWEEP(G, VT) \
	sweep_shape<T, G, VT, true>(in, d_off, pairs, len, out, ref, tmp); \
	sweep_shape<T, G, VT, false>(in, d_off, pairs, len, out, ref, tmp)
	if (len <= 128)
	{
		MP_SWEEP(4, 32);
		MP_SWEEP(8, 16);
		MP_SWEEP(16, 8);
		MP_SWEEP(32, 4);
		MP_SWEEP(16, 16);
		MP_SWEEP(32, 8);
	}
	else
	{
		MP_SWEEP(32, 32);
		MP_SWEEP(64, 16);
		MP_SWEEP(128, 8);
		MP_SWEEP(256, 4);
	}
#undef MP_SWEEP
	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(ref));
	CK(cudaFree(tmp));
	CK(cudaFree(cub_tmp));
	CK(cudaFree(d_off));
}

/*
 * TILE_SHAPES=1: the merge's and the set operations' tiles swept (128
 * threads of VT) on one shape of pairs, each result compared with the
 * default shape's bit for bit (offsets too); the set operations' time is
 * their kernels' alone, the share of the copy rate as in bench_shape.
 */
struct tile_sweep
{
	int64_t		pairs,
				n;
	double		copy_rate;
	int64_t    *parts,
			   *out_off,
			   *ref_off,
			   *length;
	unsigned long long *chain;
};

/*
 * One set operation of the sweeps at a shape, timed, its results and
 * pairs' offsets compared with the default shape's (ref, ref_off).
 */
template <typename T, mp_setop OP, int VT, int STAGES = mp::batch_setop_shape<T>::STAGES,
		  int BLOCKS = mp::batch_setop_shape<T>::BLOCKS>
static void
sweep_setop(const tile_sweep &t, const T *a, const int64_t *aoff, const T *b,
			const int64_t *boff, T *out, const T *ref, const int64_t *ref_off, const char *name)
{
	const float ms = median_ms([&] {
		CK((mp::batch_setop_on_device<T, OP, 128, VT, STAGES, BLOCKS>(
			a, aoff, b, boff, t.pairs, t.n, out, t.n, t.out_off, t.length, t.parts, t.chain,
			(int *) nullptr, 0)));
	});
	int64_t		len = 0;

	CK(cudaMemcpy(&len, t.length, sizeof(len), cudaMemcpyDeviceToHost));

	const bool	same = same_bits(out, ref, len) &&
		thrust::equal(thrust::device, t.out_off, t.out_off + t.pairs + 1, ref_off);

	printf(" | %s %7.3f ms, %5.1f%% of copy%s", name, ms,
		   100.0 * (t.n + len) * sizeof(T) / ms / t.copy_rate, same ? "" : " (DIFFERS)");
}

template <typename T, int VT>
static void
sweep_tile(const tile_sweep &t, const T *a, const int64_t *aoff, const T *b,
		   const int64_t *boff, T *out, const T *ref_merge, const T *ref_isect,
		   const T *ref_union)
{
	const float merge_ms = median_ms([&] {
		CK((mp::batch_merge_on_device<T, 128, VT>(a, aoff, b, boff, t.pairs, t.n, out, t.parts,
												  (int *) nullptr, 0)));
	});
	const bool	merge_same = same_bits(out, ref_merge, t.n);

	printf("  %-8s VT %2d: merge %7.3f ms%s", type_name<T>::get(), VT, merge_ms,
		   merge_same ? "" : " (DIFFERS)");
	sweep_setop<T, MP_INTERSECT, VT>(t, a, aoff, b, boff, out, ref_isect, t.ref_off, "intersect");
	sweep_setop<T, MP_UNION, VT>(t, a, aoff, b, boff, out, ref_union, t.ref_off + t.pairs + 1,
								 "union");
	printf("\n");
}

/*
 * PIPE_SHAPES=1: the set operations' pipelined kernel swept over its
 * elements a thread, stages and blocks an SM (the registers' bound; 0: the
 * kernel of one tile a block), each result compared with the default
 * shape's.
 */
template <typename T, int VT, int STAGES, int BLOCKS>
static void
sweep_pipe(const tile_sweep &t, const T *a, const int64_t *aoff, const T *b,
		   const int64_t *boff, T *out, const T *ref_isect, const T *ref_union)
{
	printf("  %-8s VT %2d, %d stages, %d blocks:", type_name<T>::get(), VT, STAGES, BLOCKS);
	sweep_setop<T, MP_INTERSECT, VT, STAGES, BLOCKS>(t, a, aoff, b, boff, out, ref_isect,
													 t.ref_off, "intersect");
	sweep_setop<T, MP_UNION, VT, STAGES, BLOCKS>(t, a, aoff, b, boff, out, ref_union,
												 t.ref_off + t.pairs + 1, "union");
	printf("\n");
}

template <typename T>
static void
sweep_tiles(const shape &s, bool pipe)
{
	const int64_t pairs = s.pairs,
				na = pairs * s.na,
				nb = pairs * s.nb,
				n = na + nb;
	std::vector<int64_t> a_off,
				b_off;
	int64_t    *aoff,
			   *boff;
	T		   *a = make_side<T>(pairs, s.na, 11, s.na + s.nb, true, a_off, &aoff);
	T		   *b = make_side<T>(pairs, s.nb, 12, s.na + s.nb, true, b_off, &boff);
	T		   *out,
			   *refs;
	tile_sweep	t = {pairs, n, 0, nullptr, nullptr, nullptr, nullptr, nullptr};
	const int64_t words = mp::batch_setop_chain_words<T, 128, 7>(pairs, n);

	CK(cudaMalloc(&out, n * sizeof(T)));
	CK(cudaMalloc(&refs, 3 * n * sizeof(T)));
	CK(cudaMalloc(&t.parts, mp::batch_setop_parts<T, 128, 7>(pairs, n) * sizeof(int64_t)));
	CK(cudaMalloc(&t.out_off, (pairs + 1) * sizeof(int64_t)));
	CK(cudaMalloc(&t.ref_off, 2 * (pairs + 1) * sizeof(int64_t)));
	CK(cudaMalloc(&t.length, sizeof(int64_t)));
	CK(cudaMalloc(&t.chain, words * sizeof(unsigned long long)));
	t.copy_rate = 2.0 * n * sizeof(T) / median_ms([&] {
		CK(cudaMemcpyAsync(out, a, na * sizeof(T), cudaMemcpyDeviceToDevice));
		CK(cudaMemcpyAsync(out + na, b, nb * sizeof(T), cudaMemcpyDeviceToDevice));
	});
	/* the default shapes' results */
	CK(mp::batch_merge_on_device<T>(a, aoff, b, boff, pairs, n, refs, t.parts, (int *) nullptr,
									0));
	CK((mp::batch_setop_on_device<T, MP_INTERSECT>(a, aoff, b, boff, pairs, n, refs + n, n,
												   t.ref_off, t.length, t.parts, t.chain,
												   (int *) nullptr, 0)));
	CK((mp::batch_setop_on_device<T, MP_UNION>(a, aoff, b, boff, pairs, n, refs + 2 * n, n,
											   t.ref_off + pairs + 1, t.length, t.parts, t.chain,
											   (int *) nullptr, 0)));
	printf("%s, %" PRId64 " pairs of %" PRId64 " + %" PRId64 " (default VT %d / %d):\n",
		   type_name<T>::get(), pairs, s.na, s.nb, mp::batch_shape<T>::VT,
		   mp::batch_setop_shape<T>::VT);
	if (pipe && sizeof(T) == 4)
	{
		sweep_pipe<T, 23, 3, 0>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 23, 3, 4>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 27, 3, 4>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 31, 3, 4>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 31, 3, 3>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 31, 4, 3>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
	}
	else if (pipe)
	{
		sweep_pipe<T, 15, 3, 0>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 15, 3, 3>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 19, 3, 3>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
		sweep_pipe<T, 15, 4, 3>(t, a, aoff, b, boff, out, refs + n, refs + 2 * n);
	}
	else
	{
		sweep_tile<T, 7>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
		sweep_tile<T, 11>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
		sweep_tile<T, 15>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
		sweep_tile<T, 19>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
		sweep_tile<T, 23>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
		if constexpr (sizeof(T) == 4)
		{
			sweep_tile<T, 27>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
			sweep_tile<T, 31>(t, a, aoff, b, boff, out, refs, refs + n, refs + 2 * n);
		}
	}
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(aoff));
	CK(cudaFree(boff));
	CK(cudaFree(out));
	CK(cudaFree(refs));
	CK(cudaFree(t.parts));
	CK(cudaFree(t.out_off));
	CK(cudaFree(t.ref_off));
	CK(cudaFree(t.length));
	CK(cudaFree(t.chain));
}

int
main(int argc, char **argv)
{
	const bench_options opt = parse_options(argc, argv);
	auto		wanted = [&](int64_t pairs) {
		return !opt.sizes_given ||
			std::find(opt.sizes.begin(), opt.sizes.end(), pairs) != opt.sizes.end();
	};

	print_header("batches of many small pairs, device-resident");
	if (getenv("SORT_SHAPES"))
	{
		sweep_shapes<int32_t>(1000000, 100);
		sweep_shapes<int64_t>(1000000, 100);
		sweep_shapes<int32_t>(100000, 1000);
		sweep_shapes<int64_t>(100000, 1000);
		return 0;
	}
	if (getenv("TILE_SHAPES") || getenv("PIPE_SHAPES"))
	{
		for (int k = 0; k < 2; k++)
		{
			sweep_tiles<int32_t>(shapes[k], getenv("PIPE_SHAPES") != nullptr);
			sweep_tiles<int64_t>(shapes[k], getenv("PIPE_SHAPES") != nullptr);
		}
		return 0;
	}
	for (const shape &s : shapes)
		if (wanted(s.pairs))
			bench_shape<int32_t>(s);
	for (const shape &s : shapes)
		if (wanted(s.pairs))
			bench_shape<int64_t>(s);

	static const shape sorts[] = {{100000, 1000, 0}, {1000000, 100, 0}};

	for (const shape &s : sorts)
		if (wanted(s.pairs))
			bench_sort<int32_t>(s.pairs, s.na);
	for (const shape &s : sorts)
		if (wanted(s.pairs))
			bench_sort<int64_t>(s.pairs, s.na);
	if (wanted(10000))
		bench_sort<int32_t>(10000, 10000);
	return 0;
}
