-- point SELECT, Zipf-skewed (pgbench allows s >= 1.001; 1.01 stands in for
-- 0.99), hot keys scattered over the key space with permute()
\set r permute(random_zipfian(1, :n, 1.01) - 1, :n, :seed)
SELECT v FROM @TABLE@ WHERE @KEYEQ(:r)@;
