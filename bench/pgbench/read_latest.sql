-- YCSB-D read part: read a recently inserted row (Zipf over recency)
\set off random_zipfian(1, :n, 1.01)
SELECT t.v FROM @TABLE@ t, (SELECT greatest(last_value - :off, 0) AS x FROM @SEQ@) s WHERE @KEYEQ(s.x, t.)@;
