-- mergepath 0.5: the whole SQL API of the current version.  A new database
-- gets it from this file; databases made by an earlier version get the same
-- objects through the upgrade scripts (mergepath--0.1--0.2.sql and on).
\echo Use "CREATE EXTENSION mergepath" to load this file. \quit

-- Merge Path: two ascending arrays merged into one

CREATE FUNCTION gpu_merge(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(int4[], int4[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION gpu_merge(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(int8[], int8[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION gpu_merge(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(float4[], float4[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION gpu_merge(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(float8[], float8[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

-- Balanced Path: the multiset operations (0.2)

CREATE FUNCTION gpu_intersect(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(int4[], int4[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_intersect(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(int8[], int8[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_intersect(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(float4[], float4[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_intersect(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(float8[], float8[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(int4[], int4[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(int8[], int8[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(float4[], float4[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(float8[], float8[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_except(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(int4[], int4[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_except(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(int8[], int8[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_except(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(float4[], float4[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_except(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(float8[], float8[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_symdiff(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(int4[], int4[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

CREATE FUNCTION gpu_symdiff(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(int8[], int8[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

CREATE FUNCTION gpu_symdiff(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(float4[], float4[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

CREATE FUNCTION gpu_symdiff(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(float8[], float8[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

-- Sorted search, and the joins built on it (0.3)

CREATE FUNCTION gpu_lower_bound(haystack int4[], needles int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_lower_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_lower_bound(int4[], int4[]) IS
'for each needle, the number of haystack elements below it; both arrays ascending';

CREATE FUNCTION gpu_lower_bound(haystack int8[], needles int8[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_lower_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_lower_bound(int8[], int8[]) IS
'for each needle, the number of haystack elements below it; both arrays ascending';

CREATE FUNCTION gpu_lower_bound(haystack float4[], needles float4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_lower_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_lower_bound(float4[], float4[]) IS
'for each needle, the number of haystack elements below it; both arrays ascending';

CREATE FUNCTION gpu_lower_bound(haystack float8[], needles float8[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_lower_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_lower_bound(float8[], float8[]) IS
'for each needle, the number of haystack elements below it; both arrays ascending';

CREATE FUNCTION gpu_upper_bound(haystack int4[], needles int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_upper_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_upper_bound(int4[], int4[]) IS
'for each needle, the number of haystack elements not above it; both arrays ascending';

CREATE FUNCTION gpu_upper_bound(haystack int8[], needles int8[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_upper_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_upper_bound(int8[], int8[]) IS
'for each needle, the number of haystack elements not above it; both arrays ascending';

CREATE FUNCTION gpu_upper_bound(haystack float4[], needles float4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_upper_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_upper_bound(float4[], float4[]) IS
'for each needle, the number of haystack elements not above it; both arrays ascending';

CREATE FUNCTION gpu_upper_bound(haystack float8[], needles float8[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_upper_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_upper_bound(float8[], float8[]) IS
'for each needle, the number of haystack elements not above it; both arrays ascending';

CREATE FUNCTION gpu_count(haystack int4[], needles int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_count(int4[], int4[]) IS
'for each needle, the number of haystack elements equal to it; both arrays ascending';

CREATE FUNCTION gpu_count(haystack int8[], needles int8[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_count(int8[], int8[]) IS
'for each needle, the number of haystack elements equal to it; both arrays ascending';

CREATE FUNCTION gpu_count(haystack float4[], needles float4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_count(float4[], float4[]) IS
'for each needle, the number of haystack elements equal to it; both arrays ascending';

CREATE FUNCTION gpu_count(haystack float8[], needles float8[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_count(float8[], float8[]) IS
'for each needle, the number of haystack elements equal to it; both arrays ascending';

CREATE FUNCTION gpu_semijoin(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_semijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_semijoin(int4[], int4[]) IS
'the elements of a that occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_semijoin(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_semijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_semijoin(int8[], int8[]) IS
'the elements of a that occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_semijoin(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_semijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_semijoin(float4[], float4[]) IS
'the elements of a that occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_semijoin(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_semijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_semijoin(float8[], float8[]) IS
'the elements of a that occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_antijoin(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_antijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_antijoin(int4[], int4[]) IS
'the elements of a that do not occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_antijoin(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_antijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_antijoin(int8[], int8[]) IS
'the elements of a that do not occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_antijoin(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_antijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_antijoin(float4[], float4[]) IS
'the elements of a that do not occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_antijoin(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_antijoin'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_antijoin(float8[], float8[]) IS
'the elements of a that do not occur in b, in a''s order and multiplicity; both arrays ascending';

CREATE FUNCTION gpu_join(a int4[], b int4[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(int4[], int4[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a int8[], b int8[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(int8[], int8[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a float4[], b float4[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(float4[], float4[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a float8[], b float8[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(float8[], float8[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

-- Sorting, unique, and the sorting aggregates (0.4)

CREATE FUNCTION gpu_sort(a int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_sort'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_sort(int4[]) IS
'the elements of a in ascending order, stable (equal keys keep their order; NaNs last)';

CREATE FUNCTION gpu_sort(a int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_sort'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_sort(int8[]) IS
'the elements of a in ascending order, stable (equal keys keep their order; NaNs last)';

CREATE FUNCTION gpu_sort(a float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_sort'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_sort(float4[]) IS
'the elements of a in ascending order, stable (equal keys keep their order; NaNs last)';

CREATE FUNCTION gpu_sort(a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_sort'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_sort(float8[]) IS
'the elements of a in ascending order, stable (equal keys keep their order; NaNs last)';

CREATE FUNCTION gpu_unique(a int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_unique'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_unique(int4[]) IS
'the ascending array a with repeated keys dropped, the first of each run kept';

CREATE FUNCTION gpu_unique(a int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_unique'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_unique(int8[]) IS
'the ascending array a with repeated keys dropped, the first of each run kept';

CREATE FUNCTION gpu_unique(a float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_unique'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_unique(float4[]) IS
'the ascending array a with repeated keys dropped, the first of each run kept';

CREATE FUNCTION gpu_unique(a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_unique'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_unique(float8[]) IS
'the ascending array a with repeated keys dropped, the first of each run kept';

-- The aggregates' support functions.  The state is a bytea (held as an
-- expanded object while the aggregate runs): a plain type lets Citus split
-- the aggregates into partial states on its workers, combined on the
-- coordinator, which it refuses for internal ones.
CREATE FUNCTION mergepath_agg_combine(bytea, bytea) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_transfn(bytea, int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(bytea, int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(int4) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(bytea, int4[]) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(bytea, int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(int4[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(int4[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

CREATE FUNCTION mergepath_sort_agg_transfn(bytea, int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(bytea, int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(int8) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(bytea, int8[]) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(bytea, int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(int8[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(int8[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

CREATE FUNCTION mergepath_sort_agg_transfn(bytea, float4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(bytea, float4) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(float4) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(bytea, float4[]) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(bytea, float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(float4[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(float4[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

CREATE FUNCTION mergepath_sort_agg_transfn(bytea, float8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(bytea, float8) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(float8) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(bytea, float8[]) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(bytea, float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(float8[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(float8[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

-- What this server process sees, and which backend ran its last call

CREATE FUNCTION mergepath_info() RETURNS jsonb
AS 'MODULE_PATHNAME', 'mergepath_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION mergepath_info() IS
'settings, the GPU, GPU slots, and which backend ran this session''s last call, with per-phase timings';

-- Sorting with payloads (0.5)

-- gpu_sort_agg(value, key): support functions for every pair of types
-- (declared with their types, since Citus calls them without the call's
-- expression)

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int4, int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int4, int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int4, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int4, int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int4, int8) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int4, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int4, float4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int4, float4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int4, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int4, float8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int4, float8) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int4, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int8, int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int8, int4) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int8, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int8, int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int8, int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int8, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int8, float4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int8, float4) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int8, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, int8, float8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, int8, float8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int8, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float4, int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float4, int4) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float4, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float4, int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float4, int8) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float4, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float4, float4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float4, float4) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float4, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float4, float8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float4, float8) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float4, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float8, int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float8, int4) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float8, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float8, int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float8, int8) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float8, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float8, float4) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float8, float4) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float8, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE FUNCTION mergepath_sort_by_key_agg_transfn(bytea, float8, float8) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(bytea, float8, float8) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value float8, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = bytea,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';
