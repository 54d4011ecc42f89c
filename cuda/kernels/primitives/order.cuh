/*
 * order.cuh
 *		mp_order.h's keys as a trait over the element type, for templates.
 */
#ifndef ORDER_CUH
#define ORDER_CUH

#include <cmath>
#include <cstdint>

#include "../../../src/api/mp_order.h"

/*
 * For the pure functions that a tile's threads run (searches, steps): on
 * the device, and on the host where test/test_tiles.cu runs a tile's
 * threads one by one against the reference.
 */
#define MP_HOST_DEVICE __host__ __device__ __forceinline__

/* #pragma unroll in such functions: the host's compiler does not know it */
#ifdef __CUDA_ARCH__
#define MP_UNROLL _Pragma("unroll")
#else
#define MP_UNROLL
#endif

namespace mp
{

template <typename T>
struct order;

/* lowest() and highest(): values that no key is below, or above */
#define MP_ORDER(T, K, KEYFN, LTFN, LOWEST, HIGHEST) \
template <> \
struct order<T> \
{ \
	typedef K key_type; \
	static __host__ __device__ __forceinline__ T lowest() { return LOWEST; } \
	static __host__ __device__ __forceinline__ T highest() { return HIGHEST; } \
	static __host__ __device__ __forceinline__ K key(T x) { return KEYFN(x); } \
	static __host__ __device__ __forceinline__ bool lt(T x, T y) { return LTFN(x, y); } \
	__host__ __device__ __forceinline__ bool operator()(T x, T y) const { return lt(x, y); } \
}

MP_ORDER(int32_t, uint32_t, mp_key_int4, mp_lt_int4, INT32_MIN, INT32_MAX);
MP_ORDER(int64_t, uint64_t, mp_key_int8, mp_lt_int8, INT64_MIN, INT64_MAX);
MP_ORDER(float, uint32_t, mp_key_float4, mp_lt_float4, -HUGE_VALF, NAN);
MP_ORDER(double, uint64_t, mp_key_float8, mp_lt_float8, -HUGE_VAL, (double) NAN);

#undef MP_ORDER

/* Unsigned keys already folded (the aggregates' sort keys): plain order. */
template <typename U>
struct unsigned_order
{
	typedef U key_type;
	static __host__ __device__ __forceinline__ U lowest() { return 0; }
	static __host__ __device__ __forceinline__ U highest() { return ~(U) 0; }
	static __host__ __device__ __forceinline__ U key(U x) { return x; }
	static __host__ __device__ __forceinline__ bool lt(U x, U y) { return x < y; }
	__host__ __device__ __forceinline__ bool operator()(U x, U y) const { return x < y; }
};

template <>
struct order<uint32_t> : unsigned_order<uint32_t> {};

template <>
struct order<uint64_t> : unsigned_order<uint64_t> {};

}								/* namespace mp */

#endif							/* ORDER_CUH */
