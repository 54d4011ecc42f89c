/*
 * bench_merge.cu
 *		Kernel-level merge: mergepath's Merge Path kernels beside
 *		cub::DeviceMerge::MergeKeys, thrust::merge, a device-to-device copy
 *		of the same bytes, and on the host std::merge and mergepath's CPU
 *		backend.  Device-resident, uniform random sorted keys, median of
 *		--reps runs timed with CUDA events after a warm-up.  Every result is
 *		compared bit for bit with CUB's before it is timed.
 *
 *	bench_merge [--sizes 1,10,100] [--reps 7] [--tune] [--host]
 *
 * --sizes: millions of elements per side.  --tune: time every block shape in
 * the table below instead of the peers.  --host: add the single-thread host
 * merges (slow at 100M).
 */
#include <cub/device/device_merge.cuh>
#include <thrust/merge.h>

#include "../../cuda/kernels/merge/launch.cuh"
#include "bench_common.cuh"

static double
gbps(int64_t n, size_t sz, float ms)
{
	return 2.0 * n * sz / (ms * 1e6);
}

/*
 * One benchmark case: m sorted random keys a side on the device, CUB's merge
 * of them as the reference, and buffers for the merges under test.
 */
template <typename T>
struct merge_case
{
	int64_t		m;
	T		   *a,
			   *b,
			   *out,
			   *ref;
	int64_t    *parts;
	int		   *flag;
	void	   *cub_tmp = nullptr;
	size_t		cub_tmp_bytes = 0;

	explicit merge_case(int64_t m_) : m(m_), a(sorted_keys<T>(m_, 1)), b(sorted_keys<T>(m_, 2))
	{
		CK(cudaMalloc(&out, 2 * m * sizeof(T)));
		CK(cudaMalloc(&ref, 2 * m * sizeof(T)));
		/* room for the smallest tile any shape here uses */
		CK(cudaMalloc(&parts, mp::merge_parts_bytes<T, 32, 3>(m, m)));
		CK(cudaMalloc(&flag, sizeof(int)));
		CK(cudaMemset(flag, 0, sizeof(int)));
		CK(cub::DeviceMerge::MergeKeys(cub_tmp, cub_tmp_bytes, a, m, b, m, ref, mp::order<T>()));
		CK(cudaMalloc(&cub_tmp, cub_tmp_bytes));
		run_cub();
		CK(cudaDeviceSynchronize());
	}
	~merge_case()
	{
		CK(cudaFree(a));
		CK(cudaFree(b));
		CK(cudaFree(out));
		CK(cudaFree(ref));
		CK(cudaFree(parts));
		CK(cudaFree(flag));
		CK(cudaFree(cub_tmp));
	}
	void run_cub()
	{
		CK(cub::DeviceMerge::MergeKeys(cub_tmp, cub_tmp_bytes, a, m, b, m, ref, mp::order<T>()));
	}
	/* out matches CUB bit for bit and the check raised nothing */
	bool out_is_right()
	{
		int			flag_host = 1;

		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(&flag_host, flag, sizeof(int), cudaMemcpyDeviceToHost));
		return same_bits(out, ref, 2 * m) && flag_host == 0;
	}
};

template <typename T>
static void
bench_type(int64_t m_, bool with_host)
{
	merge_case<T> c(m_);
	const int64_t m = c.m,
				n = 2 * m;
	const T    *a = c.a,
			   *b = c.b;
	T		   *out = c.out,
			   *ref = c.ref;
	int64_t    *parts = c.parts;
	int		   *flag = c.flag;

	auto		run_cub = [&] { c.run_cub(); };
	auto		run_mp = [&] {
		CK(mp::merge_any_on_device(a, m, b, m, out, parts, flag, 0));
	};
	auto		run_mp_nocheck = [&] {
		CK(mp::merge_any_on_device(a, m, b, m, out, parts, (int *) nullptr, 0));
	};
	auto		run_thrust = [&] {
		thrust::merge(thrust::device, a, a + m, b, b + m, out, mp::order<T>());
	};
	/* small merges run no partition kernel (their tiles search their own splits) */
	auto		run_part = [&] { CK(mp::merge_partition_on_device(a, m, b, m, parts, 0)); };
	auto		run_copy = [&] {
		CK(cudaMemcpyAsync(out, a, m * sizeof(T), cudaMemcpyDeviceToDevice));
		CK(cudaMemcpyAsync(out + m, b, m * sizeof(T), cudaMemcpyDeviceToDevice));
	};

	run_mp();
	bool		ok = c.out_is_right();

	run_thrust();
	ok = ok && same_bits(out, ref, n);

	float		t_mp = median_ms(run_mp);
	float		t_mp_nc = median_ms(run_mp_nocheck);
	float		t_cub = median_ms(run_cub);
	float		t_thrust = median_ms(run_thrust);
	float		t_copy = median_ms(run_copy);
	float		t_part = n <= MERGE_SMALL_UPTO ? -1 : median_ms(run_part);
	double		t_std = -1,
				t_cpu = -1;

	if (with_host)
	{
		std::vector<T> ha(m), hb(m), hout(n), href(n);

		CK(cudaMemcpy(ha.data(), a, m * sizeof(T), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hb.data(), b, m * sizeof(T), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(href.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
		t_std = host_ms([&] {
			std::merge(ha.begin(), ha.end(), hb.begin(), hb.end(), hout.begin(), mp::order<T>::lt);
		});
		t_cpu = host_ms([&] {
			mp_cpu_merge(mp_type_of<T>::v, ha.data(), m, hb.data(), m, hout.data(), true, nullptr);
		});
		ok = ok && memcmp(hout.data(), href.data(), n * sizeof(T)) == 0;
	}

	char		part[16] = "      -";

	if (t_part >= 0)
		snprintf(part, sizeof(part), "%7.3f", t_part);
	printf("| %-7s | %5lldM | %8.3f | %6.0f | %s | %8.3f | %8.3f | %6.0f | %8.3f | %7.3f | %5.2f | %5.0f%% |",
		   type_name<T>::get(), (long long) (m / 1000000), t_mp, gbps(n, sizeof(T), t_mp), part, t_mp_nc,
		   t_cub, gbps(n, sizeof(T), t_cub), t_thrust, t_copy, t_cub / t_mp,
		   100.0 * t_copy / t_mp);
	if (with_host)
		printf(" %8.1f | %8.1f |", t_std, t_cpu);
	printf(" %s\n", ok ? "same" : "MISMATCH");
	if (!ok)
		exit(1);
}

/* One block shape of the --tune sweep; NT * VT * sizeof(T) must fit 48 KB. */
template <typename T, int NT, int VT, int MINB = 1>
static void
tune_one(merge_case<T> &c, bool own_splits = false)
{
	auto		run = [&] {
		CK((mp::merge_on_device<T, NT, VT, MINB>(c.a, c.m, c.b, c.m, c.out, c.parts, c.flag, 0,
												 own_splits)));
	};

	run();
	bool		ok = c.out_is_right();
	float		t = median_ms(run);

	printf("| %-7s | %5lldM | %4d | %3d | %4d | %-6s | %8.3f | %6.0f | %s\n", type_name<T>::get(),
		   (long long) (c.m / 1000000), NT, VT, MINB, own_splits ? "own" : "part", t,
		   gbps(2 * c.m, sizeof(T), t), ok ? "same" : "MISMATCH");
}

template <typename T>
static void
tune_type(int64_t m)
{
	merge_case<T> c(m);
	float		t_cub = median_ms([&] { c.run_cub(); });

	printf("| %-7s | %5lldM |  cub |     |      |        | %8.3f | %6.0f |\n", type_name<T>::get(),
		   (long long) (m / 1000000), t_cub, gbps(2 * m, sizeof(T), t_cub));
	if constexpr (sizeof(T) == 4)
	{
		tune_one<T, 128, 15>(c);
		tune_one<T, 128, 15>(c, true);
		tune_one<T, 128, 23, 8>(c);
		tune_one<T, 128, 31, 7>(c);
		tune_one<T, 128, 39, 6>(c);
		tune_one<T, 128, 47, 5>(c);
		tune_one<T, 256, 23, 4>(c);
	}
	else
	{
		tune_one<T, 128, 11>(c);
		tune_one<T, 128, 19, 7>(c);
		tune_one<T, 128, 23, 6>(c);
		tune_one<T, 128, 23, 6>(c, true);
		tune_one<T, 128, 27, 5>(c);
		tune_one<T, 256, 11, 4>(c);
	}
}

int
main(int argc, char **argv)
{
	bench_options opt = parse_options(argc, argv);

	print_header("GB/s count bytes read + written (2 x n x size)");
	if (opt.tune)
	{
		printf("| type    | n/side |   NT |  VT | minB | splits |       ms |   GB/s |\n"
			   "|---------|--------|------|-----|------|--------|----------|--------|\n");
		for (int64_t s : opt.sizes)
		{
			tune_type<int32_t>(s * 1000000);
			tune_type<int64_t>(s * 1000000);
		}
		return 0;
	}
	printf("| type    | n/side |  mp ms   |  GB/s  | part ms | mp nochk |  cub ms  |  GB/s  | thrust ms | copy ms | cub/mp | copy/mp |%s\n",
		   opt.with_host ? " std::merge ms | cpu backend ms |" : "");
	printf("|---------|--------|----------|--------|---------|----------|----------|--------|-----------|---------|--------|---------|%s\n",
		   opt.with_host ? "----------|----------|" : "");
	for (int64_t s : opt.sizes)
	{
		bench_type<int32_t>(s * 1000000, opt.with_host);
		bench_type<int64_t>(s * 1000000, opt.with_host);
		bench_type<float>(s * 1000000, opt.with_host);
		bench_type<double>(s * 1000000, opt.with_host);
	}
	return 0;
}
