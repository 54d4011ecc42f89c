/*
 * bench_setops.cu
 *		Kernel-level multiset operations: mergepath's Balanced Path kernels
 *		beside thrust::set_intersection, set_union, set_difference and
 *		set_symmetric_difference, and a device-to-device copy for the
 *		bandwidth the hardware gives.  Device-resident sorted random keys,
 *		median of --reps runs timed with CUDA events after a warm-up.  Every
 *		result is compared bit for bit with Thrust's before it is timed.
 *
 *	bench_setops [--sizes 1,10,100] [--reps 7] [--tune] [--host] [--select]
 *
 * Two distributions: sparse overlap, keys in [0, 2n) (few duplicates), and
 * dense, keys in [0, n/4) (about four copies of each key a side).  GB/s
 * counts the bytes an operation must move: both inputs read, the result
 * written; "of copy" compares that rate with a device-to-device copy's.
 * --tune times the block shapes of the sweep below instead of the peers.
 * --host adds the CPU backend on the same inputs.  --select adds stream
 * compaction alone, cub::DeviceSelect::If over both inputs (one array of 2n)
 * keeping as many keys as the operation's result holds (picked by a hash of
 * the key): the same bytes read and written with no merging at all, the
 * floor under any one-pass set operation that compacts its result.
 */
#include <cub/device/device_select.cuh>
#include <thrust/set_operations.h>

#include "../../cuda/kernels/setops/launch.cuh"
#include "bench_common.cuh"

static const char *const op_names[] = {"intersect", "union", "except", "symdiff"};

/* Whether a key's hash (16 bits of it) is below lim: --select's choice. */
template <typename T>
struct hash_below
{
	uint32_t	lim;

	__device__ bool operator()(const T &x) const
	{
		uint64_t	bits = 0;

		memcpy(&bits, &x, sizeof(T));
		return ((uint32_t) ((bits * 0x9E3779B97F4A7C15ull) >> 40) & 0xffffu) < lim;
	}
};

/* m sorted keys a side in [0, range), and room for any result */
template <typename T>
struct setop_case
{
	int64_t		m;
	uint64_t	range;
	T		   *a,
			   *b,
			   *out,
			   *ref;
	int64_t    *parts,
			   *length;
	int		   *flag;
	void	   *state;
	size_t		state_bytes;
	float		copy_gbps;
	T		   *both = nullptr;		/* a then b, for --select */

	setop_case(int64_t m_, uint64_t range_)
		: m(m_), range(range_), a(sorted_keys<T>(m_, 1, range_)), b(sorted_keys<T>(m_, 2, range_))
	{
		size_t		parts_bytes;

		/* room for the smallest tile of the sweep */
		mp::setop_scratch_bytes<T, 128, 7>(m, m, &parts_bytes, &state_bytes);
		CK(cudaMalloc(&out, 2 * m * sizeof(T)));
		CK(cudaMalloc(&ref, 2 * m * sizeof(T)));
		CK(cudaMalloc(&parts, parts_bytes));
		CK(cudaMalloc(&state, state_bytes));
		CK(cudaMalloc(&length, sizeof(int64_t)));
		CK(cudaMalloc(&flag, sizeof(int)));
		CK(cudaMemset(flag, 0, sizeof(int)));

		/* a copy of both inputs: read 2m, write 2m elements */
		float		t = median_ms([&] {
			CK(cudaMemcpyAsync(out, a, m * sizeof(T), cudaMemcpyDeviceToDevice));
			CK(cudaMemcpyAsync(out + m, b, m * sizeof(T), cudaMemcpyDeviceToDevice));
		});

		copy_gbps = (float) (4.0 * m * sizeof(T) / (t * 1e6));
	}
	~setop_case()
	{
		CK(cudaFree(a));
		CK(cudaFree(b));
		CK(cudaFree(out));
		CK(cudaFree(ref));
		CK(cudaFree(parts));
		CK(cudaFree(state));
		CK(cudaFree(length));
		CK(cudaFree(flag));
		CK(cudaFree(both));
	}

	/*
	 * cub::DeviceSelect::If over a then b, keeping the keys whose hash falls
	 * below the share keep / 2m; returns the median ms, *kept the count.
	 */
	float run_select(int64_t keep, int64_t *kept)
	{
		const hash_below<T> pick = {(uint32_t) (65536.0 * (double) keep / (2.0 * m))};
		size_t		tmp_bytes = 0;
		void	   *tmp = nullptr;
		int		   *n_out = nullptr;
		int			n_host = 0;

		if (both == nullptr)
		{
			CK(cudaMalloc(&both, 2 * m * sizeof(T)));
			CK(cudaMemcpy(both, a, m * sizeof(T), cudaMemcpyDeviceToDevice));
			CK(cudaMemcpy(both + m, b, m * sizeof(T), cudaMemcpyDeviceToDevice));
		}
		CK(cudaMalloc(&n_out, sizeof(int)));
		CK(cub::DeviceSelect::If(tmp, tmp_bytes, both, out, n_out, (int) (2 * m), pick));
		CK(cudaMalloc(&tmp, tmp_bytes));

		float		t = median_ms([&] {
			CK(cub::DeviceSelect::If(tmp, tmp_bytes, both, out, n_out, (int) (2 * m), pick));
		});

		CK(cudaMemcpy(&n_host, n_out, sizeof(int), cudaMemcpyDeviceToHost));
		*kept = n_host;
		CK(cudaFree(tmp));
		CK(cudaFree(n_out));
		return t;
	}

	template <mp_setop OP, int NT = mp::setop_shape<T>::NT, int VT = mp::setop_shape<T>::VT,
			  int STAGES = mp::setop_shape<T>::STAGES, int BLOCKS = mp::setop_shape<T>::BLOCKS>
	void run_mp()
	{
		CK((mp::setop_on_device<OP, T, NT, VT, mp::setop_shape<T>::MINB, STAGES, BLOCKS>(
			a, m, b, m, out, 2 * m, length, parts, state, state_bytes, flag, 0)));
	}

	/* Thrust's result into ref; returns its length */
	template <mp_setop OP>
	int64_t run_thrust()
	{
		auto		pol = thrust::device;

		switch (OP)
		{
			case MP_INTERSECT:
				return thrust::set_intersection(pol, a, a + m, b, b + m, ref) - ref;
			case MP_UNION:
				return thrust::set_union(pol, a, a + m, b, b + m, ref) - ref;
			case MP_EXCEPT:
				return thrust::set_difference(pol, a, a + m, b, b + m, ref) - ref;
			case MP_SYMDIFF:
				return thrust::set_symmetric_difference(pol, a, a + m, b, b + m, ref) - ref;
		}
		return -1;
	}

	/* out matches ref for its n elements and the check raised nothing */
	bool out_is_right(int64_t n)
	{
		int64_t		len = -1;
		int			flag_host = 1;

		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(&len, length, sizeof(len), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(&flag_host, flag, sizeof(int), cudaMemcpyDeviceToHost));
		return len == n && flag_host == 0 && same_bits(out, ref, n);
	}
};

static const char *
dist_name(bool dense)
{
	return dense ? "[0,n/4)" : "[0,2n)";
}

template <typename T, mp_setop OP>
static void
bench_one(setop_case<T> &c, bool dense, bool with_host, bool with_select)
{
	int64_t		nref = c.template run_thrust<OP>();

	c.template run_mp<OP>();
	bool		ok = c.out_is_right(nref);
	float		t_mp = median_ms([&] { c.template run_mp<OP>(); });
	float		t_thrust = median_ms([&] { c.template run_thrust<OP>(); });
	double		bytes = (2.0 * c.m + nref) * sizeof(T);
	double		gbps_mp = bytes / (t_mp * 1e6);
	double		t_cpu = -1;

	if (with_host)
	{
		std::vector<T> ha(c.m), hb(c.m), hout(2 * c.m), href(nref);
		int64_t		nout = -1;

		CK(cudaMemcpy(ha.data(), c.a, c.m * sizeof(T), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hb.data(), c.b, c.m * sizeof(T), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(href.data(), c.ref, nref * sizeof(T), cudaMemcpyDeviceToHost));
		t_cpu = host_ms([&] {
			mp_cpu_setop(OP, mp_type_of<T>::v, ha.data(), c.m, hb.data(), c.m, hout.data(),
						 &nout, true, nullptr);
		});
		ok = ok && nout == nref && memcmp(hout.data(), href.data(), nref * sizeof(T)) == 0;
	}

	printf("| %-7s | %5lldM | %-7s | %-9s | %7.2fM | %7.3f | %6.0f | %5.0f%% | %9.3f | %5.2f |",
		   type_name<T>::get(), (long long) (c.m / 1000000), dist_name(dense), op_names[OP],
		   nref / 1e6, t_mp, gbps_mp, 100.0 * gbps_mp / c.copy_gbps, t_thrust, t_thrust / t_mp);
	if (with_host)
		printf(" %8.1f |", t_cpu);
	if (with_select)
	{
		int64_t		kept = 0;
		float		t_sel = c.run_select(nref, &kept);
		double		gbps_sel = (2.0 * c.m + kept) * sizeof(T) / (t_sel * 1e6);

		printf(" %7.2fM | %8.3f | %5.0f%% |", kept / 1e6, t_sel, 100.0 * gbps_sel / c.copy_gbps);
	}
	printf(" %s\n", ok ? "same" : "MISMATCH");
	if (!ok)
		exit(1);
}

template <typename T>
static void
bench_type(int64_t m, bool with_host, bool with_select)
{
	for (int dense = 0; dense < 2; dense++)
	{
		setop_case<T> c(m, dense ? (uint64_t) (m / 4) : (uint64_t) (2 * m));

		bench_one<T, MP_INTERSECT>(c, dense, with_host, with_select);
		bench_one<T, MP_UNION>(c, dense, with_host, with_select);
		bench_one<T, MP_EXCEPT>(c, dense, with_host, with_select);
		bench_one<T, MP_SYMDIFF>(c, dense, with_host, with_select);
	}
}

/* One block shape, number of stages and blocks an SM of the --tune sweep. */
template <typename T, mp_setop OP, int NT, int VT, int STAGES, int BLOCKS>
static void
tune_one(setop_case<T> &c, int64_t nref)
{
	auto		run = [&] { c.template run_mp<OP, NT, VT, STAGES, BLOCKS>(); };

	run();
	bool		ok = c.out_is_right(nref);
	float		t = median_ms(run);
	double		gbps = (2.0 * c.m + nref) * sizeof(T) / (t * 1e6);

	printf("| %-7s | %5lldM | %-9s | %4d | %3d | %6d | %6d | %7.3f | %6.0f | %5.0f%% | %s\n",
		   type_name<T>::get(), (long long) (c.m / 1000000), op_names[OP], NT, VT, STAGES, BLOCKS,
		   t, gbps, 100.0 * gbps / c.copy_gbps, ok ? "same" : "MISMATCH");
}

template <typename T, mp_setop OP>
static void
tune_op(setop_case<T> &c)
{
	int64_t		nref = c.template run_thrust<OP>();

	if constexpr (sizeof(T) == 4)
	{
		tune_one<T, OP, 128, 31, 3, 4>(c, nref);
		tune_one<T, OP, 128, 39, 2, 4>(c, nref);
		tune_one<T, OP, 256, 23, 3, 2>(c, nref);
		tune_one<T, OP, 256, 27, 3, 2>(c, nref);
		tune_one<T, OP, 256, 31, 3, 2>(c, nref);
		tune_one<T, OP, 256, 39, 2, 2>(c, nref);
		tune_one<T, OP, 256, 35, 2, 2>(c, nref);
	}
	else
	{
		tune_one<T, OP, 128, 23, 3, 3>(c, nref);
		tune_one<T, OP, 128, 19, 3, 3>(c, nref);
		tune_one<T, OP, 256, 15, 3, 2>(c, nref);
		tune_one<T, OP, 256, 19, 2, 2>(c, nref);
		tune_one<T, OP, 256, 21, 2, 2>(c, nref);
	}
}

template <typename T>
static void
tune_type(int64_t m)
{
	setop_case<T> c(m, (uint64_t) (2 * m));
	float		t_part = median_ms([&] {
		constexpr int NT = mp::setop_shape<T>::NT, VT = mp::setop_shape<T>::VT;
		int64_t		parts = mp::setop_num_tiles<T>(m, m) + 1;
		mp::setop_chain chain = {(unsigned long long *) c.state};

		mp::setop_partition<T, NT, VT><<<(unsigned) ((parts + 127) / 128), 128>>>
			(c.a, m, c.b, m, c.parts, parts, parts > MERGE_BRACKET_FROM, chain);
	});

	printf("| %-7s | %5lldM | partition | %4d | %3d |        |        | %7.3f |        |         |\n",
		   type_name<T>::get(), (long long) (m / 1000000), mp::setop_shape<T>::NT,
		   mp::setop_shape<T>::VT, t_part);
	tune_op<T, MP_INTERSECT>(c);
	tune_op<T, MP_UNION>(c);
}

int
main(int argc, char **argv)
{
	bench_options opt = parse_options(argc, argv);

	print_header("GB/s count both inputs read and the result written");
	if (opt.tune)
	{
		printf("| type    | n/side | op        |   NT |  VT | stages | blocks |      ms |   GB/s | of copy |\n"
			   "|---------|--------|-----------|------|-----|--------|--------|---------|--------|---------|\n");
		for (int64_t s : opt.sizes)
		{
			tune_type<int32_t>(s * 1000000);
			tune_type<float>(s * 1000000);
			tune_type<int64_t>(s * 1000000);
		}
		return 0;
	}
	printf("| type    | n/side | keys    | op        |   result |   mp ms |   GB/s | of copy | thrust ms | thrust/mp |%s%s\n",
		   opt.with_host ? " cpu backend ms |" : "",
		   opt.with_select ? " selected | select ms | of copy |" : "");
	printf("|---------|--------|---------|-----------|----------|---------|--------|---------|-----------|-----------|%s%s\n",
		   opt.with_host ? "----------|" : "", opt.with_select ? "----------|-----------|---------|" : "");
	for (int64_t s : opt.sizes)
	{
		bench_type<int32_t>(s * 1000000, opt.with_host, opt.with_select);
		bench_type<float>(s * 1000000, opt.with_host, opt.with_select);
		bench_type<int64_t>(s * 1000000, opt.with_host, opt.with_select);
		bench_type<double>(s * 1000000, opt.with_host, opt.with_select);
	}
	return 0;
}
