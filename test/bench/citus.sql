-- mergepath on a Citus cluster (citus.sh): the tables generated on the
-- shards themselves (each shard the ids of its own hash range among
-- 1..rows), then whole-query times with mergepath (on the GPU where there is
-- one, and on the CPU backend) and without it: the per-row calls batched
-- (MergepathBatch) against the same calls row by row, the aggregates split
-- into partial states or pushed down whole (grouped by the distribution
-- column, DIST_GROUPS groups) against PostgreSQL's array_agg(v ORDER BY v), a sort
-- on the workers (a window over the distribution column) and a co-located
-- join against PostgreSQL's sort and join.  Columns: off (mergepath's nodes
-- off, the functions called row by row, PostgreSQL's own aggregate), cpu
-- (mergepath on the CPU backend), gpu (mergepath under mergepath.device =
-- auto, where every worker has a GPU).  Appends the medians to
-- /tmp/mergepath-citus-bench.tsv, which citus.sh sums up.
SET client_min_messages = warning;
SET citus.shard_count = :shards;
SET citus.propagate_set_commands = 'local';
\set ON_ERROR_STOP 1

-- unlogged: the rows are made for the benchmark alone, and 20M rows of
-- arrays are 17 GB that would be written twice, to the tables and the WAL
CREATE UNLOGGED TABLE arrs (id int8, g int4, a int4[], b int4[]);
CREATE UNLOGGED TABLE rows_a (id int8, k int8, v int4);
CREATE UNLOGGED TABLE rows_b (id int8, k int8, w int4);
CREATE UNLOGGED TABLE rows_g (g int4, v int4);
SELECT create_distributed_table('arrs', 'id');
SELECT create_distributed_table('rows_a', 'id', colocate_with => 'arrs');
SELECT create_distributed_table('rows_b', 'id', colocate_with => 'arrs');
SELECT create_distributed_table('rows_g', 'g', colocate_with => 'none');

-- a shard's rows: the ids of 1..n (1..arr_n for arrs) that hash into its
-- range; a row of arrs takes its pair from 1024 pairs the shard draws first
-- (drawing 200 elements for each of 20M rows took most of the load's
-- minutes; what the queries read and compute a row is the same), each
-- array ascending by construction (element j of 100 in [10j, 10j + 9], so
-- that a pair shares about a tenth of its elements; the subqueries name n:
-- an uncorrelated one runs once, and every pair would be the same); for
-- rows_g, the rows of 1..n whose group (i % groups) does
CREATE FUNCTION bench_fill(shard text, n bigint, arr_n bigint, groups int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  sid bigint := regexp_replace(shard, '^.*_', '')::bigint;
  lo int;
  hi int;
  made bigint;
BEGIN
  SELECT shardminvalue::int, shardmaxvalue::int INTO lo, hi FROM pg_dist_shard WHERE shardid = sid;
  IF shard LIKE '%arrs%' THEN
    EXECUTE format($q$INSERT INTO %s
      SELECT i, (i %% 1000)::int4, p.a, p.b
      FROM generate_series(1, $1) i
      JOIN (SELECT n, ARRAY(SELECT (j * 10 + random() * 9)::int4 + 0 * n FROM generate_series(0, 99) j) a,
                      ARRAY(SELECT (j * 10 + random() * 9)::int4 + 0 * n FROM generate_series(0, 99) j) b
            FROM generate_series(0, 1023) n) p ON p.n = i %% 1024
      WHERE worker_hash(i) BETWEEN $2 AND $3$q$, shard) USING arr_n, lo, hi;
  ELSIF shard LIKE '%rows_g%' THEN
    EXECUTE format($q$INSERT INTO %s
      SELECT (i %% $4)::int4, (random() * 1e6)::int4
      FROM generate_series(1, $1) i WHERE worker_hash((i %% $4)::int4) BETWEEN $2 AND $3$q$, shard)
      USING n, lo, hi, groups;
  ELSE
    EXECUTE format($q$INSERT INTO %s
      SELECT i, (random() * 1e9)::int8, (random() * 1e6)::int4
      FROM generate_series(1, $1) i WHERE worker_hash(i) BETWEEN $2 AND $3$q$, shard) USING n, lo, hi;
  END IF;
  GET DIAGNOSTICS made = ROW_COUNT;
  RETURN made;
END $$;
-- only the tables the chosen queries read are filled
\timing on
SELECT t AS "table", sum(result::bigint) AS rows_made
FROM unnest(ARRAY['arrs', 'rows_a', 'rows_b', 'rows_g'],
            ARRAY['1,2,5', '3,6,7', '7', '4']) u(t, readers),
     LATERAL run_command_on_shards(t, format($$SELECT bench_fill('%%s', %s, %s, %s)$$, :rows, :arr_rows, :groups))
WHERE string_to_array(readers, ',') && string_to_array(:'queries', ',')
GROUP BY t ORDER BY t;
-- statistics only: a VACUUM would read all of it again (the first,
-- untimed run of each query sets the rows' hint bits)
ANALYZE arrs;
ANALYZE rows_a;
ANALYZE rows_b;
ANALYZE rows_g;
\timing off

-- the timings and the timing function on the coordinator alone
SET citus.enable_ddl_propagation = off;
CREATE TABLE bench_timings (workers int, query text, method text, ms numeric, coord_cpu_ms numeric,
                            final_ms numeric);
-- this backend's processor time so far (user and system), in ms (Linux's
-- /proc, clock ticks of 10 ms)
CREATE FUNCTION bench_cpu_ms() RETURNS numeric LANGUAGE sql AS $$
  SELECT (f[14]::numeric + f[15]::numeric) * 10
  FROM string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') s,
       LATERAL (SELECT ARRAY['', ''] || s AS f) x
$$;
-- the median of reps runs of q after a warm-up, in ms, the coordinator's
-- processor time a run (its share of the query that does not run on the
-- workers), and for the whole table's aggregate the time of its final merge
-- (the coordinator's last mergepath call)
CREATE FUNCTION bench_time_query(workers int, name text, method text, q text, reps int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  c0 numeric;
  times float8[] := '{}';
BEGIN
  EXECUTE q;
  c0 := bench_cpu_ms();
  FOR i IN 1..reps LOOP
    t0 := clock_timestamp();
    EXECUTE q;
    times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
  END LOOP;
  INSERT INTO bench_timings VALUES (workers, name, method,
    round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t)::numeric, 1),
    round((bench_cpu_ms() - c0) / reps),
    CASE WHEN name LIKE 'aggregate, whole%' AND method <> 'pg'
         THEN round((mergepath_info()->'last_call'->>'total_ms')::numeric, 1) END);
END $$;
RESET citus.enable_ddl_propagation;

-- each query with each method, a transaction each, its settings SET LOCAL
-- (which reach the workers)
SELECT 'BEGIN',
       format('SET LOCAL mergepath.device = %L', CASE m WHEN 'cpu' THEN 'cpu' ELSE 'auto' END),
       format('SET LOCAL mergepath.enable_batch = %s', m <> 'pg'),
       format('SET LOCAL mergepath.enable_sort = %s', m <> 'pg'),
       format('SET LOCAL mergepath.enable_join = %s', m <> 'pg'),
       format('SELECT bench_time_query(%s, %L, %L, %L, %s)', :workers, name, m,
              CASE WHEN m = 'pg' THEN pq ELSE q END, :reps),
       'COMMIT'
FROM (VALUES
  (1, 'per-row gpu_intersect', 'SELECT sum(cardinality(gpu_intersect(a, b))) FROM arrs',
      'SELECT sum(cardinality(gpu_intersect(a, b))) FROM arrs'),
  (2, 'per-row gpu_merge', 'SELECT sum(cardinality(gpu_merge(a, b))) FROM arrs',
      'SELECT sum(cardinality(gpu_merge(a, b))) FROM arrs'),
  (3, 'aggregate, whole table', 'SELECT cardinality(gpu_sort_agg(v)) FROM rows_a',
      'SELECT cardinality(array_agg(v ORDER BY v)) FROM rows_a'),
  (4, 'aggregate, by the distribution column', 'SELECT sum(cardinality(x)) FROM (SELECT g, gpu_sort_agg(v) x FROM rows_g GROUP BY g) s',
      'SELECT sum(cardinality(x)) FROM (SELECT g, array_agg(v ORDER BY v) x FROM rows_g GROUP BY g) s'),
  (5, 'aggregate, 1000 groups', 'SELECT sum(cardinality(x)) FROM (SELECT g, gpu_merge_agg(a) x FROM arrs GROUP BY g) s',
      'SELECT sum(cardinality(x)) FROM (SELECT g, array_agg(e ORDER BY e) x FROM arrs, unnest(a) e GROUP BY g) s'),
  (6, 'sort on the workers', 'SELECT max(rn) FROM (SELECT row_number() OVER (PARTITION BY id ORDER BY k) rn FROM rows_a) s',
      'SELECT max(rn) FROM (SELECT row_number() OVER (PARTITION BY id ORDER BY k) rn FROM rows_a) s'),
  (7, 'co-located join', 'SELECT count(*), sum(a.v::int8 + b.w) FROM rows_a a JOIN rows_b b USING (id)',
      'SELECT count(*), sum(a.v::int8 + b.w) FROM rows_a a JOIN rows_b b USING (id)'))
  AS qs(qi, name, q, pq),
  unnest(CASE WHEN (SELECT bool_and(result::bool) FROM run_command_on_workers(
                     $$SELECT (mergepath_info()->'gpu'->>'available')::bool$$))
              THEN ARRAY['pg', 'cpu', 'gpu'] ELSE ARRAY['pg', 'cpu'] END) m
WHERE m = ANY (string_to_array(:'methods', ','))
  AND qi = ANY (string_to_array(:'queries', ',')::int[])
ORDER BY qi, m \gexec

SELECT query, workers,
       max(ms) FILTER (WHERE method = 'pg') AS off,
       max(ms) FILTER (WHERE method = 'cpu') AS cpu,
       max(ms) FILTER (WHERE method = 'gpu') AS gpu,
       max(coord_cpu_ms) FILTER (WHERE method = 'cpu') AS "coordinator cpu: cpu",
       max(coord_cpu_ms) FILTER (WHERE method = 'gpu') AS gpu,
       max(final_ms) FILTER (WHERE method = 'cpu') AS "its last call: cpu",
       max(final_ms) FILTER (WHERE method = 'gpu') AS gpu
FROM bench_timings GROUP BY query, workers ORDER BY min(ctid);
\copy bench_timings TO PROGRAM 'cat >> /tmp/mergepath-citus-bench.tsv'

-- with explain set: each shard query's plan and time (citus.explain_all_tasks)
-- for the per-row call and the join, under mergepath.device = auto
\if :{?explain}
SET citus.explain_all_tasks = on;
EXPLAIN (ANALYZE, COSTS OFF) SELECT sum(cardinality(gpu_intersect(a, b))) FROM arrs;
EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*), sum(a.v::int8 + b.w) FROM rows_a a JOIN rows_b b USING (id);
\endif
