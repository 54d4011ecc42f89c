/*
 * gpu_context.cu
 *		Life cycle of the CUDA backend's per-process state.
 */
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "gpu_context.cuh"

namespace mp
{

namespace
{

struct gpu_state
{
	bool		ready;
	bool		unusable;		/* no driver or no device: stays so */
	cudaStream_t stream;
	cudaEvent_t slot_done[STAGE_SLOTS];
	cudaEvent_t kernel_start;
	cudaEvent_t kernel_stop;
	char	   *pinned;			/* STAGE_SLOTS * STAGE_CHUNK, then scratch */
	void	   *pool;
	size_t		pool_bytes;
	uint64_t	pool_generation;	/* changes whenever the pool's contents may */
	uint64_t	context_epoch;	/* changes whenever everything is released */
	char		error[512];
};

gpu_state state;

constexpr size_t SCRATCH_BYTES = 256;

void
release_all(bool reset_device)
{
	/* errors are ignored here: this runs after a failure or at exit */
	if (state.pool)
		cudaFree(state.pool);
	if (state.pinned)
		cudaFreeHost(state.pinned);
	for (int i = 0; i < STAGE_SLOTS; i++)
		if (state.slot_done[i])
			cudaEventDestroy(state.slot_done[i]);
	if (state.kernel_start)
		cudaEventDestroy(state.kernel_start);
	if (state.kernel_stop)
		cudaEventDestroy(state.kernel_stop);
	if (state.stream)
		cudaStreamDestroy(state.stream);
	if (reset_device && state.ready)
		cudaDeviceReset();
	state.pool = nullptr;
	state.pool_bytes = 0;
	state.pool_generation++;
	state.context_epoch++;
	state.pinned = nullptr;
	for (int i = 0; i < STAGE_SLOTS; i++)
		state.slot_done[i] = nullptr;
	state.kernel_start = nullptr;
	state.kernel_stop = nullptr;
	state.stream = nullptr;
	state.ready = false;
	cudaGetLastError();
}

__attribute__((format(printf, 1, 2))) void
set_error(const char *fmt, ...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(state.error, sizeof(state.error), fmt, args);
	va_end(args);
}

}								/* namespace */

mp_status
cuda_failure(cudaError_t err, const char *what)
{
	set_error("%s (in %s)", cudaGetErrorString(err), what);
	switch (err)
	{
		case cudaErrorMemoryAllocation:
			cudaGetLastError();
			if (state.stream)
				cudaStreamSynchronize(state.stream);
			return MP_OUT_OF_MEMORY;
		case cudaErrorInsufficientDriver:
		case cudaErrorNoDevice:
		case cudaErrorInvalidDevice:
		case cudaErrorDevicesUnavailable:
		case cudaErrorSystemDriverMismatch:
		case cudaErrorCompatNotSupportedOnDevice:
		case cudaErrorNoKernelImageForDevice:
			release_all(false);
			state.unusable = true;
			return MP_NO_DEVICE;
		default:
			/* a kernel fault or a lost device may have poisoned the context:
			 * start from a clean one at the next call */
			release_all(true);
			return MP_DEVICE_ERROR;
	}
}

mp_status
gpu_cannot(const char *why)
{
	set_error("%s", why);
	return MP_DEVICE_ERROR;
}

cudaStream_t
gpu_stream()
{
	return state.stream;
}

cudaEvent_t
gpu_kernel_start()
{
	return state.kernel_start;
}

cudaEvent_t
gpu_kernel_stop()
{
	return state.kernel_stop;
}

void *
gpu_pinned_scratch()
{
	return state.pinned + STAGE_SLOTS * STAGE_CHUNK;
}

mp_status
gpu_pool(size_t bytes, void **ptr, size_t keep)
{
	state.pool_generation++;
	if (bytes > state.pool_bytes)
	{
		/* grow by at least half, rounded to 64 MB, so that a series of
		 * growing calls reallocates few times */
		size_t		want = bytes + bytes / 2;
		void	   *grown = nullptr;

		want = (want + ((size_t) 64 << 20) - 1) & ~(((size_t) 64 << 20) - 1);
		if (state.pool && keep == 0)
		{
			/* nothing to carry over: give the memory back first */
			cudaFree(state.pool);
			state.pool = nullptr;
			state.pool_bytes = 0;
		}
		if (cudaMalloc(&grown, want) != cudaSuccess)
		{
			cudaGetLastError();
			/* the headroom is a wish: retry with the exact size */
			want = bytes;
			if (cudaError_t err = cudaMalloc(&grown, want))
			{
				cudaGetLastError();
				return cuda_failure(err, "cudaMalloc(pool)");
			}
		}
		if (state.pool)
		{
			cudaError_t err = cudaMemcpyAsync(grown, state.pool, keep, cudaMemcpyDeviceToDevice,
											  state.stream);

			if (!err)
				err = cudaStreamSynchronize(state.stream);
			cudaFree(state.pool);
			state.pool = grown;
			state.pool_bytes = want;
			if (err)
				return cuda_failure(err, "carrying the pool over");
		}
		state.pool = grown;
		state.pool_bytes = want;
	}
	*ptr = state.pool;
	return MP_OK;
}

uint64_t
gpu_pool_generation()
{
	return state.pool_generation;
}

uint64_t
gpu_context_epoch()
{
	return state.ready ? state.context_epoch + 1 : 0;
}

double
clock_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

/*
 * The host's side of the staging ring, dst[0..len) = src[0..len), on up to
 * `threads` threads (mp_cpu_parallel): one core's memcpy, not the DMA, is
 * what bounds the ring.  Parts of at least COPY_PART bytes, so that
 * starting a thread stays small beside its copy.  Only transfers of
 * THREADED_FROM bytes or more take mergepath.cpu_threads threads: below that
 * the copies are a few milliseconds, and many sessions making such calls at
 * once would only crowd the processors (both measured: api/mp_measured.h).
 */
constexpr int64_t COPY_PART = MP_COPY_PART;
constexpr size_t THREADED_FROM = (size_t) MP_THREADED_COPY_FROM;

struct host_copy_job
{
	char	   *dst;
	const char *src;
};

static void
host_copy_part(void *ctx, int64_t lo, int64_t hi)
{
	const host_copy_job *job = (const host_copy_job *) ctx;

	memcpy(job->dst + lo, job->src + lo, (size_t) (hi - lo));
}

static void
host_copy(void *dst, const void *src, size_t len, int threads)
{
	host_copy_job job = {(char *) dst, (const char *) src};

	mp_cpu_parallel(threads, (int64_t) len, COPY_PART, host_copy_part, &job);
}

/* The threads for the host copies of a transfer of `bytes` in all. */
static int
copy_threads(size_t bytes)
{
	return bytes >= THREADED_FROM ? mp_cpu_threads : 1;
}

/*
 * Chunk c goes through slot c % STAGE_SLOTS.  Before the host overwrites a
 * slot it waits for the DMA that last read it.
 */
mp_status
stage_in(const host_to_device *copies, int ncopies, mp_poll_fn poll,
		 mp_gpu_timing *timing)
{
	double		t0 = clock_ms();
	int			chunk = 0;
	size_t		total = 0;

	for (int c = 0; c < ncopies; c++)
		total += copies[c].bytes;

	const int	threads = copy_threads(total);

	for (int c = 0; c < ncopies; c++)
	{
		for (size_t off = 0; off < copies[c].bytes; off += STAGE_CHUNK, chunk++)
		{
			size_t		len = copies[c].bytes - off < STAGE_CHUNK ? copies[c].bytes - off : STAGE_CHUNK;
			int			slot = chunk % STAGE_SLOTS;
			char	   *pin = state.pinned + slot * STAGE_CHUNK;

			if (poll && poll())
			{
				MP_CUDA(cudaStreamSynchronize(state.stream));
				return MP_CANCELLED;
			}
			MP_CUDA(cudaEventSynchronize(state.slot_done[slot]));
			host_copy(pin, (const char *) copies[c].host + off, len, threads);
			MP_CUDA(cudaMemcpyAsync((char *) copies[c].dev + off, pin, len,
									cudaMemcpyHostToDevice, state.stream));
			MP_CUDA(cudaEventRecord(state.slot_done[slot], state.stream));
			timing->bytes_h2d += (int64_t) len;
		}
	}
	MP_CUDA(cudaStreamSynchronize(state.stream));
	timing->chunks += chunk;
	timing->h2d_ms += clock_ms() - t0;
	return MP_OK;
}

/*
 * The DMA engine keeps STAGE_SLOTS chunks ahead of the host: once the host
 * has copied chunk c out of its slot, chunk c + STAGE_SLOTS goes into it.
 */
mp_status
stage_out(void *host, const void *dev, size_t bytes, mp_poll_fn poll,
		  mp_gpu_timing *timing)
{
	double		t0 = clock_ms();
	size_t		nchunks = (bytes + STAGE_CHUNK - 1) / STAGE_CHUNK;
	const int	threads = copy_threads(bytes);

	auto		enqueue = [&](size_t c) -> mp_status {
		size_t		off = c * STAGE_CHUNK;
		size_t		len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
		int			slot = (int) (c % STAGE_SLOTS);

		MP_CUDA(cudaMemcpyAsync(state.pinned + slot * STAGE_CHUNK, (const char *) dev + off,
								len, cudaMemcpyDeviceToHost, state.stream));
		MP_CUDA(cudaEventRecord(state.slot_done[slot], state.stream));
		return MP_OK;
	};

	for (size_t c = 0; c < nchunks && c < (size_t) STAGE_SLOTS; c++)
		if (mp_status st = enqueue(c))
			return st;
	for (size_t c = 0; c < nchunks; c++)
	{
		size_t		off = c * STAGE_CHUNK;
		size_t		len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
		int			slot = (int) (c % STAGE_SLOTS);

		if (poll && poll())
		{
			MP_CUDA(cudaStreamSynchronize(state.stream));
			return MP_CANCELLED;
		}
		MP_CUDA(cudaEventSynchronize(state.slot_done[slot]));
		host_copy((char *) host + off, state.pinned + slot * STAGE_CHUNK, len, threads);
		timing->bytes_d2h += (int64_t) len;
		if (c + STAGE_SLOTS < nchunks)
			if (mp_status st = enqueue(c + STAGE_SLOTS))
				return st;
	}
	timing->chunks += (int) nchunks;
	timing->d2h_ms += clock_ms() - t0;
	return MP_OK;
}

}								/* namespace mp */

using namespace mp;

/* The GPU this process sets up: mergepath.gpu_device. */
static int	device_ordinal = 0;

extern "C" void
mp_gpu_set_device(int ordinal)
{
	device_ordinal = ordinal;
}

/* MP_OK when the chosen device is visible, else why not in the error. */
static mp_status
check_device()
{
	int			count = 0;

	MP_CUDA(cudaGetDeviceCount(&count));
	if (count == 0)
	{
		set_error("no CUDA device is visible");
		return MP_NO_DEVICE;
	}
	if (device_ordinal >= count)
	{
		set_error("mergepath.gpu_device is %d, but %d CUDA device%s visible", device_ordinal,
				  count, count == 1 ? " is" : "s are");
		return MP_NO_DEVICE;
	}
	return MP_OK;
}

static mp_status
create_state()
{
	if (mp_status st = check_device())
	{
		state.unusable = true;
		return st;
	}
	MP_CUDA(cudaSetDevice(device_ordinal));
	MP_CUDA(cudaFree(nullptr));	/* creates the context now, not mid-call */
	MP_CUDA(cudaStreamCreateWithFlags(&state.stream, cudaStreamNonBlocking));
	for (int i = 0; i < STAGE_SLOTS; i++)
		MP_CUDA(cudaEventCreateWithFlags(&state.slot_done[i], cudaEventDisableTiming));
	MP_CUDA(cudaEventCreate(&state.kernel_start));
	MP_CUDA(cudaEventCreate(&state.kernel_stop));
	MP_CUDA(cudaHostAlloc((void **) &state.pinned, STAGE_SLOTS * STAGE_CHUNK + SCRATCH_BYTES,
						  cudaHostAllocDefault));
	return MP_OK;
}

extern "C" mp_status
mp_gpu_init(void)
{
	mp_status	st;

	if (state.ready)
		return MP_OK;
	if (state.unusable)
		return MP_NO_DEVICE;
	st = create_state();
	if (st == MP_OK)
		state.ready = true;
	else
		release_all(false);
	return st;
}

extern "C" void
mp_gpu_shutdown(void)
{
	if (state.ready)
		release_all(false);
}

extern "C" void
mp_gpu_trim(size_t keep_bytes)
{
	if (!state.ready || state.pool_bytes <= keep_bytes)
		return;
	/* every call has synchronized its stream before returning */
	cudaFree(state.pool);
	cudaGetLastError();
	state.pool = nullptr;
	state.pool_bytes = 0;
	state.pool_generation++;
}

extern "C" void
mp_gpu_release(void)
{
	if (state.ready)
		release_all(true);
}

/* The device's properties and the CUDA versions: no context needed. */
static mp_status
device_properties(int ordinal, mp_gpu_device *dev)
{
	cudaDeviceProp prop;

	dev->ordinal = ordinal;
	MP_CUDA(cudaGetDeviceProperties(&prop, ordinal));
	MP_CUDA(cudaRuntimeGetVersion(&dev->runtime_version));
	MP_CUDA(cudaDriverGetVersion(&dev->driver_version));
	snprintf(dev->name, sizeof(dev->name), "%s", prop.name);
	dev->compute_major = prop.major;
	dev->compute_minor = prop.minor;
	dev->multiprocessors = prop.multiProcessorCount;
	dev->memory_total = (int64_t) prop.totalGlobalMem;
	dev->memory_free = -1;
	return MP_OK;
}

extern "C" mp_status
mp_gpu_describe(mp_gpu_device *dev)
{
	size_t		free_bytes = 0,
				total_bytes = 0;
	int			ordinal = 0;

	memset(dev, 0, sizeof(*dev));
	if (mp_status st = mp_gpu_init())
		return st;
	MP_CUDA(cudaGetDevice(&ordinal));
	if (mp_status st = device_properties(ordinal, dev))
		return st;
	MP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
	dev->memory_total = (int64_t) total_bytes;
	dev->memory_free = (int64_t) free_bytes;
	dev->pool_bytes = (int64_t) state.pool_bytes;
	dev->pinned_bytes = state.pinned ? (int64_t) (STAGE_SLOTS * STAGE_CHUNK + SCRATCH_BYTES) : 0;
	return MP_OK;
}

/*
 * What mp_gpu_describe says, without setting anything up: the device's
 * properties need no context, its free memory does (-1 here, unless this
 * process holds the GPU).
 */
extern "C" mp_status
mp_gpu_probe(mp_gpu_device *dev)
{
	if (state.ready)
		return mp_gpu_describe(dev);
	memset(dev, 0, sizeof(*dev));
	if (state.unusable)
		return MP_NO_DEVICE;
	if (mp_status st = check_device())
		return st;
	/* the device create_state sets up */
	return device_properties(device_ordinal, dev);
}

extern "C" const char *
mp_gpu_last_error(void)
{
	return state.error;
}
