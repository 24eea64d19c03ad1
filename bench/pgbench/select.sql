-- point SELECT, uniform over the loaded keys
\set r random(0, :n - 1)
SELECT v FROM @TABLE@ WHERE @KEYEQ(:r)@;
