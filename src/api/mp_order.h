/*
 * mp_order.h
 *		PostgreSQL's btree order for the element types, as unsigned keys.
 *
 * Every comparison in both backends goes through these keys, so there is one
 * definition of the order: integers in their natural order; for floats, -0
 * equals +0, every NaN equals every other NaN and sorts after +Infinity.
 * A key is only ever compared; the values themselves are what is copied, so
 * results keep their bits (a -0 stays -0, a NaN keeps its payload).
 *
 * The merge loops compare elements with mp_lt_*, the same order written as
 * native comparisons, which costs fewer instructions than two keys; the C
 * tests check that the two agree on every pair of special values.
 *
 * The executor's sort node orders rows by several such keys at once: each
 * becomes a field of one composite unsigned key (mp_key_value,
 * mp_key_null_bit), so that comparing composite keys is comparing rows.
 *
 * Usable from C and from CUDA device code.
 */
#ifndef MP_ORDER_H
#define MP_ORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define MP_HD static __host__ __device__ __forceinline__
#else
#define MP_HD static inline
#endif

MP_HD uint32_t
mp_key_int2(int16_t x)
{
	return (uint16_t) x ^ UINT32_C(0x8000);
}

MP_HD uint32_t
mp_key_int4(int32_t x)
{
	return (uint32_t) x ^ UINT32_C(0x80000000);
}

MP_HD uint64_t
mp_key_int8(int64_t x)
{
	return (uint64_t) x ^ UINT64_C(0x8000000000000000);
}

MP_HD uint32_t
mp_key_float4(float x)
{
	uint32_t	u;

#ifdef __CUDA_ARCH__
	u = __float_as_uint(x);
#else
	memcpy(&u, &x, sizeof(u));
#endif
	if (x != x)
		return UINT32_MAX;
	if (x == 0.0f)
		return UINT32_C(0x80000000);
	return u ^ ((u >> 31) ? UINT32_MAX : UINT32_C(0x80000000));
}

MP_HD uint64_t
mp_key_float8(double x)
{
	uint64_t	u;

#ifdef __CUDA_ARCH__
	u = (uint64_t) __double_as_longlong(x);
#else
	memcpy(&u, &x, sizeof(u));
#endif
	if (x != x)
		return UINT64_MAX;
	if (x == 0.0)
		return UINT64_C(0x8000000000000000);
	return u ^ ((u >> 63) ? UINT64_MAX : UINT64_C(0x8000000000000000));
}

/*
 * A sort key of `bits` bits as its field of a composite key: inverted for a
 * descending order, and 0 for a NULL, which its null bit sets apart.
 */
MP_HD uint64_t
mp_key_value(uint64_t key, int bits, bool desc, bool isnull)
{
	uint64_t	mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	if (isnull)
		return 0;
	return desc ? ~key & mask : key;
}

/*
 * The bit just above a nullable key's value field: NULLs first or last
 * whatever the direction, as PostgreSQL's NULLS FIRST / NULLS LAST.
 */
MP_HD uint64_t
mp_key_null_bit(bool isnull, bool nulls_first)
{
	return isnull != nulls_first;
}

/*
 * Ors the field v, `bits` wide, into a composite key at bit lo: acc[0] holds
 * bits 0-63 (the least significant), acc[1] bits 64-127, and so on.
 */
MP_HD void
mp_key_put(uint64_t *acc, int lo, int bits, uint64_t v)
{
	int			w = lo / 64,
				s = lo % 64;

	acc[w] |= v << s;
	if (s + bits > 64)
		acc[w + 1] |= v >> (64 - s);
}

/* The field of `bits` bits at bit lo of a composite key (mp_key_put's). */
MP_HD uint64_t
mp_key_get(const uint64_t *acc, int lo, int bits)
{
	int			w = lo / 64,
				s = lo % 64;
	uint64_t	v = acc[w] >> s;

	if (s + bits > 64)
		v |= acc[w + 1] << (64 - s);
	return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

MP_HD bool
mp_lt_int4(int32_t x, int32_t y)
{
	return x < y;
}

MP_HD bool
mp_lt_int8(int64_t x, int64_t y)
{
	return x < y;
}

/*
 * x is below y when y is not at or below x natively (true as well when
 * either is a NaN; the native order already holds -0 = +0), unless x is a
 * NaN.  Two comparisons: a NaN is only greater than every non-NaN.
 */
MP_HD bool
mp_lt_float4(float x, float y)
{
	return !(y <= x) & (x == x);
}

MP_HD bool
mp_lt_float8(double x, double y)
{
	return !(y <= x) & (x == x);
}

#endif							/* MP_ORDER_H */
