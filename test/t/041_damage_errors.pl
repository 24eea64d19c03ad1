# Damage that once crashed a server, stopped it (PANIC) or looped, found by
# fuzzing pages (session 83): each must now give an ERROR, with the library
# preloaded, so that changes run in critical sections where an error is a
# PANIC; restart_after_crash is off, so a crash would also fail every test
# after it.
# - A leaf whose left sibling is flagged deleted but still links to it: a
#   backward scan asked the leaf for its left-link forever.
# - A leaf flagged as a metapage (and as a split without its downlink): the
#   verifier skipped its checks and read its high key at a wild offset.
# - A numeric (comparator mode) entry whose varlena header claims 300 MB:
#   an index-only scan handed it to the executor, which read past it.
# - A heads entry whose heap TID offset is 0, and a leaf of an index without
#   groups flagged as the first hole of a group: VACUUM passed the TID to
#   the heap's callback, and reclaimed a "group" of no blocks in a
#   critical section.
# - Pending entries of a run re-coded to share 7 bytes with its first, which
#   the encoder never writes (it shares 8 or more, or none): VACUUM's
#   rewrite of the run stored them whole, overflowing the slot (PANIC).
# - A plain leaf with garbage and no room in its hole, one of whose slots
#   points past the page: an insert compacted it in its critical section.
# Found then and fixed later (session 84):
# - A lists leaf whose key directory gives two keys wrong first positions,
#   which scans pass over: VACUUM's deletion met them in its critical
#   section (PANIC).
# - A BPA leaf whose logged entry's length points past the page: the insert
#   that filled the log flushed it in its critical section (PANIC).
# - A heads entry's length stretched within the page, so that its heap TID
#   is read from the next entry's bytes: scans returned one row twice and
#   missed another, and the verifier passed.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $node = pbt_new_node('damage_errors', rmgr => 1, delta_always => 1,
	conf => "autovacuum = off\nignore_checksum_failure = on\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pagebtree');
# one heads index of 20,000 int8 keys per case of leaf damage
$node->safe_psql('postgres', qq{
CREATE TABLE $_ (k int8);
INSERT INTO $_ SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX ${_}_i ON $_ USING pagebtree (k) WITH (layout = heads);
}) for qw(wl mf t0 og sl);
$node->safe_psql('postgres', q{
CREATE TABLE nm (n numeric);
INSERT INTO nm SELECT g::numeric / 7 FROM generate_series(1, 5000) g;
CREATE INDEX nm_i ON nm USING pagebtree (n);
CREATE TABLE rg (u text COLLATE "C");
INSERT INTO rg SELECT 'https://example.com/some/long/path/' || lpad((g * 10)::text, 8, '0')
FROM generate_series(1, 30000) g;
CREATE INDEX rg_i ON rg USING pagebtree (u) WITH (delta = on, fillfactor = 100);
CREATE TABLE pc (k int8);
CREATE INDEX pc_i ON pc USING pagebtree (k) WITH (layout = plain, fillfactor = 100);
INSERT INTO pc SELECT g * 10 FROM generate_series(1, 20000) g;
CREATE TABLE ls (k int8);
INSERT INTO ls SELECT g / 20 FROM generate_series(1, 40000) g;
CREATE INDEX ls_i ON ls USING pagebtree (k) WITH (delta = off);
CREATE TABLE bp (k int8);
CREATE INDEX bp_i ON bp USING pagebtree (k) WITH (layout = bpa, delta = off);
INSERT INTO bp SELECT (g * 7919) % 50000 FROM generate_series(1, 50000) g;
VACUUM wl, mf, nm, t0, og, rg, pc, sl, ls, bp;
});

my $special = 8192 - 32;
my $flags_off = $special + 18;

sub path_of
{
	my ($idx) = @_;
	return $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
}

sub read_block
{
	my ($file, $blk) = @_;
	open(my $fh, '<', $file) or die "open $file: $!";
	binmode $fh;
	seek($fh, $blk * 8192, 0) or die "seek: $!";
	read($fh, my $page, 8192) == 8192 or die "read: $!";
	close($fh);
	return $page;
}

sub write_block
{
	my ($file, $blk, $page) = @_;
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode $fh;
	seek($fh, $blk * 8192, 0) or die "seek: $!";
	print $fh $page;
	close($fh);
}

sub u16 { return unpack('v', substr($_[0], $_[1], 2)); }
sub set16 { substr($_[0], $_[1], 2) = pack('v', $_[2]); }

# the first leaf after block 5 with a left sibling
sub some_leaf
{
	my ($idx) = @_;
	return $node->safe_psql('postgres', qq{
SELECT min(b) FROM generate_series(6, pg_relation_size('$idx') / 8192 - 1) b,
  pagebtree_page_stats('$idx', b) s
WHERE s.page_type = 'leaf' AND s.prev IS NOT NULL});
}

# plain: fill leaf 2 (keys up to its high key) until its hole cannot take
# an entry (15 bytes and a 4-byte slot, with MAXALIGN's slack), with
# garbage from deleted entries, so that the next insert there compacts it
# (less than PBT_COMPACT_GARBAGE's 512 bytes in all, which VACUUM would
# compact away itself: the leaf has some 330 from its splits' high keys)
my $pc_high = $node->safe_psql('postgres', q{
SELECT max(k) FROM pc WHERE ctid IN (SELECT heap_tid FROM pagebtree_page_items('pc_i', 2))});
$node->safe_psql('postgres', qq{
DELETE FROM pc WHERE k BETWEEN $pc_high - 3000 AND $pc_high - 100 AND k % 1000 = 0;
VACUUM pc;
DO \$\$
BEGIN
	WHILE (SELECT free_size - garbage_size FROM pagebtree_page_stats('pc_i', 2)) >= 27
	LOOP
		INSERT INTO pc VALUES ($pc_high - 5);
	END LOOP;
END \$\$;
});
ok($node->safe_psql('postgres', "SELECT garbage_size > 0 FROM pagebtree_page_stats('pc_i', 2)") eq 't',
	'pc: leaf 2 has garbage and a full hole');

# the run: entries of one leaf's key range appended to its run
my $rg_leaf = some_leaf('rg_i');
my $rg_low = $node->safe_psql('postgres', qq{
SELECT min(u) FROM rg WHERE ctid IN (SELECT heap_tid FROM pagebtree_page_items('rg_i', $rg_leaf))});
$node->safe_psql('postgres', qq{
INSERT INTO rg SELECT '$rg_low' || '-' || substr(md5(g::text), 1, 7) FROM generate_series(1, 12) g});
my ($rg_side, $rg_entries) = split /\|/, $node->safe_psql('postgres',
	"SELECT side_block, entries FROM pagebtree_runs('rg_i') WHERE leaf = $rg_leaf");
is($rg_entries, 12, 'rg: the twelve new keys are pending in the leaf\'s run');
my $rg_group = $node->safe_psql('postgres', "SELECT delta_group FROM pagebtree_metapage('rg_i')");

# lists: a leaf of at least 16 keys
my $ls_leaf = $node->safe_psql('postgres', q{
SELECT min(b) FROM generate_series(1, pg_relation_size('ls_i') / 8192 - 1) b,
  pagebtree_page_stats('ls_i', b) s
WHERE s.layout = 'lists' AND s.next IS NOT NULL});
ok($ls_leaf, "ls: leaf $ls_leaf has the lists layout");

# BPA: a leaf whose log holds entries and has room for two more (header
# after the page header: nblocks, log_count, log_cap, block_cap, nitems,
# prefix_len), and one of its keys, to insert again
my ($bp_leaf, $bp_log_cap, $bp_key);
$node->safe_psql('postgres', 'CHECKPOINT');
my $bp_path = path_of('bp_i');
for my $b (1 .. $node->safe_psql('postgres', "SELECT pg_relation_size('bp_i') / 8192 - 1"))
{
	next unless $node->safe_psql('postgres',
		"SELECT layout = 'bpa' AND page_type = 'leaf' FROM pagebtree_page_stats('bp_i', $b)") eq 't';
	my $page = read_block($bp_path, $b);
	my ($log_count, $log_cap) = (u16($page, 26), ord(substr($page, 28, 1)));
	if ($log_count > 0 && $log_count < $log_cap - 2)
	{
		($bp_leaf, $bp_log_cap) = ($b, $log_cap);
		last;
	}
}
ok($bp_leaf, "bp: leaf $bp_leaf has entries in its log");
$bp_key = $node->safe_psql('postgres', qq{
SELECT k FROM bp WHERE ctid = (SELECT heap_tid FROM pagebtree_page_items('bp_i', $bp_leaf) LIMIT 1 OFFSET 5)});

my $sl_leaf = some_leaf('sl_i');
my @idx = qw(wl_i mf_i nm_i t0_i og_i rg_i pc_i sl_i ls_i bp_i);
is($node->safe_psql('postgres', "SELECT pagebtree_check('$_', true)"), '', "$_ passes before the damage")
  for @idx;
my %path = map { $_ => path_of($_) } @idx;
my $wl_leaf = some_leaf('wl_i');
my $wl_left = $node->safe_psql('postgres', "SELECT prev FROM pagebtree_page_stats('wl_i', $wl_leaf)");
my $mf_leaf = some_leaf('mf_i');
my $t0_leaf = some_leaf('t0_i');
my $og_leaf = some_leaf('og_i');
$node->stop;

# wl: the left sibling flagged deleted
my $page = read_block($path{wl_i}, $wl_left);
set16($page, $flags_off, u16($page, $flags_off) | 0x20);
write_block($path{wl_i}, $wl_left, $page);

# mf: META | INCOMPLETE_SPLIT, high key offset past the page
$page = read_block($path{mf_i}, $mf_leaf);
set16($page, $flags_off, u16($page, $flags_off) | 0x0C);
set16($page, $special + 20, 0xFFF0);
write_block($path{mf_i}, $mf_leaf, $page);

# nm: leaf 2's first entry (an IndexTuple: TID, t_info, then the numeric's
# varlena header at the next MAXALIGN) given a 4-byte header of 302 MB
$page = read_block($path{nm_i}, 2);
substr($page, u16($page, 24) + 8, 4) = pack('C4', 0, 0, 0, 0x48);
write_block($path{nm_i}, 2, $page);

# t0: heads slot 5's remainder ends with its heap TID's offset: set it to 0
# (slots of 8 bytes after the header and 16 hints, at 24 + 8 + 64)
$page = read_block($path{t0_i}, $t0_leaf);
my $slot5 = 96 + 5 * 8;
my $tid_end = u16($page, $slot5) + (u16($page, $slot5 + 2) & 0x7fff) - 4;
set16($page, $tid_end - 2, 0);
write_block($path{t0_i}, $t0_leaf, $page);

# og: GROUP | HOLE, group position 0 of 2, in an index without groups
$page = read_block($path{og_i}, $og_leaf);
set16($page, $flags_off, u16($page, $flags_off) | 0x300);
substr($page, $special + 29, 2) = pack('C2', 0, 2);
write_block($path{og_i}, $og_leaf, $page);

# rg: the run's later entries that share 8 or more bytes re-coded to share
# 7 (their stored bytes unchanged, so each stands for a shorter key)
my $slot_size = int(int(8136 / $rg_group) / 8) * 8;
my $slot_off = 24 + (($rg_leaf - 1) % ($rg_group + 1) - 1) * $slot_size;
$page = read_block($path{rg_i}, $rg_side);
my $p = $slot_off + 8;
my $end = $p + u16($page, $slot_off + 2);
my ($first, $recoded) = (1, 0);
while ($p < $end)
{
	my $word = u16($page, $p);
	my $len = $word & 0x3fff;
	my $shared = ($word & 0x8000) ? ord(substr($page, $p + 2, 1)) : 0;
	if (!$first && $shared > 7)
	{
		set16($page, $p, ($len - ($shared - 7)) | 0x8000);
		substr($page, $p + 2, 1) = chr(7);
		$recoded++;
	}
	$p += 2 + (($word & 0x8000) ? 1 : 0) + $len - $shared;
	$first = 0;
}
write_block($path{rg_i}, $rg_side, $page);
ok($recoded > 0, "rg: $recoded pending entries re-coded to share 7 bytes");

# pc: leaf 2's slot 1 points past the page (plain slots {off, len} at 24)
$page = read_block($path{pc_i}, 2);
set16($page, 24 + 4, 8185);
write_block($path{pc_i}, 2, $page);

# ls: directory entries (first, off, len: 6 bytes from 24 + 10) 9, 10, 13
# and 14 given first positions that leave 9 to 13 unreached by a scan's
# binary search, and 14's past the leaf's entries
$page = read_block($path{ls_i}, $ls_leaf);
my $dir = 34;
set16($page, $dir + 9 * 6, 2 * u16($page, $dir + 9 * 6));
set16($page, $dir + 10 * 6, 0);
set16($page, $dir + 13 * 6, u16($page, $dir + 13 * 6) + 16);
set16($page, $dir + 14 * 6, 8160);
write_block($path{ls_i}, $ls_leaf, $page);

# bp: the log's first entry (slots {off, len} after the header and its
# prefix, 2-aligned) given a length past the page
$page = read_block($path{bp_i}, $bp_leaf);
my $prefix_len = u16($page, 32);
set16($page, 34 + $prefix_len + ($prefix_len & 1) + 2, 0x7fff);
write_block($path{bp_i}, $bp_leaf, $page);

# sl: the heads slot whose entry is lowest in the page, its length
# stretched by 150 bytes, still within the item space
$page = read_block($path{sl_i}, $sl_leaf);
my ($sl_slot, $sl_low);
for (my $o = 96; $o < u16($page, 12); $o += 8)
{
	($sl_slot, $sl_low) = ($o, u16($page, $o)) if !defined $sl_low || u16($page, $o) < $sl_low;
}
set16($page, $sl_slot + 2, u16($page, $sl_slot + 2) + 150);
write_block($path{sl_i}, $sl_leaf, $page);
$node->start;

sub fails_with
{
	my ($sql, $re, $name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '60s'; SET enable_seqscan = off; SET enable_bitmapscan = off; $sql");
	like($err, $re, $name);
}

fails_with('SELECT count(*) FROM (SELECT k FROM wl ORDER BY k DESC) s',
	qr/index "wl_i" block $wl_leaf: the leaf's left-link leads to a page that does not link back/,
	'wl: a backward scan stops with an error instead of asking again forever');

fails_with("SELECT pagebtree_check('mf_i')",
	qr/index "mf_i" is corrupt at block $mf_leaf.*metapage flag on a page other than the metapage/,
	'mf: the verifier reports the flag instead of skipping the page');
fails_with('SELECT count(*) FROM (SELECT k FROM mf ORDER BY k) s',
	qr/index "mf_i" block $mf_leaf: a scan reached a page that is not a leaf/,
	'mf: a scan stops with an error');

like($node->safe_psql('postgres',
	'SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT n FROM nm ORDER BY n'),
	qr/Index Only Scan using nm_i/, 'nm: the ordered read is an index-only scan');
fails_with('SELECT count(*), max(length(n::text)) FROM (SELECT n FROM nm ORDER BY n) s',
	qr/item out of bounds/, 'nm: the index-only scan stops with an error');

fails_with('DELETE FROM t0 WHERE k % 10 = 0; VACUUM t0',
	qr/index "t0_i" block $t0_leaf: an entry's heap TID has an offset out of range/,
	't0: VACUUM reports the heap TID instead of passing it on');

fails_with('VACUUM og', qr/index "og_i" block $og_leaf: a subnode's group size differs from the index's/,
	'og: VACUUM reports the group flags of an index without groups');

fails_with("SELECT pagebtree_check('rg_i')",
	qr/index "rg_i" (is corrupt at )?block $rg_side.*run entr/,
	'rg: the verifier reports the re-coded entries');
fails_with("DELETE FROM rg WHERE u > 'https://example.com/some/long/path/0020'; VACUUM rg",
	qr/index "rg_i" block $rg_side: run entries are corrupt/,
	'rg: VACUUM stops with an error before it rewrites the run');

fails_with("INSERT INTO pc VALUES ($pc_high - 5)", qr/item out of bounds/,
	'pc: an insert that would compact the leaf stops with an error, not a PANIC');

fails_with('DELETE FROM ls WHERE k % 3 = 0; VACUUM ls',
	qr/index "ls_i" block $ls_leaf: lists/,
	'ls: VACUUM reports the directory before it deletes entries, not in a PANIC');

my $bp_err = '';
for (1 .. $bp_log_cap)
{
	my ($ret, $out, $err) = $node->psql('postgres', "INSERT INTO bp VALUES ($bp_key)");
	if ($ret != 0)
	{
		$bp_err = $err;
		last;
	}
}
# (a PBT_CHECKS build checks the page after each insert, and reports it)
like($bp_err, qr/ERROR:  (pagebtree page has a BPA item out of bounds|index "bp_i" is corrupt at block $bp_leaf, item 0: BPA log item out of bounds)/,
	'bp: the insert that would flush the log stops with an error, not a PANIC');

fails_with("SELECT pagebtree_check('sl_i')",
	qr/index "sl_i" is corrupt at block $sl_leaf.*length disagrees with its key columns/,
	'sl: the verifier reports the stretched entry');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up: no crash, no PANIC');
$node->stop('immediate');
done_testing();
