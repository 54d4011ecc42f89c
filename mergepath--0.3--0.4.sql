-- mergepath 0.3 -> 0.4: sorting, unique and the sorting aggregates
\echo Use "ALTER EXTENSION mergepath UPDATE TO '0.4'" to load this file. \quit

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

-- The aggregates' support functions: one state (internal) for both.
CREATE FUNCTION mergepath_agg_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_agg_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'mergepath_agg_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION mergepath_agg_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_agg_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_transfn(internal, int4) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(internal, int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(int4) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(internal, int4[]) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(internal, int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(int4[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(int4[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

CREATE FUNCTION mergepath_sort_agg_transfn(internal, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(internal, int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(int8) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(internal, int8[]) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(internal, int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(int8[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(int8[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

CREATE FUNCTION mergepath_sort_agg_transfn(internal, float4) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(internal, float4) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(float4) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(internal, float4[]) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(internal, float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(float4[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(float4[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';

CREATE FUNCTION mergepath_sort_agg_transfn(internal, float8) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_sort_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_agg_finalfn(internal, float8) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(float8) (
	SFUNC = mergepath_sort_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8) IS
'the non-NULL inputs as an ascending array (NULL when there are none)';

CREATE FUNCTION mergepath_merge_agg_transfn(internal, float8[]) RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_merge_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_merge_agg_finalfn(internal, float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_merge_agg(float8[]) (
	SFUNC = mergepath_merge_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_merge_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_merge_agg(float8[]) IS
'all elements of the (ascending) input arrays merged into one ascending array';
