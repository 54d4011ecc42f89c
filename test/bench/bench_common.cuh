/*
 * bench_common.cuh
 *		What the kernel benchmarks share: error checks, timing, inputs.
 */
#ifndef BENCH_COMMON_CUH
#define BENCH_COMMON_CUH

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include "api/mp_api.h"

#define CK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) { \
			fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)

static int reps = 7;	/* timed runs per figure, after one warm-up */

template <typename F>
static float
median_ms(F &&run)
{
	cudaEvent_t start, stop;
	std::vector<float> t;

	CK(cudaEventCreate(&start));
	CK(cudaEventCreate(&stop));
	run();
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < reps; i++)
	{
		float		ms;

		CK(cudaEventRecord(start));
		run();
		CK(cudaEventRecord(stop));
		CK(cudaEventSynchronize(stop));
		CK(cudaEventElapsedTime(&ms, start, stop));
		t.push_back(ms);
	}
	CK(cudaEventDestroy(start));
	CK(cudaEventDestroy(stop));
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/*
 * n pseudo-random keys: over the whole type (range 0), else range distinct
 * values: [0, range), or for float the range floats from 1.0 up (float
 * cannot hold every integer above 2^24, and rounding would give it runs of
 * equal keys that the other types do not have).
 */
template <typename T>
__global__ void
fill_random(T *x, int64_t n, uint64_t seed, uint64_t range)
{
	int64_t		i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		uint64_t	h = (uint64_t) i * 0x9E3779B97F4A7C15ull + seed;

		h ^= h >> 31;
		h *= 0xBF58476D1CE4E5B9ull;
		h ^= h >> 29;
		if (range != 0)
		{
			if constexpr (std::is_same<T, float>::value)
				x[i] = __uint_as_float(0x3F800000u + (uint32_t) (h % range));
			else
				x[i] = (T) (h % range);
		}
		else if constexpr (std::is_floating_point<T>::value)
			x[i] = (T) ((double) (int64_t) h / 9.2e12);	/* about +-1e6 */
		else
			x[i] = (T) h;
	}
}

/* n uniform random keys, sorted on the device (range as fill_random's) */
template <typename T>
static T *
sorted_keys(int64_t n, uint64_t seed, uint64_t range = 0)
{
	T		   *raw,
			   *sorted;
	void	   *tmp = nullptr;
	size_t		tmp_bytes = 0;

	CK(cudaMalloc(&raw, n * sizeof(T)));
	CK(cudaMalloc(&sorted, n * sizeof(T)));
	fill_random<<<(unsigned) ((n + 255) / 256), 256>>>(raw, n, seed, range);
	CK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, raw, sorted, n));
	CK(cudaMalloc(&tmp, tmp_bytes));
	CK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, raw, sorted, n));
	CK(cudaDeviceSynchronize());
	CK(cudaFree(tmp));
	CK(cudaFree(raw));
	return sorted;
}

template <typename T>
static bool
same_bits(const T *x, const T *y, int64_t n)
{
	typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type U;

	return thrust::equal(thrust::device, (const U *) x, (const U *) x + n, (const U *) y);
}

template <typename T> struct type_name;
template <> struct type_name<int32_t> { static const char *get() { return "int32"; } };
template <> struct type_name<int64_t> { static const char *get() { return "int64"; } };
template <> struct type_name<float> { static const char *get() { return "float32"; } };
template <> struct type_name<double> { static const char *get() { return "float64"; } };

template <typename T> struct mp_type_of;
template <> struct mp_type_of<int32_t> { static const mp_type v = MP_INT4; };
template <> struct mp_type_of<int64_t> { static const mp_type v = MP_INT8; };
template <> struct mp_type_of<float> { static const mp_type v = MP_FLOAT4; };
template <> struct mp_type_of<double> { static const mp_type v = MP_FLOAT8; };

/* Command line: [--sizes 1,10,100] [--reps 7] [--tune] [--host] */
struct bench_options
{
	std::vector<int64_t> sizes = {1, 10, 100};	/* millions per side */
	bool		sizes_given = false;	/* bench_batch: the pair counts to run */
	bool		tune = false;
	bool		with_host = false;
	bool		with_select = false;	/* bench_setops: CUB's compaction beside */
};

static bench_options
parse_options(int argc, char **argv)
{
	bench_options o;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--tune"))
			o.tune = true;
		else if (!strcmp(argv[i], "--host"))
			o.with_host = true;
		else if (!strcmp(argv[i], "--select"))
			o.with_select = true;
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
		{
			o.sizes.clear();
			o.sizes_given = true;
			for (char *s = strtok(argv[++i], ","); s; s = strtok(nullptr, ","))
				o.sizes.push_back(atoll(s));
		}
		else
		{
			fprintf(stderr, "usage: %s [--sizes 1,10,100] [--reps 7] [--tune] [--host] [--select]\n",
					argv[0]);
			exit(2);
		}
	}
	return o;
}

/* The device, and what the figures count. */
static void
print_header(const char *what)
{
	cudaDeviceProp prop;

	CK(cudaGetDeviceProperties(&prop, 0));
	printf("%s, %d SMs; median of %d; %s\n\n", prop.name, prop.multiProcessorCount, reps, what);
}

[[maybe_unused]] static double
host_ms(const std::function<void()> &f)
{
	auto		t0 = std::chrono::steady_clock::now();

	f();
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

#endif							/* BENCH_COMMON_CUH */
