-- insert one new row; its key is a function of a fresh ordinal from the
-- table's own sequence (random positions for sparse/url/title/uuid,
-- ascending for dense, interleaved ascending ranges for composite)
INSERT INTO @TABLE@ (o, @KEYCOLS@, v) SELECT s.o, @KEYEXPRS(s.o)@, 0 FROM (SELECT nextval('@SEQ@') AS o) s;
