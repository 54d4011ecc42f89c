/*
 * gpu_hog.cu
 *		Another process that takes the GPU's memory, for the exhaustion
 *		checks of test/gpu-tests.sh: allocates all but LEAVE_MB of the free
 *		device memory, says how much it holds, and keeps it until it is
 *		killed or SECONDS pass.
 *
 *	test/gpu_hog LEAVE_MB SECONDS
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	if (argc != 3)
	{
		fprintf(stderr, "usage: %s LEAVE_MB SECONDS\n", argv[0]);
		return 2;
	}
	size_t		leave = (size_t) atoll(argv[1]) << 20;
	int			seconds = atoi(argv[2]);
	size_t		free_bytes = 0,
				total = 0,
				held = 0;
	std::vector<void *> blocks;

	if (cudaFree(nullptr) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
	{
		fprintf(stderr, "gpu_hog: no GPU\n");
		return 1;
	}
	/* in 256 MB blocks, then smaller ones, down to what is to be left */
	for (size_t block = (size_t) 256 << 20; block >= ((size_t) 1 << 20); block /= 2)
		for (;;)
		{
			void	   *p;

			cudaMemGetInfo(&free_bytes, &total);
			if (free_bytes < leave + block || cudaMalloc(&p, block) != cudaSuccess)
			{
				cudaGetLastError();
				break;
			}
			blocks.push_back(p);
			held += block;
		}
	cudaMemGetInfo(&free_bytes, &total);
	printf("gpu_hog: holding %zu MB, %zu MB left free\n", held >> 20, free_bytes >> 20);
	fflush(stdout);
	sleep(seconds);
	return 0;
}
