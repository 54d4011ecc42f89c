-- What the GPU test scripts share: a check that stops the script with what
-- failed, and names what passed.
CREATE FUNCTION pg_temp.expect(ok bool, what text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION '% fails', what;
  END IF;
  RETURN 'ok: ' || what;
END $$;
