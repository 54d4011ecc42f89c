-- gpu_merge: results, on whichever backend mergepath.device picks.
CREATE EXTENSION mergepath;

SELECT gpu_merge('{1,3,5}'::int4[], '{2,3,4}'::int4[]);
SELECT gpu_merge('{-9223372036854775808,0}'::int8[], '{-1,9223372036854775807}'::int8[]);
SELECT gpu_merge('{}'::int8[], '{}'::int8[]);
SELECT gpu_merge('{}'::int4[], '{1,2}'::int4[]), gpu_merge('{7}'::int4[], '{}'::int4[]);

-- any lower bound in, lower bound 1 out
SELECT r, array_lower(r, 1)
FROM (SELECT gpu_merge('[5:7]={1,2,3}'::int4[], '[-2:-1]={0,9}'::int4[]) AS r) s;

-- floats: -0 = +0, NaN after Infinity, ties keep a's elements first, bits kept
SELECT gpu_merge('{-Infinity,-0,0,NaN}'::float8[], '{0,-0,Infinity,NaN}'::float8[]);
SELECT gpu_merge('{-0,-0,1.5}'::float4[], '{0,1.5,NaN}'::float4[]);

-- implicit array coercion picks the int8 variant
SELECT gpu_merge('{1,4}'::int4[], '{2,3}'::int8[]);

-- Against an independent reference: PostgreSQL's own ORDER BY, ties broken by
-- argument and position; compared as text so that -0 and 0 differ.
CREATE FUNCTION ref_merge(a anyarray, b anyarray) RETURNS anyarray
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(x ORDER BY x, src, ord), a[1:0])
  FROM (SELECT x, 0 AS src, ord FROM unnest(a) WITH ORDINALITY AS u(x, ord)
        UNION ALL
        SELECT x, 1, ord FROM unnest(b) WITH ORDINALITY AS u(x, ord)) s
$$;

SELECT setseed(0.5);

-- sizes at the tile edges of each element size and around them, tiny key
-- ranges (runs of equal keys across tiles), wide ranges, one side empty
CREATE TEMP TABLE shapes AS
SELECT row_number() OVER () AS id, na, nb, range
FROM (VALUES (1, 1, 10), (0, 5, 10), (5, 0, 10), (4991, 1, 8), (4992, 4992, 8),
             (4993, 4991, 1000000), (2943, 1, 8), (2944, 2944, 3), (2945, 5887, 1000000),
             (9985, 9983, 2), (5000, 7, 100), (7, 5000, 100), (20000, 20001, 8),
             (30000, 1, 1000000000), (100000, 100000, 1000)) v(na, nb, range);

CREATE TEMP TABLE cases AS
SELECT id,
       ARRAY(SELECT (random() * range)::int8 - range / 2 FROM generate_series(1, na) ORDER BY 1) AS a,
       ARRAY(SELECT (random() * range)::int8 - range / 2 FROM generate_series(1, nb) ORDER BY 1) AS b
FROM shapes;

-- floats with specials mixed in
CREATE TEMP TABLE fcases AS
SELECT id,
       ARRAY(SELECT x FROM (SELECT CASE WHEN random() < 0.1
                   THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-40'])[1 + (random() * 5)::int]::float8
                   ELSE round((random() * range)::numeric, 1)::float8 END AS x
                 FROM generate_series(1, na)) s ORDER BY 1) AS a,
       ARRAY(SELECT x FROM (SELECT CASE WHEN random() < 0.1
                   THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-40'])[1 + (random() * 5)::int]::float8
                   ELSE round((random() * range)::numeric, 1)::float8 END AS x
                 FROM generate_series(1, nb)) s ORDER BY 1) AS b
FROM shapes;

SELECT 'int4' AS type, count(*) AS cases,
       count(*) FILTER (WHERE gpu_merge(a::int4[], b::int4[])::text = ref_merge(a::int4[], b::int4[])::text) AS same
FROM cases
UNION ALL
SELECT 'int8', count(*), count(*) FILTER (WHERE gpu_merge(a, b)::text = ref_merge(a, b)::text)
FROM cases
UNION ALL
SELECT 'float4', count(*),
       count(*) FILTER (WHERE gpu_merge(a::float4[], b::float4[])::text = ref_merge(a::float4[], b::float4[])::text)
FROM fcases
UNION ALL
SELECT 'float8', count(*), count(*) FILTER (WHERE gpu_merge(a, b)::text = ref_merge(a, b)::text)
FROM fcases;

-- one large pair, past the default GPU threshold
SELECT gpu_merge(a, b) = ref_merge(a, b) AS same, cardinality(gpu_merge(a, b))
FROM (SELECT ARRAY(SELECT (i * 7) % 1000003 FROM generate_series(1, 700000) i ORDER BY 1) AS a,
             ARRAY(SELECT (i * 11) % 999983 FROM generate_series(1, 700000) i ORDER BY 1) AS b) s;

-- STRICT: a NULL argument gives NULL
SELECT gpu_merge(NULL::int4[], '{1}') IS NULL AS is_null;
