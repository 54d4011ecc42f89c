/*
 * bench_search.cu
 *		Kernel-level sorted search: mergepath's lower and upper bounds beside
 *		Thrust's vectorized thrust::lower_bound / upper_bound (one binary
 *		search a needle), and the join's kernels beside the CPU backend's
 *		merge join.  Device-resident sorted random keys, median of --reps runs
 *		timed with CUDA events after a warm-up; every result is compared
 *		with Thrust's (the join's with the CPU's) before it is timed.
 *
 *	bench_search [--reps 7] [--tune] [--host]
 *
 * Searches: 100M needles in a 100M haystack, 1M in 100M, 10M in 10M, keys of
 * both in [0, 2 * haystack).  GB/s counts both inputs read and the ranks
 * written; "of copy" compares it with a device-to-device copy of as many
 * bytes.  mergepath is timed with its sortedness check (always the merge,
 * which reads everything once anyway) and without it (the merge or the
 * sparse path, as search_is_sparse picks), which is Thrust's work.  --tune
 * times both paths without the check across size ratios, to place
 * SEARCH_SPARSE_RATIO.  --host adds the join: unique keys and keys
 * with about four copies a side, GPU kernels (counts, scan, expansion)
 * beside the CPU backend's count and cursor.
 */
#include <thrust/binary_search.h>

#include "../../cuda/kernels/search/launch.cuh"
#include "bench_common.cuh"

#include <cub/device/device_scan.cuh>

/* A haystack of nh and nn needles, keys in [0, 2 nh), sorted. */
template <typename T>
struct search_case
{
	int64_t		nh,
				nn;
	T		   *hay,
			   *needles;
	int32_t    *out,
			   *ref;
	int64_t    *parts;
	int		   *flag;
	float		copy_gbps;

	search_case(int64_t nh_, int64_t nn_)
		: nh(nh_), nn(nn_), hay(sorted_keys<T>(nh_, 1, 2 * nh_)),
		needles(sorted_keys<T>(nn_, 2, 2 * nh_))
	{
		CK(cudaMalloc(&out, nn * sizeof(int32_t)));
		CK(cudaMalloc(&ref, nn * sizeof(int32_t)));
		CK(cudaMalloc(&parts, mp::search_parts_bytes<T>(nh, nn)));
		CK(cudaMalloc(&flag, sizeof(int)));
		CK(cudaMemset(flag, 0, sizeof(int)));

		/* a copy of as many bytes as the search moves */
		size_t		bytes = (nh + nn) * sizeof(T) / 2 + nn * sizeof(int32_t) / 2;
		char	   *x,
				   *y;

		CK(cudaMalloc(&x, bytes));
		CK(cudaMalloc(&y, bytes));
		float		t = median_ms([&] {
			CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice));
		});

		copy_gbps = (float) (2.0 * bytes / (t * 1e6));
		CK(cudaFree(x));
		CK(cudaFree(y));
	}
	~search_case()
	{
		CK(cudaFree(hay));
		CK(cudaFree(needles));
		CK(cudaFree(out));
		CK(cudaFree(ref));
		CK(cudaFree(parts));
		CK(cudaFree(flag));
	}

	template <bool UPPER>
	void run_mp(bool checked, int sparse = -1)
	{
		CK((mp::search_on_device<T, UPPER, mp::OUT_RANK>(hay, nh, needles, nn, out, nullptr, parts,
														 checked ? flag : nullptr, 0, sparse)));
	}

	template <bool UPPER>
	void run_thrust()
	{
		if (UPPER)
			thrust::upper_bound(thrust::device, hay, hay + nh, needles, needles + nn, ref,
								mp::order<T>());
		else
			thrust::lower_bound(thrust::device, hay, hay + nh, needles, needles + nn, ref,
								mp::order<T>());
	}

	bool out_is_right()
	{
		int			flag_host = 1;

		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(&flag_host, flag, sizeof(int), cudaMemcpyDeviceToHost));
		return flag_host == 0 && same_bits(out, ref, nn);
	}

	double bytes() const
	{
		return (double) (nh + nn) * sizeof(T) + (double) nn * sizeof(int32_t);
	}
};

static const char *
millions(int64_t n)
{
	static char buf[8][16];
	static int	k;
	char	   *b = buf[k++ % 8];

	snprintf(b, 16, "%lldM", (long long) (n / 1000000));
	return b;
}

template <typename T, bool UPPER>
static void
bench_one(search_case<T> &c)
{
	c.template run_thrust<UPPER>();
	c.template run_mp<UPPER>(true);
	bool		ok = c.out_is_right();

	c.template run_mp<UPPER>(false);
	ok = ok && c.out_is_right();
	float		t_checked = median_ms([&] { c.template run_mp<UPPER>(true); });
	float		t_mp = median_ms([&] { c.template run_mp<UPPER>(false); });
	float		t_thrust = median_ms([&] { c.template run_thrust<UPPER>(); });
	double		gbps = c.bytes() / (t_checked * 1e6);

	printf("| %-7s | %5s in %5s | %-11s | %7.3f | %6.0f | %5.0f%% | %9.2f | %-6s | %9.3f | %9.3f | %9.2f | %s\n",
		   type_name<T>::get(), millions(c.nn), millions(c.nh),
		   UPPER ? "upper_bound" : "lower_bound", t_checked, gbps, 100.0 * gbps / c.copy_gbps,
		   t_thrust / t_checked, mp::search_is_sparse(c.nh, c.nn, false) ? "sparse" : "merge",
		   t_mp, t_thrust, t_thrust / t_mp, ok ? "same" : "MISMATCH");
	if (!ok)
		exit(1);
}

template <typename T>
static void
bench_type()
{
	const int64_t M = 1000000;
	const int64_t shapes[][2] = {{100 * M, 100 * M}, {100 * M, 1 * M}, {10 * M, 10 * M}};

	for (auto &s : shapes)
	{
		search_case<T> c(s[0], s[1]);

		bench_one<T, false>(c);
		bench_one<T, true>(c);
	}
}

/* The merge and the sparse path on the same search, across ratios. */
template <typename T>
static void
tune_type()
{
	const int64_t nh = 100000000;

	for (int64_t ratio : {2, 4, 8, 16, 32, 64, 100})
	{
		search_case<T> c(nh, nh / ratio);

		c.template run_thrust<false>();
		c.template run_mp<false>(true, 0);
		bool		ok = c.out_is_right();

		c.template run_mp<false>(true, 1);
		ok = ok && c.out_is_right();
		c.template run_mp<false>(false, 1);
		ok = ok && c.out_is_right();
		float		t_checked = median_ms([&] { c.template run_mp<false>(true, 0); });
		float		t_merge = median_ms([&] { c.template run_mp<false>(false, 0); });
		float		t_sparse = median_ms([&] { c.template run_mp<false>(false, 1); });
		float		t_thrust = median_ms([&] { c.template run_thrust<false>(); });

		printf("| %-7s | %5s in %5s | %5lld | %10.3f | %8.3f | %9.3f | %9.3f | %s\n",
			   type_name<T>::get(), millions(c.nn), millions(c.nh), (long long) ratio, t_checked,
			   t_merge, t_sparse, t_thrust, ok ? "same" : "MISMATCH");
	}
}

/*
 * The join's device work on a and b (counts, scan, total, expansion) beside
 * the CPU backend's count and cursor on host copies; pairs compared.
 */
template <typename T>
static void
bench_join(int64_t n, uint64_t range, const char *keys)
{
	T		   *a = sorted_keys<T>(n, 3, range),
			   *b = sorted_keys<T>(n, 4, range);
	int32_t    *lb,
			   *cnt,
			   *a_pos,
			   *b_pos;
	int64_t    *off,
			   *parts,
			   *total;
	void	   *scan = nullptr;
	size_t		scan_bytes = 0;
	int64_t		npairs = 0;

	CK(cudaMalloc(&lb, n * sizeof(int32_t)));
	CK(cudaMalloc(&cnt, n * sizeof(int32_t)));
	CK(cudaMalloc(&off, n * sizeof(int64_t)));
	CK(cudaMalloc(&parts, mp::search_parts_bytes<T>(n, n)));
	CK(cudaMalloc(&total, sizeof(int64_t)));
	CK(cub::DeviceScan::ExclusiveScan(scan, scan_bytes, cnt, off, cuda::std::plus<int64_t>(),
									  (int64_t) 0, n));
	CK(cudaMalloc(&scan, scan_bytes));

	auto		count = [&] {
		CK((mp::search_on_device<T, false, mp::OUT_RANK>(b, n, a, n, lb, nullptr, parts, nullptr, 0)));
		CK((mp::search_on_device<T, true, mp::OUT_RANK_MINUS>(b, n, a, n, cnt, lb, parts, nullptr,
															 0)));
		CK(cub::DeviceScan::ExclusiveScan(scan, scan_bytes, cnt, off, cuda::std::plus<int64_t>(),
										  (int64_t) 0, n));
		mp::join_total<<<1, 1>>>(off, cnt, n, total);
	};
	count();
	CK(cudaMemcpy(&npairs, total, sizeof(int64_t), cudaMemcpyDeviceToHost));
	CK(cudaMalloc(&a_pos, npairs * sizeof(int32_t)));
	CK(cudaMalloc(&b_pos, npairs * sizeof(int32_t)));

	auto		gpu_join = [&] {
		count();
		CK(mp::join_expand_on_device(off, lb, n, 0, npairs, a_pos, b_pos, 0));
	};
	gpu_join();
	float		t_count = median_ms(count);
	float		t_gpu = median_ms(gpu_join);

	/* the CPU backend on host copies */
	std::vector<T> ha(n), hb(n);
	std::vector<int32_t> ga(npairs), gb(npairs), ca(npairs), cb(npairs);
	int64_t		cpu_pairs = -1;
	mp_join_cursor cursor = {};

	CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(ga.data(), a_pos, npairs * sizeof(int32_t), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(gb.data(), b_pos, npairs * sizeof(int32_t), cudaMemcpyDeviceToHost));
	double		t_cpu = host_ms([&] {
		mp_cpu_join_count(mp_type_of<T>::v, ha.data(), n, hb.data(), n, &cpu_pairs, true,
						  nullptr);
		mp_cpu_join_next(mp_type_of<T>::v, ha.data(), n, hb.data(), n, &cursor, ca.data(),
						 cb.data(), npairs);
	});
	bool		ok = cpu_pairs == npairs && ga == ca && gb == cb;

	printf("| %-7s | %5s x %5s | %-7s | %8.2fM | %8.3f | %8.3f | %9.1f | %8.0f | %s\n",
		   type_name<T>::get(), millions(n), millions(n), keys, npairs / 1e6, t_count, t_gpu,
		   t_cpu, t_cpu / t_gpu, ok ? "same" : "MISMATCH");
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(lb));
	CK(cudaFree(cnt));
	CK(cudaFree(off));
	CK(cudaFree(parts));
	CK(cudaFree(total));
	CK(cudaFree(scan));
	CK(cudaFree(a_pos));
	CK(cudaFree(b_pos));
	if (!ok)
		exit(1);
}

int
main(int argc, char **argv)
{
	bench_options opt = parse_options(argc, argv);

	print_header("GB/s count both inputs read and the ranks written; mergepath checks sortedness");
	if (opt.tune)
	{
		printf("| type    | needles in hay | ratio | checked ms | merge ms | sparse ms | thrust ms |\n"
			   "|---------|----------------|-------|------------|----------|-----------|-----------|\n");
		tune_type<int32_t>();
		tune_type<int64_t>();
		return 0;
	}
	printf("| type    | needles in hay | search      | checked ms |   GB/s | of copy | thrust/checked | unchecked path | ms | thrust ms | thrust/unchecked |\n"
		   "|---------|----------------|-------------|------------|--------|---------|----------------|----------------|----|-----------|------------------|\n");
	bench_type<int32_t>();
	bench_type<int64_t>();
	bench_type<float>();
	bench_type<double>();

	if (opt.with_host)
	{
		printf("\n| type    | a x b          | keys    |    pairs | count ms | join ms | cpu join ms | cpu/gpu |\n"
			   "|---------|----------------|---------|----------|----------|---------|-------------|---------|\n");
		for (int64_t s : opt.sizes)
		{
			int64_t		n = s * 1000000;

			bench_join<int32_t>(n, 2 * n, "[0,2n)");
			bench_join<int32_t>(n, n / 4, "[0,n/4)");
			bench_join<int64_t>(n, 2 * n, "[0,2n)");
			bench_join<int64_t>(n, n / 4, "[0,n/4)");
		}
	}
	return 0;
}
