-- mergepath 0.4 -> 0.5: gpu_join's outer kinds; the aggregates' state a bytea;
-- gpu_sort_agg(value, key)
\echo Use "ALTER EXTENSION mergepath UPDATE TO '0.5'" to load this file. \quit

-- gpu_join gains its kind: the two-argument form becomes the default
DROP FUNCTION gpu_join(int4[], int4[]);
DROP FUNCTION gpu_join(int8[], int8[]);
DROP FUNCTION gpu_join(float4[], float4[]);
DROP FUNCTION gpu_join(float8[], float8[]);

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


-- the aggregates' state becomes a bytea (a plain type, which Citus can split
-- into partial states): the aggregates and their support functions anew
DROP AGGREGATE gpu_sort_agg(int4);
DROP AGGREGATE gpu_merge_agg(int4[]);
DROP AGGREGATE gpu_sort_agg(int8);
DROP AGGREGATE gpu_merge_agg(int8[]);
DROP AGGREGATE gpu_sort_agg(float4);
DROP AGGREGATE gpu_merge_agg(float4[]);
DROP AGGREGATE gpu_sort_agg(float8);
DROP AGGREGATE gpu_merge_agg(float8[]);
DROP FUNCTION mergepath_sort_agg_transfn(internal, int4);
DROP FUNCTION mergepath_sort_agg_finalfn(internal, int4);
DROP FUNCTION mergepath_merge_agg_transfn(internal, int4[]);
DROP FUNCTION mergepath_merge_agg_finalfn(internal, int4[]);
DROP FUNCTION mergepath_sort_agg_transfn(internal, int8);
DROP FUNCTION mergepath_sort_agg_finalfn(internal, int8);
DROP FUNCTION mergepath_merge_agg_transfn(internal, int8[]);
DROP FUNCTION mergepath_merge_agg_finalfn(internal, int8[]);
DROP FUNCTION mergepath_sort_agg_transfn(internal, float4);
DROP FUNCTION mergepath_sort_agg_finalfn(internal, float4);
DROP FUNCTION mergepath_merge_agg_transfn(internal, float4[]);
DROP FUNCTION mergepath_merge_agg_finalfn(internal, float4[]);
DROP FUNCTION mergepath_sort_agg_transfn(internal, float8);
DROP FUNCTION mergepath_sort_agg_finalfn(internal, float8);
DROP FUNCTION mergepath_merge_agg_transfn(internal, float8[]);
DROP FUNCTION mergepath_merge_agg_finalfn(internal, float8[]);
DROP FUNCTION mergepath_agg_combine(internal, internal);
DROP FUNCTION mergepath_agg_serialize(internal);
DROP FUNCTION mergepath_agg_deserialize(bytea, internal);

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
