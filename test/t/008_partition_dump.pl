
# pg_dump and pg_restore of partitioned tables with pagebtree indexes (issue
# #26, item 2; the partitions themselves are tested by the regression test
# partitions).  A database with a range- and a list-partitioned table,
# pagebtree indexes on the parents (plain, multi-column with INCLUDE, with
# storage parameters), unique pagebtree indexes on the partitions, an
# attached partition whose own index was reused, is dumped with
# pg_dump -Fc and restored into a new database.  There every index is a
# pagebtree index again, with the same definition and options and the
# same place in the partitioned index tree, passes pagebtree_check, and
# answers as a sequential scan does and as the original database does.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $node = pbt_new_node('dump');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql(
	'src', q{
CREATE EXTENSION pagebtree;
CREATE TABLE pr (id int8 NOT NULL, created date NOT NULL, tenant int4 NOT NULL,
                 name text COLLATE "C" NOT NULL, amount numeric)
    PARTITION BY RANGE (created);
CREATE TABLE pr_2024 PARTITION OF pr FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE pr_2025 PARTITION OF pr FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE pr_2026 PARTITION OF pr FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
INSERT INTO pr
SELECT i, date '2024-01-01' + i % 1096, i % 37, 'n-' || lpad((i * 7919 % 30000)::text, 5, '0'),
       (i % 1000) / 10.0
FROM generate_series(1, 30000) i;
CREATE INDEX pr_name ON pr USING pagebtree (name) WITH (layout = bpa, fillfactor = 80);
CREATE INDEX pr_tenant ON pr USING pagebtree (tenant, created) INCLUDE (amount);
CREATE INDEX pr_amount ON pr USING pagebtree (amount DESC) WITH (delta = on);
CREATE UNIQUE INDEX pr_2024_id ON pr_2024 USING pagebtree (id, created);
CREATE UNIQUE INDEX pr_2025_id ON pr_2025 USING pagebtree (id, created);
CREATE UNIQUE INDEX pr_2026_id ON pr_2026 USING pagebtree (id, created);
-- an attached partition whose index is reused for pr_name
CREATE TABLE pr_2023 (LIKE pr);
INSERT INTO pr_2023
SELECT i, date '2023-01-01' + i % 365, i % 37, 'n-' || lpad((i * 7919 % 30000)::text, 5, '0'), 1
FROM generate_series(30001, 32000) i;
CREATE INDEX pr_2023_name_mine ON pr_2023 USING pagebtree (name) WITH (layout = bpa, fillfactor = 80);
ALTER TABLE pr ATTACH PARTITION pr_2023 FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');

CREATE TABLE pl (region text COLLATE "C" NOT NULL, id int8 NOT NULL, k int4, payload text)
    PARTITION BY LIST (region);
CREATE TABLE pl_eu PARTITION OF pl FOR VALUES IN ('de', 'fr', 'it');
CREATE TABLE pl_am PARTITION OF pl FOR VALUES IN ('us', 'ca');
CREATE TABLE pl_other PARTITION OF pl DEFAULT;
INSERT INTO pl
SELECT (ARRAY['de', 'fr', 'it', 'us', 'ca', 'jp', 'kr', 'cn', 'br', 'za'])[1 + i % 10],
       i, i % 500, md5(i::text)
FROM generate_series(1, 20000) i;
CREATE INDEX pl_k ON pl USING pagebtree (k);
CREATE INDEX pl_region_id ON pl USING pagebtree (region, id) INCLUDE (payload);
ANALYZE;
});

# every index of the database, with its access method, definition, options
# and parent index: one line each
my $indexes_sql = q{
SELECT c.relname, c.relkind, a.amname, pg_get_indexdef(c.oid), coalesce(c.reloptions::text, ''),
       coalesce(p.relname, '')
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_inherits h ON h.inhrelid = c.oid
LEFT JOIN pg_class p ON p.oid = h.inhparent
WHERE n.nspname = 'public'
ORDER BY 1};
my $src_indexes = $node->safe_psql('src', $indexes_sql);
is(scalar(() = $src_indexes =~ /\|pagebtree\|/g), 26, 'the source database has 26 pagebtree indexes (5 partitioned indexes, 21 indexes of partitions)');
unlike($src_indexes, qr/\|btree\|/, 'and no btree index');

my $dump = $node->basedir . '/src.dump';
command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('src') ], 'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE dst');
command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('dst'), $dump ], 'pg_restore');

is($node->safe_psql('dst', q{SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'}),
	'0.2', 'the restored database has the extension');
is($node->safe_psql('dst', $indexes_sql), $src_indexes,
	'the restored indexes are pagebtree indexes with the same definitions, options and parents');

# pagebtree_check on every index that has storage
my $checked = $node->safe_psql(
	'dst', q{
SELECT count(*) FILTER (WHERE pagebtree_check(c.oid, true)::text = '')
FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE a.amname = 'pagebtree' AND c.relkind = 'i'});
is($checked, '21', 'pagebtree_check passes on the 21 restored indexes of partitions');

$node->safe_psql('dst', 'ANALYZE');
my @queries = (
	[ q{SELECT name, id FROM pr WHERE name BETWEEN 'n-01000' AND 'n-01300' AND created >= '2025-06-01'},
	  qr/pr_20\d\d_name_idx/ ],
	[ q{SELECT name FROM pr WHERE name < 'n-00200'}, qr/pr_2023_name_mine/ ],
	[ q{SELECT tenant, created, amount FROM pr WHERE tenant = 5 AND created BETWEEN '2025-03-01' AND '2025-05-31'},
	  'pr_2025_tenant_created_amount_idx' ],
	[ q{SELECT id, created FROM pr WHERE id BETWEEN 100 AND 300 AND created < '2025-01-01' AND created >= '2024-01-01'},
	  'pr_2024_id' ],
	[ q{SELECT amount, id FROM pr WHERE amount > 99.5 AND created >= '2026-01-01'}, 'pr_2026_amount_idx' ],
	[ q{SELECT id, payload FROM pl WHERE region = 'fr' AND id BETWEEN 1000 AND 3000},
	  'pl_eu_region_id_payload_idx' ],
	[ q{SELECT region, id FROM pl WHERE k IN (3, 8, 499)}, qr/pl_\w+_k_idx/ ],
);
for my $q (@queries)
{
	my ($sql, $index) = @$q;
	pbt_index_vs_seqscan($node, 'dst', $sql, $index);
	my $idxonly = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my @restored = sort split /\n/, $node->safe_psql('dst', "$idxonly $sql");
	my @original = sort split /\n/, $node->safe_psql('src', "$idxonly $sql");
	is_deeply(\@restored, \@original, "dst: <$sql> returns what the original database does");
}

$node->stop;
done_testing();
