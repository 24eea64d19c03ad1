
# The resource manager describes each of its records, with and without
# full-page images (pg_walinspect calls rm_desc in the backend, so a
# description that reads block data a full-page image replaced crashes the
# server).  Dense leaves that convert instead of splitting log REBUILD
# records; with a checkpoint after every 80 inserts, many of them are their
# leaf's first change since the checkpoint and carry its image instead of
# its description.  A leaf group index and VACUUM add the other records
# (VACUUM deletes leaves emptied by a range delete: UNLINK).
# Skipped where pg_walinspect is not installed.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $node = pbt_new_node('wal_desc', rmgr => 1,
	conf => "autovacuum = off\nwal_keep_size = '1GB'\n");
$node->start;
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION pg_walinspect');
if ($ret != 0)
{
	$node->stop;
	plan skip_all => 'pg_walinspect is not installed';
}
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE wodd (k int8) WITH (autovacuum_enabled = off);
INSERT INTO wodd SELECT g * 2 + 1 FROM generate_series(1, 20000) g;
CREATE INDEX wodd_k ON wodd USING pagebtree (k);
CREATE TABLE wsrc AS
  SELECT g * 2 AS k, row_number() OVER (ORDER BY md5(g::text)) AS rn
  FROM generate_series(1, 20000) g;
CREATE TABLE wg (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX wg_k ON wg USING pagebtree (k) WITH (leaf_group_size = 4);
CHECKPOINT;
});
my $start = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$node->safe_psql(
	'postgres', q{
DO $$ BEGIN FOR b IN 0..249 LOOP
  INSERT INTO wodd SELECT k FROM wsrc WHERE rn > b * 80 AND rn <= b * 80 + 80;
  INSERT INTO wg SELECT (k * 7919) % 100003 FROM wsrc WHERE rn > b * 80 AND rn <= b * 80 + 80;
  CHECKPOINT;
END LOOP; END $$;
DELETE FROM wg WHERE k % 3 = 0;
VACUUM wg;
DELETE FROM wodd WHERE k < 20000;
VACUUM wodd;
SELECT pg_switch_wal();
});

my $records = $node->safe_psql(
	'postgres', qq{
SELECT record_type || ':' || count(*) || ':' || count(*) FILTER (WHERE fpi_length > 0)
       || ':' || count(*) FILTER (WHERE description IS NOT NULL AND description <> '')
FROM pg_get_wal_records_info('$start', pg_current_wal_flush_lsn())
WHERE resource_manager = 'pagebtree'
GROUP BY record_type ORDER BY record_type});
my %n;
for my $line (split /\n/, $records)
{
	my ($type, $count, $fpis, $described) = split /:/, $line;
	$n{$type} = { count => $count, fpis => $fpis, described => $described };
	is($described, $count, "every $type record is described");
}
ok($n{REBUILD} && $n{REBUILD}{fpis} > 0,
	'REBUILD records with a full-page image were described (' . ($n{REBUILD}{fpis} // 0) . ')');
ok($n{GROUP_REWRITE} && $n{GROUP_REWRITE}{count} > 0, 'GROUP_REWRITE records were described');
ok($n{UNLINK} && $n{UNLINK}{count} > 0, 'UNLINK records (page deletions) were described');
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM pg_get_wal_records_info('$start', pg_current_wal_flush_lsn())
WHERE record_type = 'REBUILD' AND fpi_length > 0 AND description <> 'leaf logged whole'}),
	'0', 'a REBUILD record with an image says that the leaf is logged whole');

$node->stop;
done_testing();
