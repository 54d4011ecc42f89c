/*
 * gpu_store.cu
 *		mp_gpu_store_*: rows kept in device memory across calls, sorted once
 *		by their keys, and fetched back in that order a chunk at a time (the
 *		executor's sort beyond its memory, src/nodes/rowsort.c).
 *
 * The store's memory is its own (cudaMalloc), apart from the pool that
 * every call reuses: the tuples back to back, each row's offset, and each
 * word of the keys in an array of its own, all grown by doubling.  The sort
 * and the fetches use the pool for their scratch, as any call does.
 */
#include <cub/device/device_scan.cuh>
#include <new>

#include "gpu_job.cuh"
#include "../kernels/sort/launch.cuh"
#include "../kernels/sort/store.cuh"

using namespace mp;

struct mp_gpu_store
{
	uint64_t	epoch;			/* gpu_context_epoch() at creation */
	int			nwords;
	int			word_bytes;
	int		   *bits;			/* of each word */
	size_t		max_bytes;
	char	   *tuples;
	size_t		bytes;
	size_t		bytes_cap;
	uint64_t   *offsets;		/* rows_cap + 1 */
	char	  **words;			/* nwords arrays of rows_cap words */
	int64_t		rows;
	int64_t		rows_cap;
	uint32_t   *perm;			/* the rows in key order, once sorted */
	bool		sorted;
};

namespace
{

size_t
held_bytes(const mp_gpu_store *s, int64_t rows_cap, size_t bytes_cap)
{
	return bytes_cap + (size_t) (rows_cap + 1) * sizeof(uint64_t) +
		(size_t) rows_cap * s->nwords * s->word_bytes;
}

/* What the sort of rows rows will take besides the store (sort_as): the
 * keys' copy and second buffer, the rows' two and the permutation. */
size_t
sort_bytes(const mp_gpu_store *s, int64_t rows)
{
	size_t		wb = s->word_bytes;

	return (size_t) rows * (s->nwords * wb + (s->nwords > 1 ? 2 : 1) * wb +
							3 * sizeof(uint32_t)) + ((size_t) 64 << 20);
}

mp_status
check_alive(const mp_gpu_store *s)
{
	if (s->epoch != gpu_context_epoch())
		return gpu_cannot("the GPU's context was lost, and the rows kept on it with it");
	return MP_OK;
}

/* *p (used bytes of it kept) grown to cap bytes. */
mp_status
grow(char **p, size_t used, size_t cap)
{
	char	   *grown = nullptr;

	MP_CUDA(cudaMalloc(&grown, cap));
	if (*p && used > 0)
	{
		cudaError_t err = cudaMemcpyAsync(grown, *p, used, cudaMemcpyDeviceToDevice,
										  gpu_stream());

		if (!err)
			err = cudaStreamSynchronize(gpu_stream());
		if (err)
		{
			cudaFree(grown);
			return cuda_failure(err, "growing the row store");
		}
	}
	if (*p)
		cudaFree(*p);
	*p = grown;
	return MP_OK;
}

mp_status
reserve(mp_gpu_store *s, int64_t more_rows, size_t more_bytes)
{
	int64_t		need_rows = s->rows + more_rows;
	size_t		need_bytes = s->bytes + more_bytes;
	int64_t		rows_cap = s->rows_cap;
	size_t		bytes_cap = s->bytes_cap;

	if (s->sorted)
		return gpu_cannot("rows appended to a sorted row store");
	if (need_rows <= s->rows_cap && need_bytes <= s->bytes_cap)
		return MP_OK;
	if (need_rows > INT32_MAX)
		return gpu_cannot("the GPU keeps at most 2^31 - 1 rows of a sort");
	/* double what must grow; within the limit, at least what is needed */
	if (need_rows > rows_cap)
		rows_cap = need_rows > 2 * rows_cap ? need_rows : 2 * rows_cap;
	if (need_bytes > bytes_cap)
		bytes_cap = need_bytes > 2 * bytes_cap ? need_bytes : 2 * bytes_cap;
	if (held_bytes(s, rows_cap, bytes_cap) > s->max_bytes)
	{
		rows_cap = need_rows > s->rows_cap ? need_rows : s->rows_cap;
		bytes_cap = need_bytes > s->bytes_cap ? need_bytes : s->bytes_cap;
		if (held_bytes(s, rows_cap, bytes_cap) > s->max_bytes)
		{
			gpu_cannot("the sort's rows outgrew the device memory it may hold");
			return MP_OUT_OF_MEMORY;
		}
	}

	/* the growth, and room left for the sort of them all */
	size_t		free_bytes = 0,
				total_bytes = 0;
	size_t		growth = held_bytes(s, rows_cap, bytes_cap) -
		held_bytes(s, s->rows_cap, s->bytes_cap);

	MP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
	if (free_bytes < growth + sort_bytes(s, need_rows))
	{
		gpu_cannot("the sort's rows outgrew the device memory that is free");
		return MP_OUT_OF_MEMORY;
	}
	if (bytes_cap > s->bytes_cap)
	{
		if (mp_status st = grow(&s->tuples, s->bytes, bytes_cap))
			return st;
		s->bytes_cap = bytes_cap;
	}
	if (rows_cap > s->rows_cap)
	{
		if (mp_status st = grow((char **) &s->offsets, s->rows * sizeof(uint64_t),
								(rows_cap + 1) * sizeof(uint64_t)))
			return st;
		for (int w = 0; w < s->nwords; w++)
			if (mp_status st = grow(&s->words[w], s->rows * s->word_bytes,
									rows_cap * s->word_bytes))
				return st;
		s->rows_cap = rows_cap;
	}
	return MP_OK;
}

template <typename K>
mp_status
sort_as(mp_gpu_store *s, mp_poll_fn poll, mp_gpu_timing *timing)
{
	int			n = (int) s->rows;
	size_t		temp_bytes = 0;
	uint64_t	end = s->bytes;

	MP_CUDA(sort_rows_temp_bytes<K>(n, &temp_bytes));
	/* kept from a try that failed after it, so that a retry leaks nothing */
	if (s->perm == nullptr)
		MP_CUDA(cudaMalloc(&s->perm, (size_t) n * sizeof(uint32_t)));

	gpu_job<int> job(poll, timing);
	piece<K>	words = job.room<K>((size_t) n * s->nwords);
	piece<K>	gathered = job.room<K>(s->nwords > 1 ? n : 0);
	piece<K>	alt = job.room<K>(n);
	piece<uint32_t> rows = job.room<uint32_t>(n);
	piece<uint32_t> rows_alt = job.room<uint32_t>(n);
	piece<char> temp = job.room<char>(temp_bytes);

	if (mp_status st = job.open())
		return st;
	if (mp_status st = job.run("row store sort kernels", [&] {
		cudaStream_t stream = gpu_stream();
		uint32_t   *sorted = nullptr;
		cudaError_t err = cudaMemcpyAsync(s->offsets + n, &end, sizeof(end),
										  cudaMemcpyHostToDevice, stream);

		for (int w = 0; !err && w < s->nwords; w++)
			err = cudaMemcpyAsync(job[words] + (size_t) w * n, s->words[w],
								  (size_t) n * sizeof(K), cudaMemcpyDeviceToDevice, stream);
		if (!err)
			err = sort_rows_on_device<K>(job[words], s->nwords, s->bits, n, job[gathered],
										 job[alt], job[rows], job[rows_alt], &sorted,
										 job[temp], temp_bytes, stream);
		if (!err)
			err = cudaMemcpyAsync(s->perm, sorted, (size_t) n * sizeof(uint32_t),
								  cudaMemcpyDeviceToDevice, stream);
		return err;
	}))
		return st;
	/* the keys are sorted by: no longer needed */
	for (int w = 0; w < s->nwords; w++)
	{
		cudaFree(s->words[w]);
		s->words[w] = nullptr;
	}
	s->sorted = true;
	return MP_OK;
}

}								/* namespace */

extern "C" mp_status
mp_gpu_store_create(int nwords, int word_bytes, const int *bits, size_t max_bytes,
					mp_gpu_store **store)
{
	mp_gpu_store *s;

	*store = nullptr;
	if (mp_status st = mp_gpu_init())
		return st;
	if (nwords < 1 || (word_bytes != 4 && word_bytes != 8) || (word_bytes == 4 && nwords != 1))
		return gpu_cannot("a row store's keys are one 4-byte word or 8-byte words");
	s = new (std::nothrow) mp_gpu_store();
	if (s == nullptr)
		return gpu_cannot("out of host memory for a row store");
	s->bits = new (std::nothrow) int[nwords];
	s->words = new (std::nothrow) char *[nwords]();
	if (s->bits == nullptr || s->words == nullptr)
	{
		mp_gpu_store_free(s);
		return gpu_cannot("out of host memory for a row store");
	}
	s->epoch = gpu_context_epoch();
	s->nwords = nwords;
	s->word_bytes = word_bytes;
	for (int w = 0; w < nwords; w++)
		s->bits[w] = bits[w];
	s->max_bytes = max_bytes;
	*store = s;
	return MP_OK;
}

extern "C" mp_status
mp_gpu_store_reserve(mp_gpu_store *s, int64_t rows, size_t bytes)
{
	if (mp_status st = check_alive(s))
		return st;
	return reserve(s, rows, bytes);
}

extern "C" mp_status
mp_gpu_store_append(mp_gpu_store *s, const void *tuples, size_t bytes,
					const uint64_t *offsets, const void *keys, int64_t key_stride,
					int64_t rows, mp_poll_fn poll, mp_gpu_timing *timing)
{
	host_to_device *copies;
	mp_status	st;

	if ((st = check_alive(s)) || (st = reserve(s, rows, bytes)))
		return st;
	if (rows == 0)
		return MP_OK;
	copies = new (std::nothrow) host_to_device[2 + s->nwords];
	if (copies == nullptr)
		return gpu_cannot("out of host memory for a row store");
	copies[0] = {s->tuples + s->bytes, tuples, bytes};
	copies[1] = {s->offsets + s->rows, offsets, (size_t) rows * sizeof(uint64_t)};
	for (int w = 0; w < s->nwords; w++)
		copies[2 + w] = {s->words[w] + (size_t) s->rows * s->word_bytes,
						 (const char *) keys + (size_t) w * key_stride * s->word_bytes,
						 (size_t) rows * s->word_bytes};
	st = stage_in(copies, 2 + s->nwords, poll, timing);
	delete[] copies;
	if (st == MP_OK)
	{
		s->rows += rows;
		s->bytes += bytes;
	}
	return st;
}

extern "C" mp_status
mp_gpu_store_sort(mp_gpu_store *s, mp_poll_fn poll, mp_gpu_timing *timing)
{
	if (mp_status st = check_alive(s))
		return st;
	if (s->sorted)
		return MP_OK;
	if (s->rows == 0)
	{
		s->sorted = true;
		return MP_OK;
	}
	if (s->word_bytes == 4)
		return sort_as<uint32_t>(s, poll, timing);
	return sort_as<uint64_t>(s, poll, timing);
}

extern "C" mp_status
mp_gpu_store_fetch(mp_gpu_store *s, int64_t first, int64_t max_rows, size_t max_bytes,
				   void *host, int64_t *rows, size_t *bytes, mp_poll_fn poll,
				   mp_gpu_timing *timing)
{
	int64_t		m = s->rows - first < max_rows ? s->rows - first : max_rows;
	size_t		temp_bytes = 0;

	*rows = 0;
	*bytes = 0;
	if (mp_status st = check_alive(s))
		return st;
	if (!s->sorted)
		return gpu_cannot("rows fetched from a row store before its sort");
	if (m <= 0)
		return MP_OK;
	MP_CUDA(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, (const uint64_t *) nullptr,
										  (uint64_t *) nullptr, m));

	gpu_job<store_fetch_status> job(poll, timing);
	piece<uint64_t> lens = job.room<uint64_t>(m);
	piece<uint64_t> ends = job.room<uint64_t>(m);
	piece<char> out = job.room<char>(max_bytes);
	piece<char> temp = job.room<char>(temp_bytes);

	if (mp_status st = job.open())
		return st;
	if (mp_status st = job.run("row store fetch kernels", [&] {
		cudaStream_t stream = gpu_stream();
		cudaError_t err;

		store_lengths<<<pass_blocks(m), SCAN_THREADS, 0, stream>>>(s->perm, s->offsets, first, m,
																	job[lens]);
		if ((err = cudaGetLastError()))
			return err;
		if ((err = cub::DeviceScan::InclusiveSum(job[temp], temp_bytes, job[lens], job[ends], m,
												 stream)))
			return err;
		store_fitting<<<1, 1, 0, stream>>>(job[ends], m, max_bytes, job.device_status());
		if ((err = cudaGetLastError()))
			return err;
		store_copy<<<pass_blocks(m * 8), SCAN_THREADS, 0, stream>>>(
			s->perm, s->offsets, s->tuples, first, job[ends], job.device_status(), job[out]);
		return cudaGetLastError();
	}))
		return st;
	*rows = job.status().rows;
	*bytes = job.status().bytes;
	if (*rows == 0)
		return MP_OK;
	return job.stage_out((char *) host, job[out], *bytes);
}

extern "C" int64_t
mp_gpu_store_rows(const mp_gpu_store *s)
{
	return s->rows;
}

extern "C" size_t
mp_gpu_store_device_bytes(const mp_gpu_store *s)
{
	return held_bytes(s, s->rows_cap, s->bytes_cap) + (s->perm ? s->rows * sizeof(uint32_t) : 0);
}

extern "C" void
mp_gpu_store_free(mp_gpu_store *s)
{
	if (s == nullptr)
		return;
	if (s->epoch == gpu_context_epoch())
	{
		/* errors are ignored: this runs also on a failure's way out */
		cudaFree(s->tuples);
		cudaFree(s->offsets);
		for (int w = 0; s->words && w < s->nwords; w++)
			cudaFree(s->words[w]);
		cudaFree(s->perm);
		cudaGetLastError();
	}
	delete[] s->bits;
	delete[] s->words;
	delete s;
}
