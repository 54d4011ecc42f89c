/*
 * gpu_job.cuh
 *		One call's work on the device, in the one sequence every operation of
 *		the CUDA backend follows:
 *
 *		1. carve: the call's pieces of device memory, each input named with
 *		   the host array it is uploaded from (input), the rest as room;
 *		2. open: one pool allocation for all of them, and the inputs through
 *		   the staging ring;
 *		3. run: the kernels, between a cleared status block (the flags and
 *		   counts the kernels report) and its copy back to pinned memory;
 *		4. stage out: the results back into the caller's host memory.
 *
 * A call that learns what else it needs only from a run (the join, from its
 * count) carves more and grows the pool, keeping what is in it.  Every step
 * returns an mp_status and leaves the stream idle on failure.
 */
#ifndef GPU_JOB_CUH
#define GPU_JOB_CUH

#include "gpu_context.cuh"

namespace mp
{

/* A piece of the pool: an aligned offset, typed. */
template <typename T>
struct piece
{
	size_t		at;
};

/* The start of every entry point: the call's timings cleared, the GPU set
 * up (once a process). */
inline mp_status
gpu_call_begin(mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	return mp_gpu_init();
}

template <typename Status>
class gpu_job
{
public:
	gpu_job(mp_poll_fn poll, mp_gpu_timing *timing) : poll_(poll), timing_(timing) {}

	/* 1. a piece uploaded from host[0 .. count) at open */
	template <typename T>
	piece<T> input(const T *host, size_t count)
	{
		piece<T>	p = room<T>(count);

		copies_[ncopies_++] = {(void *) p.at, host, count * sizeof(T)};
		return p;
	}

	/* 1. a piece of room for count T's */
	template <typename T>
	piece<T> room(size_t count)
	{
		piece<T>	p = {offset_};

		offset_ = (offset_ + count * sizeof(T) + 255) & ~(size_t) 255;
		return p;
	}

	/* 2. the pool, and the inputs in it */
	mp_status open()
	{
		status_ = room<Status>(1);
		if (mp_status st = gpu_pool(offset_, (void **) &pool_))
			return st;
		opened_ = offset_;
		for (int c = 0; c < ncopies_; c++)
			copies_[c].dev = pool_ + (size_t) copies_[c].dev;
		return stage_in(copies_, ncopies_, poll_, timing_);
	}

	/* 2 again: room for the pieces carved since open, keeping the rest */
	mp_status grow()
	{
		mp_status	st = gpu_pool(offset_, (void **) &pool_, opened_);

		opened_ = offset_;
		return st;
	}

	template <typename T>
	T		   *operator[](piece<T> p) const
	{
		return (T *) (pool_ + p.at);
	}

	Status	   *device_status() const
	{
		return (*this)[status_];
	}

	/*
	 * 3. launch() enqueues the kernels on gpu_stream() and returns the
	 * launch's error; their time is added to the call's timings, and the
	 * status block is in status() after.
	 */
	template <typename Launch>
	mp_status run(const char *what, Launch &&launch)
	{
		cudaStream_t stream = gpu_stream();
		cudaError_t err = cudaMemsetAsync(device_status(), 0, sizeof(Status), stream);
		float		ms = 0;

		if (!err)
			err = cudaEventRecord(gpu_kernel_start(), stream);
		if (!err)
			err = launch();
		if (!err)
			err = cudaEventRecord(gpu_kernel_stop(), stream);
		if (!err)
			err = cudaMemcpyAsync(gpu_pinned_scratch(), device_status(), sizeof(Status),
								  cudaMemcpyDeviceToHost, stream);
		if (!err)
			err = cudaStreamSynchronize(stream);
		if (!err)
			err = cudaEventElapsedTime(&ms, gpu_kernel_start(), gpu_kernel_stop());
		timing_->kernel_ms += ms;
		return err ? cuda_failure(err, what) : MP_OK;
	}

	/* What the last run's kernels reported. */
	const Status &status() const
	{
		return *(const Status *) gpu_pinned_scratch();
	}

	/* 4. dev[0 .. count) into host */
	template <typename T>
	mp_status stage_out(T *host, const T *dev, size_t count)
	{
		return mp::stage_out(host, dev, count * sizeof(T), poll_, timing_);
	}

private:
	mp_poll_fn	poll_;
	mp_gpu_timing *timing_;
	char	   *pool_ = nullptr;
	size_t		offset_ = 0;
	size_t		opened_ = 0;
	piece<Status> status_ = {0};
	host_to_device copies_[4];
	int			ncopies_ = 0;
};

}								/* namespace mp */

#endif							/* GPU_JOB_CUH */
