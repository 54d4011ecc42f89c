-- mergepath on a Citus cluster: a coordinator and two workers, each with
-- both extensions.  Every query on the distributed tables is compared with
-- the same query on plain tables of the coordinator that hold the same rows,
-- and its plan shows where mergepath ran.
SET citus.shard_count = 8;
SET citus.propagate_set_commands = 'local';
SET citus.explain_analyze_sort_method = 'taskId';
SELECT setseed(0.3);

-- the rows of query dq and of query pq (on the plain tables): the same
-- multiset?
CREATE FUNCTION same(dq text, pq text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text[];
  p text[];
BEGIN
  EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', dq) INTO d;
  EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', pq) INTO p;
  RETURN format('%s rows, %s', coalesce(cardinality(d), 0),
                CASE WHEN d IS NOT DISTINCT FROM p THEN 'same rows'
                     ELSE format('DIFFERENT (%s rows on one node)', coalesce(cardinality(p), 0)) END);
END $$;

-- the rows of query dq and of query pq, in the order they arrive: the same?
CREATE FUNCTION same_order(dq text, pq text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text[] := '{}';
  p text[] := '{}';
  r record;
BEGIN
  FOR r IN EXECUTE dq LOOP
    d := d || r::text;
  END LOOP;
  FOR r IN EXECUTE pq LOOP
    p := p || r::text;
  END LOOP;
  RETURN format('%s rows, %s', cardinality(d),
                CASE WHEN d = p THEN 'same rows in the same order' ELSE 'DIFFERENT' END);
END $$;

-- the lines of q's plan (EXPLAIN VERBOSE, or ANALYZE) that match pattern,
-- without the nodes' addresses
CREATE FUNCTION plan_lines(q text, pattern text, with_analyze bool DEFAULT false)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (%s) %s',
                             CASE WHEN with_analyze THEN 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF'
                                  ELSE 'COSTS OFF, VERBOSE' END, q) LOOP
    IF line ~ pattern THEN
      line := regexp_replace(line, 'host=\S+ port=\d+', 'host=* port=*');
      line := regexp_replace(line, '_\d{6}', '_*', 'g');
      line := regexp_replace(line, '''\d+''::oid', '''*''::oid', 'g');
      RETURN NEXT regexp_replace(line, ' \(actual .*\)$', '');
    END IF;
  END LOOP;
END $$;

-- n random elements in [0, hi], sorted
CREATE FUNCTION sorted_arr(n int, hi int) RETURNS int4[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(x ORDER BY x), '{}')
  FROM (SELECT floor(random() * (hi + 1))::int4 AS x FROM generate_series(1, n)) s
$$;

CREATE TABLE arrs_plain AS
SELECT i AS id, i % 7 AS g, sorted_arr(i % 40, 60) AS a, sorted_arr(i % 23, 60) AS b,
       (random() * 100000)::int8 AS v, random() * 1000 AS x
FROM generate_series(1, 4000) i;
CREATE TABLE arrs (LIKE arrs_plain);
SELECT create_distributed_table('arrs', 'id');
INSERT INTO arrs SELECT * FROM arrs_plain;

-- per-row calls: pushed down to the shards, where the workers run them
SELECT f, same(format('SELECT id, %s(a, b) FROM arrs', f),
               format('SELECT id, %s(a, b) FROM arrs_plain', f))
FROM unnest(ARRAY['gpu_merge', 'gpu_intersect', 'gpu_union', 'gpu_except', 'gpu_symdiff',
                  'gpu_lower_bound', 'gpu_count', 'gpu_semijoin']) f;
SELECT same('SELECT id, gpu_sort(a || b), gpu_unique(a) FROM arrs WHERE id % 3 = 0',
            'SELECT id, gpu_sort(a || b), gpu_unique(a) FROM arrs_plain WHERE id % 3 = 0');
SELECT plan_lines('SELECT id, gpu_intersect(a, b) FROM arrs', 'Task Count|Query:|Output: .*gpu');

-- aggregates grouped by the distribution column: pushed down whole
SELECT same('SELECT id, gpu_sort_agg(v), gpu_merge_agg(a) FROM arrs GROUP BY id',
            'SELECT id, gpu_sort_agg(v), gpu_merge_agg(a) FROM arrs_plain GROUP BY id');
SELECT plan_lines('SELECT id, gpu_sort_agg(v) FROM arrs GROUP BY id',
                  'Custom Scan|Task Count|Query:|Aggregate');

-- grouped otherwise, and over the whole table: each worker aggregates its
-- shards into partial states (worker_partial_agg), which the coordinator
-- combines (coord_combine_agg, by the aggregates' combine function) and
-- finishes; Citus does this where the transition type is a plain type
SELECT same('SELECT g, gpu_sort_agg(v), gpu_sort_agg(v, x), gpu_merge_agg(a) FROM arrs GROUP BY g',
            'SELECT g, gpu_sort_agg(v), gpu_sort_agg(v, x), gpu_merge_agg(a) FROM arrs_plain GROUP BY g');
SELECT same('SELECT gpu_sort_agg(x), gpu_merge_agg(b) FROM arrs',
            'SELECT gpu_sort_agg(x), gpu_merge_agg(b) FROM arrs_plain');
SELECT plan_lines('SELECT g, gpu_sort_agg(v) FROM arrs GROUP BY g',
                  'Custom Scan|Task Count|Query:|Aggregate|Output: .*(gpu|agg)');

-- ORDER BY: the workers' rows sorted on the coordinator, by MergepathSort
-- there; a window over the distribution column runs on the workers, each
-- shard's rows sorted by MergepathSort (SET LOCAL reaches the workers)
BEGIN;
SET LOCAL mergepath.sort_min_rows = 0;
SELECT same('SELECT * FROM (SELECT id, v FROM arrs ORDER BY v, id LIMIT 300) s',
            'SELECT * FROM (SELECT id, v FROM arrs_plain ORDER BY v, id LIMIT 300) s');
SELECT same_order('SELECT id, x FROM arrs ORDER BY x, id', 'SELECT id, x FROM arrs_plain ORDER BY x, id');
SELECT same_order('SELECT id, v FROM arrs ORDER BY v DESC, id', 'SELECT id, v FROM arrs_plain ORDER BY v DESC, id');
SELECT plan_lines('SELECT id, v FROM arrs ORDER BY v, id', 'Custom Scan|Sort Key|Task Count', true);
SELECT same('SELECT id, v, rank() OVER (PARTITION BY id ORDER BY x) FROM arrs',
            'SELECT id, v, rank() OVER (PARTITION BY id ORDER BY x) FROM arrs_plain');
SELECT plan_lines('SELECT id, v, rank() OVER (PARTITION BY id ORDER BY x) FROM arrs',
                  'Custom Scan|Sort Key|Task Count|WindowAgg', true);
COMMIT;

-- a join of co-located tables on the distribution column: each worker joins
-- its shards; with the planner's other joins off there, by MergepathJoin
CREATE TABLE other_plain AS SELECT i AS id, (random() * 50)::int4 AS w FROM generate_series(1, 6000) i;
CREATE TABLE other (LIKE other_plain);
SELECT create_distributed_table('other', 'id', colocate_with => 'arrs');
INSERT INTO other SELECT * FROM other_plain;
BEGIN;
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SET LOCAL enable_nestloop = off;
SELECT same('SELECT a.id, a.v, o.w FROM arrs a JOIN other o USING (id) WHERE o.w < 20',
            'SELECT a.id, a.v, o.w FROM arrs_plain a JOIN other_plain o USING (id) WHERE o.w < 20');
SELECT same('SELECT a.id, o.id FROM arrs a FULL JOIN other o USING (id)',
            'SELECT a.id, o.id FROM arrs_plain a FULL JOIN other_plain o USING (id)');
SELECT plan_lines('SELECT count(*) FROM arrs a JOIN other o USING (id)',
                  'Custom Scan|Join Type|Join Key|Task Count', true);
COMMIT;

-- an error raised on a worker reaches the client with its SQLSTATE
DO $$
BEGIN
  PERFORM gpu_intersect(a, '{3,1}') FROM arrs;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'SQLSTATE %: %', SQLSTATE, SQLERRM;
END $$;
DO $$
BEGIN
  PERFORM gpu_merge(ARRAY[1, NULL]::int4[], b) FROM arrs WHERE id = 17;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'SQLSTATE %: %', SQLSTATE, SQLERRM;
END $$;
SELECT count(*) FROM arrs;

DROP TABLE arrs, arrs_plain, other, other_plain;
DROP FUNCTION same(text, text);
DROP FUNCTION same_order(text, text);
DROP FUNCTION plan_lines(text, text, bool);
DROP FUNCTION sorted_arr(int, int);
