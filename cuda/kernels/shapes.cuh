/*
 * shapes.cuh
 *		Every kernel's block shape, in one place: threads a block (NT),
 *		elements a thread (VT), and the blocks an SM the registers must allow
 *		(MINB) or the pipelined set operations keep resident.
 *
 * The build targets sm_80 and sm_90 (Makefile), and both take these shapes.
 * sm_90's are the sweeps' best (`bench_merge --tune`, `bench_setops
 * --tune`; test/bench/NOTES.md, "Block shapes"): on the H200, the set
 * operations' (no better shape at 100M) and the small merge's; on the H100
 * both sweeps again, each current shape the best or within 0.5% of it at
 * 10M and 100M (the merge's large shape was swept on the H100 only).  The
 * search's shape has not been swept; `bench_search --tune` confirms on
 * the H100 where its sparse path takes over
 * (SEARCH_SPARSE_RATIO).  sm_80 has not been tuned: it runs sm_90's shapes,
 * without the bulk copies and dependent launches that are sm_90's alone.
 */
#ifndef MP_SHAPES_CUH
#define MP_SHAPES_CUH

#include "../../src/api/mp_measured.h"

namespace mp
{

/* The merge's tile per element size (test/bench/NOTES.md, "gpu_merge
 * kernel"). */
template <typename T>
struct merge_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 39 : 23;
	static constexpr int MINB = 6;	/* blocks per SM the registers must allow */
};

/*
 * Up to MERGE_SMALL_UPTO elements in all (MP_MERGE_SMALL_UPTO,
 * api/mp_measured.h), 4-byte keys merge in shorter tiles (H200: 1M a side
 * in 0.016-0.017 ms at 128 x 15 against 0.018-0.020 at 128 x 39): a merge
 * that small fills the GPU in one wave either way, and each tile's serial
 * steps are what its latency is made of.
 */
template <typename T>
struct merge_small_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 15 : merge_shape<T>::VT;
	static constexpr int MINB = sizeof(T) == 4 ? 1 : merge_shape<T>::MINB;
};

#define MERGE_SMALL_UPTO MP_MERGE_SMALL_UPTO

/* The set operations' tile per element size (test/bench/NOTES.md, "Set
 * operations"). */
template <typename T>
struct setop_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 31 : 23;
	static constexpr int MINB = 0;	/* blocks per SM the registers must allow; 0: no
									 * bound */
	static constexpr int STAGES = 3;	/* of the pipelined kernel */
	static constexpr int BLOCKS = sizeof(T) == 4 ? 4 : 3;	/* of the pipelined kernel, an SM */
};

/* Block shape per element size (test/bench/NOTES.md, "Sorted search and
 * joins of arrays"). */
template <typename T>
struct search_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 31 : 23;
	static constexpr int MINB = 6;
};

/* The k-way merge's tile (test/bench/NOTES.md, "The k-way merge of sorted
 * runs"). */
template <typename T>
struct kway_shape
{
	static constexpr int NT = 256;
	/* odd, so that the threads' strided stores into shared memory keep off
	 * each other's banks */
	static constexpr int VT = sizeof(T) == 4 ? 7 : 5;
	static constexpr int NV = NT * VT;
};

/*
 * The batches' tiles (batch/tile.cuh): the merge's NT x VT outputs a tile,
 * the filters' and searches' VT consecutive elements a thread.  Not swept:
 * the small merge's shape for 4-byte keys, 11 a thread for 8-byte ones.
 */
template <typename T>
struct batch_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 15 : 11;
	static constexpr int NV = NT * VT;
};

/* The batched set operations' tiles (batch/setops.cuh; test/bench/NOTES.md,
 * "The batched set operations in slots"): NT slots of VT places, at most
 * NT pairs a tile. */
template <typename T>
struct batch_setop_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 31 : 19;
	static constexpr int NV = NT * VT;
	/* blocks an SM at the least, as many as the tile's registers gave it
	 * before its steps became functions of their own (56 a thread for
	 * 4-byte keys, 64 for 8-byte): left alone, ptxas now takes 64 and 72 */
	static constexpr int MIN_BLOCKS = sizeof(T) == 4 ? 9 : 8;
	/* of the pipelined kernel (sm_90): stages, and blocks an SM the
	 * registers must allow (shared memory allows as many) */
	static constexpr int STAGES = 3;
	static constexpr int BLOCKS = sizeof(T) == 4 ? 4 : 3;
};

}								/* namespace mp */

#endif							/* MP_SHAPES_CUH */
