-- mergepath 0.2 -> 0.3: sorted search and the joins built on it
\echo Use "ALTER EXTENSION mergepath UPDATE TO '0.3'" to load this file. \quit

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

CREATE FUNCTION gpu_join(a int4[], b int4[], OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(int4[], int4[]) IS
'inner equi-join: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], ordered by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a int8[], b int8[], OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(int8[], int8[]) IS
'inner equi-join: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], ordered by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a float4[], b float4[], OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(float4[], float4[]) IS
'inner equi-join: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], ordered by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a float8[], b float8[], OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(float8[], float8[]) IS
'inner equi-join: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], ordered by a_pos then b_pos; both arrays ascending';
