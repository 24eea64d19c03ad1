-- short range scan, 1-50 rows, ORDER BY the key (index-only after VACUUM)
\set r random(0, :n - 1)
\set len random(1, 50)
SELECT @KEYCOLS@ FROM @TABLE@ WHERE @KEYGE(:r)@ ORDER BY @KEYCOLS@ LIMIT :len;
