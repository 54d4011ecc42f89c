-- gpu_lower_bound, gpu_upper_bound, gpu_count, gpu_semijoin, gpu_antijoin,
-- gpu_join: results and refused inputs, on whichever backend
-- mergepath.device picks.
SELECT gpu_lower_bound('{1,2,2,3,5}'::int4[], '{0,2,3,4,6}') AS lower,
       gpu_upper_bound('{1,2,2,3,5}'::int4[], '{0,2,3,4,6}') AS upper,
       gpu_count('{1,2,2,3,5}'::int4[], '{0,2,2,3,4,6}') AS count;
SELECT gpu_semijoin('{1,2,2,3,5}'::int8[], '{2,5,7}') AS semi,
       gpu_antijoin('{1,2,2,3,5}'::int8[], '{2,5,7}') AS anti;
SELECT * FROM gpu_join('{1,2,2,3,5}'::int4[], '{2,2,5,7}');
-- empty sides
SELECT gpu_lower_bound('{}'::int8[], '{1,2}'), gpu_count('{1,2}'::int8[], '{}'),
       gpu_semijoin('{}'::float8[], '{1}'), gpu_antijoin('{1,1}'::float4[], '{}');
SELECT count(*) FROM gpu_join('{}'::int4[], '{1}');
-- subscripts follow the arrays' own lower bounds
SELECT * FROM gpu_join('[0:2]={1,2,2}'::int8[], '[-3:-2]={2,3}'::int8[]);
-- floats: -0 = +0, NaN = NaN and above +Infinity; semi and anti joins keep
-- a's values bit for bit
SELECT gpu_lower_bound('{-Infinity,-0,0,1,Infinity,NaN,NaN}'::float8[], '{-0,0,Infinity,NaN}') AS lower,
       gpu_upper_bound('{-Infinity,-0,0,1,Infinity,NaN,NaN}'::float8[], '{-0,0,Infinity,NaN}') AS upper,
       gpu_count('{-Infinity,-0,0,1,Infinity,NaN,NaN}'::float4[], '{-0,0,Infinity,NaN}') AS count;
SELECT gpu_semijoin('{-0,0,1,NaN}'::float8[], '{0,NaN}') AS semi,
       gpu_antijoin('{-0,0,1,NaN}'::float4[], '{-0}') AS anti;
SELECT * FROM gpu_join('{-0,NaN}'::float8[], '{0,0,NaN}');

-- Against independent references, one count or one lookup a needle
SELECT setseed(0.5);

-- sizes at the GPU's tile edges (3968 inputs a tile for 4-byte types, 2944
-- for 8-byte ones) and around them; keys from tiny ranges, wide ranges,
-- one key; needles beyond both ends (offset); sides far apart in size
CREATE TEMP TABLE search_shapes AS
SELECT row_number() OVER () AS id, nh, nn, range, offs
FROM (VALUES (1, 1, 2, 0), (0, 5, 4, 0), (5, 0, 4, 0), (1472, 1472, 8, 0), (2943, 1, 1, 0),
             (2945, 0, 3, 0), (1984, 1984, 8, 4), (3967, 1, 1, 0), (1984, 1985, 6, -3),
             (5888, 5887, 8, 0), (3968, 3969, 2, 0), (5000, 7, 100, 0), (7, 5000, 100, 50),
             (4000, 4000, 0, 0), (20000, 20001, 8, 0), (30000, 300, 1000000000, 0),
             (50000, 50000, 100000, 20000), (100000, 2000, 1000, 0)) v(nh, nn, range, offs);

CREATE TEMP TABLE search_cases AS
SELECT id,
       ARRAY(SELECT (random() * range)::int8 FROM generate_series(1, nh) ORDER BY 1) AS h,
       ARRAY(SELECT (random() * range)::int8 + offs FROM generate_series(1, nn) ORDER BY 1) AS n
FROM search_shapes;

CREATE TEMP TABLE search_fcases AS
SELECT id,
       ARRAY(SELECT x FROM (SELECT CASE WHEN random() < 0.2
                   THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-40'])[1 + (random() * 5)::int]::float8
                   ELSE round((random() * range)::numeric, 0)::float8 END AS x
                 FROM generate_series(1, nh)) s ORDER BY 1) AS h,
       ARRAY(SELECT x FROM (SELECT CASE WHEN random() < 0.2
                   THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-40'])[1 + (random() * 5)::int]::float8
                   ELSE round((random() * range)::numeric, 0)::float8 + offs END AS x
                 FROM generate_series(1, nn)) s ORDER BY 1) AS n
FROM search_shapes;

-- the references: PostgreSQL's sort of both arrays together, needles
-- before equal haystack elements (lower bounds) or after them (upper
-- bounds), and a running count of the haystack elements in front
CREATE FUNCTION ref_bounds(h anyarray, n anyarray, OUT lower int4[], OUT upper int4[], OUT count int4[])
LANGUAGE sql IMMUTABLE AS $$
  WITH e AS (SELECT x, 1 AS hay, 0::int8 AS ord FROM unnest(h) x
             UNION ALL
             SELECT x, 0, ord FROM unnest(n) WITH ORDINALITY AS u(x, ord)),
       r AS (SELECT hay, ord,
                    sum(hay) OVER (ORDER BY x, hay ROWS UNBOUNDED PRECEDING)::int4 AS lo,
                    sum(hay) OVER (ORDER BY x, hay DESC ROWS UNBOUNDED PRECEDING)::int4 AS hi
             FROM e)
  SELECT coalesce(array_agg(lo ORDER BY ord), '{}'), coalesce(array_agg(hi ORDER BY ord), '{}'),
         coalesce(array_agg(hi - lo ORDER BY ord), '{}')
  FROM r WHERE hay = 0
$$;
CREATE FUNCTION ref_semijoin(a anyarray, b anyarray, anti bool) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(x ORDER BY ord), a[1:0])::text
  FROM unnest(a) WITH ORDINALITY AS u(x, ord)
       LEFT JOIN (SELECT DISTINCT y FROM unnest(b) y) d ON d.y = u.x
  WHERE (d.y IS NOT NULL) <> anti
$$;

CREATE TEMP TABLE search_results AS
SELECT 'int4' AS type, id, gpu_lower_bound(h::int4[], n::int4[]) = (r).lower AS lower,
       gpu_upper_bound(h::int4[], n::int4[]) = (r).upper AS upper,
       gpu_count(h::int4[], n::int4[]) = (r).count AS count,
       gpu_semijoin(n::int4[], h::int4[])::text = ref_semijoin(n::int4[], h::int4[], false) AS semi,
       gpu_antijoin(n::int4[], h::int4[])::text = ref_semijoin(n::int4[], h::int4[], true) AS anti
FROM (SELECT id, h, n, ref_bounds(h::int4[], n::int4[]) AS r FROM search_cases) s
UNION ALL
SELECT 'int8', id, gpu_lower_bound(h, n) = (r).lower, gpu_upper_bound(h, n) = (r).upper,
       gpu_count(h, n) = (r).count,
       gpu_semijoin(n, h)::text = ref_semijoin(n, h, false),
       gpu_antijoin(n, h)::text = ref_semijoin(n, h, true)
FROM (SELECT id, h, n, ref_bounds(h, n) AS r FROM search_cases) s
UNION ALL
SELECT 'float4', id, gpu_lower_bound(h::float4[], n::float4[]) = (r).lower,
       gpu_upper_bound(h::float4[], n::float4[]) = (r).upper,
       gpu_count(h::float4[], n::float4[]) = (r).count,
       gpu_semijoin(n::float4[], h::float4[])::text = ref_semijoin(n::float4[], h::float4[], false),
       gpu_antijoin(n::float4[], h::float4[])::text = ref_semijoin(n::float4[], h::float4[], true)
FROM (SELECT id, h, n, ref_bounds(h::float4[], n::float4[]) AS r FROM search_fcases) s
UNION ALL
SELECT 'float8', id, gpu_lower_bound(h, n) = (r).lower, gpu_upper_bound(h, n) = (r).upper,
       gpu_count(h, n) = (r).count,
       gpu_semijoin(n, h)::text = ref_semijoin(n, h, false),
       gpu_antijoin(n, h)::text = ref_semijoin(n, h, true)
FROM (SELECT id, h, n, ref_bounds(h, n) AS r FROM search_fcases) s;

SELECT type, count(*) AS cases, count(*) FILTER (WHERE lower) AS lower,
       count(*) FILTER (WHERE upper) AS upper, count(*) FILTER (WHERE count) AS count,
       count(*) FILTER (WHERE semi) AS semi, count(*) FILTER (WHERE anti) AS anti
FROM search_results GROUP BY type ORDER BY type;

-- the join against PostgreSQL's own join of the elements with their
-- subscripts, order included (ordinality of the function's rows against
-- ORDER BY a_pos, b_pos); one key on both sides (case 14's 16M pairs as
-- text would take most of the suite's time) is checked below, pair by pair
-- against its arithmetic order
CREATE FUNCTION ref_join(a anyarray, b anyarray) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  -- the lower bounds taken once: an array read again at each pair would be
  -- detoasted again each time
  WITH l AS MATERIALIZED (SELECT coalesce(array_lower(a, 1), 1) - 1 AS lo_a,
                                 coalesce(array_lower(b, 1), 1) - 1 AS lo_b)
  SELECT coalesce(string_agg((i + lo_a) || ':' || (j + lo_b), ' ' ORDER BY i, j), '')
  FROM unnest(a) WITH ORDINALITY x(v, i) JOIN unnest(b) WITH ORDINALITY y(w, j) ON x.v = y.w, l
$$;
CREATE FUNCTION got_join(a anyarray, b anyarray) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(string_agg(a_pos || ':' || b_pos, ' ' ORDER BY ord), '')
  FROM gpu_join(a, b) WITH ORDINALITY AS g(a_pos, b_pos, ord)
$$;
SELECT type, count(*) AS cases, count(*) FILTER (WHERE same) AS same
FROM (SELECT 'int4' AS type, got_join(n::int4[], h::int4[]) = ref_join(n::int4[], h::int4[]) AS same
      FROM search_cases WHERE id IN (1, 2, 3, 4, 6, 8, 10, 12, 13, 16)
      UNION ALL
      SELECT 'int8', got_join(n, h) = ref_join(n, h) FROM search_cases WHERE id IN (7, 9, 17)
      UNION ALL
      SELECT 'float4', got_join(n::float4[], h::float4[]) = ref_join(n::float4[], h::float4[])
      FROM search_fcases WHERE id IN (1, 4, 5, 7, 12, 13)
      UNION ALL
      SELECT 'float8', got_join(n, h) = ref_join(n, h) FROM search_fcases WHERE id IN (9, 16)) s
GROUP BY type ORDER BY type;

-- the outer joins against PostgreSQL's LEFT, RIGHT and FULL JOIN of the
-- elements with their subscripts, order included: by key, a pair by a_pos
-- then b_pos, an unmatched row of a before one of b on equal keys ('-' for
-- NULL); the same cases, empty sides among them
CREATE FUNCTION ref_outer_join(a anyarray, b anyarray, kind text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE r text;
BEGIN
  EXECUTE format($q$
    WITH l AS MATERIALIZED (SELECT coalesce(array_lower($1, 1), 1) - 1 AS lo_a,
                                   coalesce(array_lower($2, 1), 1) - 1 AS lo_b)
    SELECT coalesce(string_agg(coalesce((i + lo_a)::text, '-') || ':' || coalesce((j + lo_b)::text, '-'),
                               ' ' ORDER BY coalesce(x.v, y.w), i NULLS LAST, j), '')
    FROM (unnest($1) WITH ORDINALITY x(v, i) %s JOIN unnest($2) WITH ORDINALITY y(w, j)
          ON x.v = y.w) CROSS JOIN l$q$, kind) INTO r USING a, b;
  RETURN r;
END $f$;
CREATE FUNCTION got_outer_join(a anyarray, b anyarray, kind text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(string_agg(coalesce(a_pos::text, '-') || ':' || coalesce(b_pos::text, '-'),
                             ' ' ORDER BY ord), '')
  FROM gpu_join(a, b, kind) WITH ORDINALITY AS g(a_pos, b_pos, ord)
$$;
SELECT kind, type, count(*) AS cases, count(*) FILTER (WHERE same) AS same
FROM unnest('{left,right,full}'::text[]) kind,
LATERAL (SELECT 'int4' AS type, got_outer_join(n::int4[], h::int4[], kind) = ref_outer_join(n::int4[], h::int4[], kind) AS same
         FROM search_cases WHERE id IN (1, 2, 3, 4, 6, 8, 10, 12, 13, 16)
         UNION ALL
         SELECT 'int8', got_outer_join(n, h, kind) = ref_outer_join(n, h, kind)
         FROM search_cases WHERE id IN (2, 3, 7, 9, 17)
         UNION ALL
         SELECT 'float4', got_outer_join(n::float4[], h::float4[], kind) = ref_outer_join(n::float4[], h::float4[], kind)
         FROM search_fcases WHERE id IN (1, 4, 5, 7, 12, 13)
         UNION ALL
         SELECT 'float8', got_outer_join(n, h, kind) = ref_outer_join(n, h, kind)
         FROM search_fcases WHERE id IN (2, 3, 9, 16)) s
GROUP BY kind, type ORDER BY kind, type;
-- every kind of one small join, subscripts from the arrays' lower bounds,
-- the kind's case not minded
SELECT k AS kind, string_agg(coalesce(a_pos::text, '-') || ':' || coalesce(b_pos::text, '-'), ' ' ORDER BY ord) AS rows
FROM unnest('{inner,left,RIGHT,Full}'::text[]) k,
     LATERAL gpu_join('[0:5]={1,2,2,4,6,6}'::int4[], '{0,2,3,6,7}'::int4[], k) WITH ORDINALITY g(a_pos, b_pos, ord)
GROUP BY k ORDER BY k;
SELECT * FROM gpu_join('{-0,1,NaN}'::float8[], '{0,0,2}', 'full');

-- a key with many partners on both sides: every pair, in order
SELECT count(*) AS pairs, count(DISTINCT (a_pos, b_pos)) AS distinct_pairs,
       bool_and(a_pos BETWEEN 1 AND 300 AND b_pos BETWEEN 1 AND 7000) AS in_range,
       bool_and(ord = (a_pos - 1) * 7000 + b_pos) AS ordered
FROM gpu_join(array_fill(7, ARRAY[300]), array_fill(7, ARRAY[7000]))
     WITH ORDINALITY AS g(a_pos, b_pos, ord);

-- refused inputs, as gpu_merge refuses them
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT gpu_lower_bound('{1,NULL}'::int4[], '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_count('{1}'::int8[], '{{1,2},{3,4}}'::int8[]);
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_upper_bound('{1,3,2}'::int4[], '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_lower_bound('{1,2,3}'::float8[], '[0:3]={5,5,NaN,4}'::float8[]);
-- an unsorted haystack is found past the last needle too
SELECT gpu_lower_bound(ARRAY(SELECT i FROM generate_series(1, 100000) i) || 5, '{1}'::int4[]);
SELECT gpu_semijoin('{1,2}'::int8[], '{3,2}');
SELECT gpu_antijoin('{2,1}'::float4[], '{3}');
SELECT * FROM gpu_join('{1}'::int4[], '{1,3,2}');
SELECT * FROM gpu_join('{1}'::int4[], '{1}', 'outer');
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_count('{text}'::text[], '{b}'::text[]);
\echo :LAST_ERROR_SQLSTATE
-- a join past the limit on its result is refused before it is built
SELECT count(*) FROM gpu_join(array_fill(1, ARRAY[12000]), array_fill(1, ARRAY[12000]));
\echo :LAST_ERROR_SQLSTATE
-- with the check off, nothing is raised and the result is unspecified
SET mergepath.check_sorted = off;
SELECT cardinality(gpu_lower_bound('{3,1,2}'::int4[], '{2,0}')) AS two,
       cardinality(gpu_semijoin('{3,1,2}'::int4[], '{0}')) <= 3 AS bounded;
RESET mergepath.check_sorted;
SELECT gpu_count(NULL::int4[], '{1}') IS NULL AS is_null;
