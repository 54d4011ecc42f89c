-- MergepathBatch: the per-row calls of the array functions run a batch of
-- rows at a time, on whichever backend mergepath.device picks.  Each query
-- runs with the node and without it (the functions called row by row), and
-- must give the same rows in the same order, compared as text (so that -0
-- and 0 differ).
LOAD 'mergepath';		-- the planner hook needs the library when plans are made
SET mergepath.batch_min_rows = 0;
SET max_parallel_workers_per_gather = 0;
SET synchronize_seqscans = off;
SELECT setseed(0.25);

-- n random elements in [lo, hi], sorted
CREATE FUNCTION sorted_arr(n int, lo int, hi int) RETURNS int4[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(x ORDER BY x), '{}')
  FROM (SELECT lo + floor(random() * (hi - lo + 1))::int4 AS x FROM generate_series(1, n)) s
$$;

-- arrays of mixed sizes: NULL, empty, one element, thousands, a few dozen.
-- No autovacuum: a vacuumed table's visibility map would turn the plans
-- below into index-only scans, depending on when it ran.
CREATE TABLE bt WITH (autovacuum_enabled = off) AS
SELECT i AS id,
       CASE WHEN i % 97 = 0 THEN NULL WHEN i % 13 = 0 THEN '{}'
            WHEN i % 11 = 0 THEN sorted_arr(1, 0, 20)
            WHEN i % 101 = 0 THEN sorted_arr(3000, 0, 5000)
            ELSE sorted_arr(1 + (i * 7) % 60, 0, 40) END AS a,
       CASE WHEN i % 89 = 0 THEN NULL WHEN i % 17 = 0 THEN '{}'
            WHEN i % 19 = 0 THEN sorted_arr(1, 0, 20)
            WHEN i % 103 = 0 THEN sorted_arr(2500, 0, 5000)
            ELSE sorted_arr(1 + (i * 5) % 45, 0, 40) END AS b
FROM generate_series(1, 3000) i;
ALTER TABLE bt ADD u int4[], ADD u8 int8[], ADD a8 int8[], ADD b8 int8[], ADD f4 float4[], ADD g4 float4[],
  ADD f8 float8[], ADD g8 float8[];
-- unsorted arrays for gpu_sort; floats with -0, 0, infinities and NaN, still sorted
UPDATE bt SET u = (SELECT array_agg(x) FROM unnest(a) x), a8 = a::int8[], b8 = b::int8[],
  f4 = (SELECT array_agg(v ORDER BY v) FROM unnest(a) x,
          LATERAL (SELECT CASE WHEN x = 0 THEN '-0' WHEN x = 40 THEN 'NaN'
                               WHEN x = 39 THEN 'Infinity' ELSE x / 4.0 END::float4 AS v) m),
  g4 = (SELECT array_agg(v ORDER BY v) FROM unnest(b) x,
          LATERAL (SELECT CASE WHEN x = 40 THEN 'NaN' ELSE x / 4.0 END::float4 AS v) m),
  f8 = (SELECT array_agg(v ORDER BY v) FROM unnest(a) x,
          LATERAL (SELECT CASE WHEN x = 1 THEN '-0' WHEN x = 40 THEN 'NaN'
                               ELSE x / 8.0 - 1 END::float8 AS v) m),
  g8 = (SELECT array_agg(v ORDER BY v) FROM unnest(b) x,
          LATERAL (SELECT CASE WHEN x = 40 THEN 'NaN' ELSE x / 8.0 - 1 END::float8 AS v) m);
UPDATE bt SET u = (SELECT array_agg(x ORDER BY random()) FROM unnest(u) x) WHERE id % 3 = 0;
UPDATE bt SET u8 = u::int8[];
UPDATE bt SET f4 = '{}', f8 = '{}' WHERE a = '{}';
CREATE INDEX ON bt (id);
ANALYZE bt;

-- q with the node off and on: its rows, whether they are the same in the
-- same order, whether the node ran, and how many rows it left to the
-- functions' own calls (EXPLAIN ANALYZE's count).
CREATE FUNCTION check_batch(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  wrapped text := format('SELECT row_number() OVER () AS pos, s::text AS r FROM (%s) s', q);
  plan text := '';
  line text;
  n bigint;
  differ bigint;
  alone bigint := 0;
BEGIN
  PERFORM set_config('mergepath.enable_batch', 'off', true);
  EXECUTE 'CREATE TEMP TABLE r_off AS ' || wrapped;
  PERFORM set_config('mergepath.enable_batch', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE r_on AS ' || wrapped;
  SELECT count(*) INTO n FROM r_off;
  SELECT count(*) INTO differ
  FROM r_off FULL JOIN r_on USING (pos) WHERE r_off.r IS DISTINCT FROM r_on.r;
  DROP TABLE r_off;
  DROP TABLE r_on;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    alone := alone + coalesce(substring(line FROM 'Rows Run One by One: (\d+)')::bigint, 0);
  END LOOP;
  RETURN format('%s rows, %s', n,
                CASE WHEN differ > 0 THEN differ || ' DIFFER' ELSE 'same' END) ||
         CASE WHEN plan LIKE '%MergepathBatch%' THEN ', batched' ELSE ', not batched' END ||
         CASE WHEN alone > 0 THEN format(', %s rows one by one', alone) ELSE '' END;
END $$;

-- every function on every element type
SELECT f, t,
       check_batch(format('SELECT id, %s(%s, %s) FROM bt', f, x, y)) AS result
FROM unnest(ARRAY['gpu_merge', 'gpu_intersect', 'gpu_union', 'gpu_except', 'gpu_symdiff',
                  'gpu_lower_bound', 'gpu_upper_bound', 'gpu_count', 'gpu_semijoin',
                  'gpu_antijoin']) WITH ORDINALITY AS fs(f, fo),
     (VALUES ('int4', 'a', 'b'), ('int8', 'a8', 'b8'), ('float4', 'f4', 'g4'),
             ('float8', 'f8', 'g8')) AS ts(t, x, y)
ORDER BY fo, t;
SELECT t, check_batch(format('SELECT id, gpu_sort(%s), gpu_unique(%s) FROM bt', x, y)) AS result
FROM (VALUES ('int4', 'u', 'a'), ('int8', 'u8', 'a8'), ('float4', 'g4', 'f4'),
             ('float8', 'f8', 'g8')) AS ts(t, x, y);

-- calls in every place: constants, aggregates, filters, CASE, joins,
-- subqueries and their rescans, several calls a row
SELECT check_batch($$SELECT id, gpu_intersect(a, '{1,5,9}') FROM bt$$);
SELECT check_batch($$SELECT sum(cardinality(gpu_intersect(a, b))), max(gpu_union(a, b)) FROM bt$$);
SELECT check_batch($$SELECT id FROM bt WHERE cardinality(gpu_intersect(a, b)) > 3$$);
SELECT check_batch($$SELECT id, a FROM bt WHERE id % 2 = 0 AND gpu_count(b, a) @> '{1}'$$);
SELECT check_batch($$SELECT id, CASE WHEN id % 3 = 0 THEN gpu_except(a, b) END FROM bt$$);
SELECT check_batch($$SELECT x.id, gpu_symdiff(x.a, y.b), gpu_merge(y.a, x.a)
                     FROM bt x JOIN bt y ON y.id = x.id + 1$$);
SELECT check_batch($$SELECT id, (SELECT gpu_merge(x.a, y.b) FROM bt y WHERE y.id = x.id + 7)
                     FROM bt x$$);
SELECT check_batch($$SELECT x.id, s.c FROM bt x,
                     LATERAL (SELECT count(*) AS c FROM bt y WHERE y.id BETWEEN x.id AND x.id + 3
                              AND cardinality(gpu_intersect(x.a, y.b)) > 1) s
                     WHERE x.id < 300$$);
SELECT check_batch($$SELECT id, gpu_union(a, b), gpu_sort(u), gpu_lower_bound(a, b),
                     gpu_semijoin(b, a) FROM bt ORDER BY id DESC$$);
SELECT check_batch($$SELECT * FROM (SELECT id, gpu_intersect(a, b) AS i FROM bt OFFSET 0) s
                     WHERE cardinality(i) > 2$$);
-- a column of a domain over an array type
CREATE DOMAIN int_list AS int4[];
CREATE TABLE dt AS SELECT id, a::int_list AS a, b FROM bt;
ANALYZE dt;
SELECT check_batch($$SELECT id, gpu_union(a, b) FROM dt$$);

-- in parallel workers
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT sum(cardinality(gpu_intersect(a, b))) FROM bt;
SELECT check_batch($$SELECT sum(cardinality(gpu_intersect(a, b))), count(gpu_sort(u)) FROM bt$$);
RESET parallel_leader_participation;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- where the node stands, and where not
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, gpu_intersect(a, b) FROM bt WHERE id > 10;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bt WHERE id > 10 AND cardinality(gpu_merge(a, b)) > 5;
EXPLAIN (COSTS OFF) SELECT sum(cardinality(gpu_intersect(a, b))) FROM bt;
-- constants only: nothing the rows supply
EXPLAIN (COSTS OFF) SELECT id, gpu_sort('{3,1,2}'::int4[]) FROM bt;
-- an argument that could fail
EXPLAIN (COSTS OFF) SELECT id, gpu_sort(a || b) FROM bt;
-- an aggregate with a FILTER
EXPLAIN (COSTS OFF) SELECT sum(cardinality(gpu_union(a, b))) FILTER (WHERE id > 5) FROM bt;
SET mergepath.batch_min_rows = 100000;
EXPLAIN (COSTS OFF) SELECT id, gpu_intersect(a, b) FROM bt;
SET mergepath.batch_min_rows = 0;
SET mergepath.enable_batch = off;
EXPLAIN (COSTS OFF) SELECT id, gpu_intersect(a, b) FROM bt;
SET mergepath.enable_batch = on;
-- Without a processor to spare for the thread that runs a batch's calls
-- beside the reading (mergepath.cpu_threads = 1, or the processes of a
-- Gather taking them all: 64 workers planned), the node stands only where
-- the plan may count on the GPU (mergepath.device = gpu), or everywhere
-- with mergepath.batch_min_rows = 0
CREATE FUNCTION plan_has(q text, node text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  line text;
  found bool := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    found := found OR line LIKE '%' || node || '%';
  END LOOP;
  RETURN found;
END $$;
SET mergepath.batch_min_rows = 1;
SET mergepath.cpu_threads = 1;
SELECT plan_has($$SELECT id, gpu_intersect(a, b) FROM bt$$, 'MergepathBatch')
       = (current_setting('mergepath.device') = 'gpu') AS placed_for_the_gpu_alone;
RESET mergepath.cpu_threads;
ALTER TABLE bt SET (parallel_workers = 64);
SET max_parallel_workers_per_gather = 64;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SELECT plan_has(q, 'Gather') AS parallel,
       plan_has(q, 'MergepathBatch') = (current_setting('mergepath.device') = 'gpu')
         AS placed_for_the_gpu_alone
FROM (VALUES ($$SELECT sum(cardinality(gpu_intersect(a, b))) FROM bt$$)) v(q);
SET mergepath.batch_min_rows = 0;
SELECT plan_has($$SELECT sum(cardinality(gpu_intersect(a, b))) FROM bt$$, 'MergepathBatch')
       AS placed;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
ALTER TABLE bt RESET (parallel_workers);

-- rows the functions refuse: the error is the one the row's own call
-- raises, for the first such row, with the node and without it
CREATE TABLE bad AS SELECT id, a, b FROM bt ORDER BY id;
UPDATE bad SET b = '{9,3,1}' WHERE id = 1500;
UPDATE bad SET a = '{1,NULL,3}' WHERE id = 2100;
UPDATE bad SET a = '{{1,2},{3,4}}' WHERE id = 2500;
ANALYZE bad;
SELECT id, gpu_intersect(a, b) FROM bad;
SET mergepath.enable_batch = off;
SELECT id, gpu_intersect(a, b) FROM bad;
SET mergepath.enable_batch = on;
SELECT id, gpu_merge(a, b) FROM bad WHERE id <> 1500;
SET mergepath.enable_batch = off;
SELECT id, gpu_merge(a, b) FROM bad WHERE id <> 1500;
SET mergepath.enable_batch = on;
SELECT count(gpu_union(a, b)) FROM bad WHERE id > 2200;
SET mergepath.enable_batch = off;
SELECT count(gpu_union(a, b)) FROM bad WHERE id > 2200;
SET mergepath.enable_batch = on;
-- the calls that would fail are never made: the rows run one by one
SELECT check_batch($$SELECT id, CASE WHEN id NOT IN (1500, 2100, 2500)
                                     THEN gpu_intersect(a, b) END FROM bad$$);
SELECT check_batch($$SELECT id FROM bad WHERE id NOT IN (1500, 2100, 2500)
                                        AND cardinality(gpu_union(a, b)) > 10$$);

-- On the CPU backend a batch's calls run on a thread while the node reads
-- the next batch (on the GPU, in turn)
CREATE FUNCTION batch_runs(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  beside bigint := 0;
  gpu bool := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    beside := beside + coalesce(substring(line FROM 'Batches Run While Reading: (\d+)')::bigint, 0);
    gpu := gpu OR line LIKE '%Batch Backend: gpu%';
  END LOOP;
  RETURN CASE WHEN beside > 0 OR gpu THEN 'beside the reading, or on the GPU'
              ELSE 'in turn on the CPU' END;
END $$;
SELECT batch_runs($$SELECT sum(cardinality(gpu_merge(a, b))) FROM bt, generate_series(1, 8) g$$);
SELECT check_batch($$SELECT g, id, gpu_merge(a, b) FROM bt, generate_series(1, 8) g$$);
-- unsorted rows in batches whose calls ran on a thread: left to the
-- original expressions, and the first one's error as row by row
SELECT check_batch($$SELECT g, id, CASE WHEN id NOT IN (1500, 2100, 2500)
                                        THEN gpu_intersect(a, b) END
                     FROM bad, generate_series(1, 8) g$$);
SELECT g, id, gpu_intersect(a, b) FROM bad, generate_series(1, 8) g WHERE id <> 2100;
SET mergepath.enable_batch = off;
SELECT g, id, gpu_intersect(a, b) FROM bad, generate_series(1, 8) g WHERE id <> 2100;
SET mergepath.enable_batch = on;
-- an error while a batch is read, the one before it perhaps still running
-- on its thread: the input's error, and the next query runs as ever
SELECT sum(cardinality(gpu_merge(a, b))) FROM bt, generate_series(1, 8) g
WHERE 1 / (g * 3000 + id - 20000) <> 7;
SELECT check_batch($$SELECT id, gpu_merge(a, b) FROM bt$$);

-- Under mergepath.device = auto a batch goes to the GPU where one call of
-- its average size would: a threshold above the calls' sizes (though below
-- the batch's elements in all) keeps it on the CPU on any host; one below
-- them chooses the GPU (which a host without one then says it lacks)
CREATE FUNCTION batch_backend(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line LIKE '%Batch Backend:%' THEN
      RETURN CASE WHEN line LIKE '%Batch Backend: gpu%' OR line LIKE '%GPU unavailable%'
                  THEN 'chosen for the GPU' ELSE substring(line FROM 'Batch Backend: (.*)$') END;
    END IF;
  END LOOP;
  RETURN 'no MergepathBatch';
END $$;
SET mergepath.device = auto;
SELECT sum(cardinality(a) + cardinality(b)) AS elements FROM bt;
SET mergepath.gpu_min_elements = 5000;
SELECT batch_backend($$SELECT sum(cardinality(gpu_merge(a, b))) FROM bt$$);
SET mergepath.gpu_min_elements = 10;
SELECT batch_backend($$SELECT sum(cardinality(gpu_merge(a, b))) FROM bt$$);
RESET mergepath.gpu_min_elements;
RESET mergepath.device;
