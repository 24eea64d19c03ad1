-- YCSB-E scan part: Zipf-skewed start key, 1-100 rows
\set r permute(random_zipfian(1, :n, 1.01) - 1, :n, :seed)
\set len random(1, 100)
SELECT @KEYCOLS@ FROM @TABLE@ WHERE @KEYGE(:r)@ ORDER BY @KEYCOLS@ LIMIT :len;
