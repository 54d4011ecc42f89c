-- What the SQL benchmarks share: settings, extensions, and a timer.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mergepath;
CREATE EXTENSION IF NOT EXISTS intarray;
SET max_parallel_workers_per_gather = 0;

-- the median of a row of timings
CREATE FUNCTION pg_temp.median_of(t float8[]) RETURNS numeric LANGUAGE sql AS $$
  SELECT round(percentile_disc(0.5) WITHIN GROUP (ORDER BY x)::numeric, 2) FROM unnest(t) x $$;

-- median of reps runs of a query, in ms, after one warm-up run (unless the
-- caller has just run it)
CREATE FUNCTION pg_temp.median_ms(query text, reps int, warm_up bool DEFAULT true) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  times float8[] := '{}';
BEGIN
  IF warm_up THEN
    EXECUTE query;
  END IF;
  FOR i IN 1..reps LOOP
    t0 := clock_timestamp();
    EXECUTE query;
    times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
  END LOOP;
  RETURN round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t)::numeric, 2);
END $$;

-- the same with mergepath.device set to device for the query ('' leaves it)
CREATE FUNCTION pg_temp.on_backend(device text, query text, reps int, warm_up bool DEFAULT true)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE ms numeric;
BEGIN
  IF device <> '' THEN
    PERFORM set_config('mergepath.device', device, true);
  END IF;
  ms := pg_temp.median_ms(query, reps, warm_up);
  PERFORM set_config('mergepath.device', 'auto', true);
  RETURN ms;
END $$;
