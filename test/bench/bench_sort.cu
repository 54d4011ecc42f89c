/*
 * bench_sort.cu
 *		The sort path of mp_gpu_sort (sort/launch.cuh's sort_on_device)
 *		beside calling cub::DeviceRadixSort::SortKeys directly and
 *		thrust::sort, on the same uniform random keys, in one process.
 *
 *	bench_sort [--sizes 1,10,100] [--reps 7] [--host]
 *
 * Each timed run first copies the unsorted keys into the buffer that is
 * sorted (device to device: every sort here works in place), so all three
 * columns include that copy, shown on its own.  Ours includes, for floats,
 * the wait for the NaN flag, as mp_gpu_sort has it.  Float rows also time
 * ours with 1% NaNs, which sorts again the way that sets them aside (CUB
 * alone would sort them wrongly).  Every result is compared with CUB's bit for bit.  --host adds
 * the CPU backend's sort (on mp_cpu_threads, four) beside std::stable_sort and
 * std::sort (one thread).
 */
#include <cmath>

#include <thrust/sort.h>

#include "bench_common.cuh"
#include "../../cuda/kernels/sort/launch.cuh"

/* Sprinkle NaNs (of both signs) over x: about one element in a hundred. */
template <typename T>
__global__ void
add_nans(T *x, int64_t n)
{
	int64_t		i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && (i * 0x9E3779B97F4A7C15ull >> 57) == 0)
	{
		T			nan = (T) NAN;

		x[i] = (i & 1) ? -nan : nan;
	}
}

template <typename T>
static void
bench_type(int64_t n)
{
	T		   *src = nullptr,
			   *buf,
			   *alt,
			   *ref,
			   *result = nullptr;
	int		   *flags,
			   *pinned;
	void	   *temp,
			   *cub_temp = nullptr;
	size_t		temp_bytes = 0,
				cub_bytes = 0;
	cudaStream_t stream = 0;

	CK(cudaMalloc(&src, n * sizeof(T)));
	CK(cudaMalloc(&buf, n * sizeof(T)));
	CK(cudaMalloc(&alt, n * sizeof(T)));
	CK(cudaMalloc(&ref, n * sizeof(T)));
	CK(cudaMalloc(&flags, 2 * sizeof(int)));
	CK(cudaMallocHost(&pinned, 2 * sizeof(int)));
	fill_random<<<(unsigned) ((n + 255) / 256), 256>>>(src, n, 11, 0);
	CK(mp::sort_temp_bytes<T>((int) n, &temp_bytes));
	CK(cudaMalloc(&temp, temp_bytes));
	{
		cub::DoubleBuffer<T> keys(buf, alt);

		CK(cub::DeviceRadixSort::SortKeys(cub_temp, cub_bytes, keys, (int) n));
		CK(cudaMalloc(&cub_temp, cub_bytes));
	}

	auto		copy_in = [&] {
		CK(cudaMemcpyAsync(buf, src, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
	};
	auto		run_cub = [&]() -> T * {
		cub::DoubleBuffer<T> keys(buf, alt);

		copy_in();
		CK(cub::DeviceRadixSort::SortKeys(cub_temp, cub_bytes, keys, (int) n, 0,
										  (int) sizeof(T) * 8, stream));
		return keys.Current();
	};
	/* as mp_gpu_sort does: the sort, then (with NaNs found) the sort again */
	auto		run_ours = [&]() -> T * {
		T		   *out = nullptr;

		copy_in();
		CK(mp::sort_on_device<T>(buf, alt, (int) n, &out, temp, temp_bytes, flags, pinned,
								 stream));
		if (std::is_floating_point<T>::value)
		{
			CK(cudaStreamSynchronize(stream));
			if (pinned[0])
				CK(mp::sort_with_nans<T>(buf, alt, (int) n, &out, temp, temp_bytes, flags + 1,
										 pinned + 1, stream));
		}
		return out;
	};

	/* CUB's result is the reference for inputs without NaN */
	T		   *cub_out = run_cub();

	CK(cudaMemcpy(ref, cub_out, n * sizeof(T), cudaMemcpyDeviceToDevice));
	result = run_ours();
	CK(cudaDeviceSynchronize());
	bool		ok = same_bits(result, ref, n);

	CK(cudaMemcpy(buf, src, n * sizeof(T), cudaMemcpyDeviceToDevice));
	thrust::sort(thrust::device, buf, buf + n);
	ok = ok && same_bits(buf, ref, n);

	float		t_copy = median_ms(copy_in);
	float		t_ours = median_ms([&] { result = run_ours(); });
	float		t_cub = median_ms([&] { run_cub(); });
	float		t_thrust = median_ms([&] {
		copy_in();
		thrust::sort(thrust::device, buf, buf + n);
	});
	char		nan_ms[32] = "";

	if constexpr (std::is_floating_point<T>::value)
	{
		add_nans<<<(unsigned) ((n + 255) / 256), 256>>>(src, n);
		CK(cudaGetLastError());
		snprintf(nan_ms, sizeof(nan_ms), "%.3f", median_ms([&] { result = run_ours(); }));
	}

	printf("| %-7s | %5lldM | %7.3f | %8.3f | %7.3f | %9.3f | %8.3f | %13s | %s\n",
		   type_name<T>::get(), (long long) (n / 1000000), t_copy, t_ours, t_cub, t_thrust,
		   t_ours / t_cub, nan_ms, ok ? "same" : "MISMATCH");
	CK(cudaFree(src));
	CK(cudaFree(buf));
	CK(cudaFree(alt));
	CK(cudaFree(ref));
	CK(cudaFree(flags));
	CK(cudaFreeHost(pinned));
	CK(cudaFree(temp));
	CK(cudaFree(cub_temp));
	if (!ok)
		exit(1);
}

/* The CPU backend's sort beside the C++ library's, host memory, one thread. */
template <typename T>
static void
bench_host(int64_t n)
{
	std::vector<T> in(n),
				out(n),
				scratch(n),
				lib(n);
	uint64_t	h = 88172645463325252ull;
	double		best[3] = {1e30, 1e30, 1e30};

	for (int64_t i = 0; i < n; i++)
	{
		h ^= h << 13;
		h ^= h >> 7;
		h ^= h << 17;
		if constexpr (std::is_floating_point<T>::value)
			in[i] = (T) ((double) (int64_t) h / 9.2e12);
		else
			in[i] = (T) h;
	}
	for (int r = 0; r < 3; r++)
	{
		best[0] = std::min(best[0], host_ms([&] {
			mp_cpu_sort(mp_type_of<T>::v, in.data(), n, out.data(), scratch.data(), nullptr);
		}));
		best[1] = std::min(best[1], host_ms([&] {
			lib = in;
			std::stable_sort(lib.begin(), lib.end());
		}));
		best[2] = std::min(best[2], host_ms([&] {
			lib = in;
			std::sort(lib.begin(), lib.end());
		}));
	}
	bool		ok = memcmp(out.data(), lib.data(), n * sizeof(T)) == 0;

	printf("| %-7s | %5lldM | %9.1f | %16.1f | %11.1f | %15.1f | %s\n", type_name<T>::get(),
		   (long long) (n / 1000000), best[0], best[1], best[2], best[1] / best[0],
		   ok ? "same" : "MISMATCH");
	if (!ok)
		exit(1);
}

int
main(int argc, char **argv)
{
	bench_options opt = parse_options(argc, argv);

	print_header("uniform random keys; every column includes the copy of the input into the sorted buffer");
	printf("| type    | n      | copy ms | ours ms  | cub ms  | thrust ms | ours/cub | ours, 1%% NaN | result\n"
		   "|---------|--------|---------|----------|---------|-----------|----------|---------------|-------\n");
	for (int64_t s : opt.sizes)
	{
		int64_t		n = s * 1000000;

		bench_type<int32_t>(n);
		bench_type<int64_t>(n);
		bench_type<float>(n);
		bench_type<double>(n);
	}
	if (opt.with_host)
	{
		printf("\n| type    | n      | mp cpu ms | std::stable_sort | std::sort ms | stable_sort/mp | result\n"
			   "|---------|--------|-----------|------------------|--------------|----------------|-------\n");
		for (int64_t s : opt.sizes)
		{
			int64_t		n = s * 1000000;

			if (s > 10)
				continue;
			bench_host<int32_t>(n);
			bench_host<int64_t>(n);
			bench_host<float>(n);
			bench_host<double>(n);
		}
	}
	return 0;
}
