/*
 * bench_runs.cu
 *		The k-way merge of sorted runs (kway/tile.cuh's tree of pairwise
 *		Merge Path rounds, the CPU backend's tournament tree) beside sorting
 *		the concatenation instead (sort/launch.cuh's radix sort, the CPU
 *		backend's radix sort), on the same runs, in one process.
 *
 *	bench_runs [--sizes 10] [--reps 7] [--host]
 *
 * n uniform random keys cut into k runs of equal length, each sorted.  The
 * device columns include the copy of the input into the buffer worked on
 * (both work out of place, ping-ponging), shown on its own; the sort's
 * includes, for floats, the wait for its NaN flag, as mp_gpu_sort has it.
 * --host adds the CPU backend's two ways, one thread.  Every result is
 * compared with the sort's, bit for bit.
 */
#include <thrust/sort.h>

#include "bench_common.cuh"
#include "../../cuda/kernels/kway/launch.cuh"
#include "../../cuda/kernels/sort/launch.cuh"

static const int64_t run_counts[] = {2, 4, 8, 32, 128, 1000, 10000};

template <typename T>
static void
bench_type(int64_t n, int64_t k, bool with_host)
{
	std::vector<T> host(n);
	std::vector<int64_t> bounds(k + 1);
	T		   *src,
			   *buf,
			   *alt,
			   *ref,
			   *merged = nullptr,
			   *sorted = nullptr;
	uint32_t   *no_idx = nullptr;
	int64_t    *d_bounds,
			   *d_tables,
			   *parts,
				max_tiles;
	int		   *flags,
			   *pinned;
	void	   *temp;
	size_t		temp_bytes = 0;
	cudaStream_t stream = 0;

	for (int64_t r = 0; r <= k; r++)
		bounds[r] = n * r / k;
	CK(cudaMalloc(&src, n * sizeof(T)));
	CK(cudaMalloc(&buf, n * sizeof(T)));
	CK(cudaMalloc(&alt, n * sizeof(T)));
	CK(cudaMalloc(&ref, n * sizeof(T)));
	fill_random<<<(unsigned) ((n + 255) / 256), 256>>>(src, n, 23, 0);
	CK(cudaMemcpy(host.data(), src, n * sizeof(T), cudaMemcpyDeviceToHost));
	for (int64_t r = 0; r < k; r++)
		std::sort(host.begin() + bounds[r], host.begin() + bounds[r + 1]);
	CK(cudaMemcpy(src, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));

	std::vector<int64_t> tables(2 * k + 130);
	int			rounds = mp::kway_plan<T>(bounds.data(), k, tables.data(), &max_tiles);

	CK(cudaMalloc(&d_bounds, (k + 1) * sizeof(int64_t)));
	CK(cudaMalloc(&d_tables, tables.size() * sizeof(int64_t)));
	CK(cudaMalloc(&parts, (max_tiles + 1) * sizeof(int64_t)));
	CK(cudaMemcpy(d_bounds, bounds.data(), (k + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_tables, tables.data(), tables.size() * sizeof(int64_t),
				  cudaMemcpyHostToDevice));
	CK(cudaMalloc(&flags, 2 * sizeof(int)));
	CK(cudaMallocHost(&pinned, 2 * sizeof(int)));
	CK(mp::sort_temp_bytes<T>((int) n, &temp_bytes));
	CK(cudaMalloc(&temp, temp_bytes));

	auto		copy_in = [&] {
		CK(cudaMemcpyAsync(buf, src, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
	};
	auto		run_merge = [&] {
		copy_in();
		cudaError_t err = mp::kway_merge_on_device<T, false>(buf, alt, nullptr, nullptr,
															 d_bounds, k, tables.data(),
															 d_tables, rounds, parts, &merged,
															 &no_idx, stream);

		CK(err);
	};
	auto		run_sort = [&] {
		copy_in();
		CK(mp::sort_on_device<T>(buf, alt, (int) n, &sorted, temp, temp_bytes, flags, pinned,
								 stream));
		if (std::is_floating_point<T>::value)
			CK(cudaStreamSynchronize(stream));
	};

	run_sort();
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(ref, sorted, n * sizeof(T), cudaMemcpyDeviceToDevice));
	run_merge();
	CK(cudaDeviceSynchronize());
	bool		ok = same_bits(merged, ref, n);

	float		t_copy = median_ms(copy_in);
	float		t_merge = median_ms(run_merge);
	float		t_sort = median_ms(run_sort);
	char		host_cols[96] = "";

	if (with_host)
	{
		std::vector<T> out(n),
					scratch(n),
					want(n);
		double		best_merge = 1e30,
					best_sort = 1e30;

		CK(cudaMemcpy(want.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
		for (int r = 0; r < 3; r++)
		{
			best_merge = std::min(best_merge, host_ms([&] {
				mp_cpu_merge_runs(mp_type_of<T>::v, host.data(), bounds.data(), k, out.data(),
								  nullptr);
			}));
			ok = ok && memcmp(out.data(), want.data(), n * sizeof(T)) == 0;
			best_sort = std::min(best_sort, host_ms([&] {
				mp_cpu_sort(mp_type_of<T>::v, host.data(), n, out.data(), scratch.data(),
							nullptr);
			}));
			ok = ok && memcmp(out.data(), want.data(), n * sizeof(T)) == 0;
		}
		snprintf(host_cols, sizeof(host_cols), " %11.1f | %10.1f | %9.2f |", best_merge,
				 best_sort, best_sort / best_merge);
	}
	printf("| %-7s | %4lldM | %6lld | %6d | %7.3f | %8.3f | %7.3f | %9.2f |%s %s\n",
		   type_name<T>::get(), (long long) (n / 1000000), (long long) k, rounds, t_copy,
		   t_merge, t_sort, t_sort / t_merge, host_cols, ok ? "same" : "MISMATCH");
	CK(cudaFree(src));
	CK(cudaFree(buf));
	CK(cudaFree(alt));
	CK(cudaFree(ref));
	CK(cudaFree(d_bounds));
	CK(cudaFree(d_tables));
	CK(cudaFree(parts));
	CK(cudaFree(flags));
	CK(cudaFreeHost(pinned));
	CK(cudaFree(temp));
	if (!ok)
		exit(1);
}

int
main(int argc, char **argv)
{
	bench_options opt = parse_options(argc, argv);

	bool		sizes_given = false;

	for (int i = 1; i < argc; i++)
		sizes_given |= strcmp(argv[i], "--sizes") == 0;
	if (!sizes_given)
		opt.sizes = {10};
	print_header("k sorted runs of equal length; the device columns include the copy of the input");
	printf("| type    | n     | runs k | rounds | copy ms | merge ms | sort ms | sort/merge |%s result\n"
		   "|---------|-------|--------|--------|---------|----------|---------|------------|%s-------\n",
		   opt.with_host ? " cpu merge ms | cpu sort ms | sort/merge |" : "",
		   opt.with_host ? "--------------|-------------|------------|" : "");
	for (int64_t s : opt.sizes)
		for (int64_t k : run_counts)
		{
			int64_t		n = s * 1000000;

			bench_type<int32_t>(n, k, opt.with_host);
			bench_type<int64_t>(n, k, opt.with_host);
			bench_type<float>(n, k, opt.with_host);
			bench_type<double>(n, k, opt.with_host);
		}
	return 0;
}
