
# The verifier reports damaged pages.  For each layout, one index page is
# damaged on disk while the server is stopped (a byte pattern that a
# software bug could leave: a stale hint, a count that disagrees with a
# bitmap, an item offset out of bounds, keys out of order, an unknown
# layout tag, a BPA block count beyond its capacity, a fingerprint that
# does not match its key), and pagebtree_check must fail with
# ERRCODE_INDEX_CORRUPTED and a message naming the problem.
# The undamaged indexes next to it must still pass, so the error is the
# damage and not the check itself.  In an index with leaf groups, the
# hints of a downlink are made to decrease: the verifier reports them, and
# lookups through the index still find their rows (hints only guess); and
# a subnode whose left neighbour ends with its first key is flagged as if
# it did not (key_start), and a subnode whose right neighbour in its group
# is flagged as a split that still needs a downlink, which the verifier
# reports.
# A leaf of an index of comparator keys (whose high keys the verifier does
# not compare) made to link to itself: the verifier reports the cycle, and
# does not walk it forever; a forward and a backward scan that circle it
# stop with an error.  The same in another such index whose root's
# downlink to the leaf's right neighbour now leads to the leaf: a lookup
# and an insert of the neighbour's keys move right round the cycle, and
# stop with an error instead of circling until statement_timeout.  A
# heads and a plain leaf whose entry length runs far past the page: the
# verifier reports it, and an index scan stops with an error instead of
# copying past its item buffer, a bitmap scan instead of reading a heap
# TID past the page.  A plain leaf entry's heap TID offset made larger
# than any table's: the verifier reports it, and an index scan and a
# bitmap scan stop with an error naming the index (the heap would skip the
# TID, and a bitmap fail without naming the index).  A posting leaf whose
# count is far past what a page holds: the verifier reports it, and an
# index scan and a bitmap scan stop with an error instead of overrunning
# arrays sized by a page's most items (a bitmap scan crashed).  A lists
# leaf whose TID width is past a TID's size: the verifier reports it, and
# scans and an insert stop with an error (the insert crashed); the same for
# a heads leaf whose leaf flag was cleared.  A lists leaf whose first
# key's directory entry points past the page takes an insert before its
# second key's entries (a PANIC before) and the verifier reports it.  A
# heads leaf whose middle slot points past the page: an insert of its key
# (which the search compared at that offset, and inserted where the
# garbage sent it) and a lookup stop with an error.
# A semidense leaf's INCLUDE value changed, well formed: the verifier's
# heap pass reports it.
# A semidense leaf's INCLUDE payload stored without its TID (the index's
# format version) whose t_info was zeroed, the mark of a payload with its
# TID: the verifier names the other form, and an index-only scan stops
# with an error.
# A semidense leaf's INCLUDE value whose varlena header claims more bytes
# than its entry holds: the verifier reports it, and an index-only scan
# stops with an error instead of reading past the entry.  A semidense
# leaf given posting's layout tag, which no index with INCLUDE columns
# gets: the verifier names the layout.  An index whose
# root block was overwritten by a copy of one of its leaves: the verifier
# reports it, and a lookup or an insert stops with an error (a split
# would otherwise wait for the lock it holds on that page, forever).  A
# leaf overwritten by a copy of the root above it, whose downlink then
# leads to itself: the verifier reports it, and a lookup and a scan from
# the index's first leaf stop with an error instead of descending forever.
# A subnode whose group epoch differs from its neighbours': the verifier
# reports it, a forward scan reads on past it, and a backward scan and
# VACUUM stop with an error instead of starting again forever.
# A pending entry in the delta area made to look like a run's reference
# entry, which only its first may be: the verifier, and a scan that reads
# the run, report it instead of reading on.  A run copied into the slot of
# a leaf group's hole, whose entries would appear when the hole joins its
# group: the verifier reports it.
# A metapage whose delta area geometry (leaves per side page) is 1, which
# no build makes, and one where it is another build's, so that a leaf lies
# where a side page would: an insert stops with an error instead of
# locking the leaf a second time as its side page, which waited forever,
# or appending to a side page whose slots are another size (a PANIC
# when the run overflowed the page's slot).
# A leaf linked to itself that must split: the split reports the link
# instead of locking the leaf again as its right sibling, forever.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $node = pbt_new_node('corruption', conf => 'ignore_checksum_failure = on');
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE c (k int8, s text COLLATE "C");
INSERT INTO c SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_heads ON c USING pagebtree (s);
CREATE INDEX c_heads_order ON c USING pagebtree (s);
CREATE INDEX c_dense ON c USING pagebtree (k);
CREATE INDEX c_plain ON c USING pagebtree (k) WITH (layout = plain);
CREATE INDEX c_bpa ON c USING pagebtree (s) WITH (layout = bpa);
CREATE INDEX c_fp ON c USING pagebtree (s) WITH (layout = fingerprint);
CREATE INDEX c_lists ON c USING pagebtree ((k / 20));
CREATE INDEX c_tag ON c USING pagebtree ((k + 0)) WITH (layout = plain);
CREATE INDEX c_intact ON c USING pagebtree (s);
CREATE INDEX c_group ON c USING pagebtree ((k * 2)) WITH (leaf_group_size = 4);
CREATE INDEX c_gdup ON c USING pagebtree ((k / 50))
  WITH (leaf_group_size = 4, deduplicate_items = off);
CREATE INDEX c_gsplit ON c USING pagebtree ((k * 3)) WITH (leaf_group_size = 4);
CREATE INDEX c_loop ON c USING pagebtree ((k::numeric));
CREATE INDEX c_heads_len ON c USING pagebtree ((s || 'x'));
CREATE INDEX c_plain_len ON c USING pagebtree ((k - 0)) WITH (layout = plain);
CREATE INDEX c_tid ON c USING pagebtree ((k + 1)) WITH (layout = plain);
CREATE INDEX c_post ON c USING pagebtree ((k / 5000));
CREATE TABLE ci (k int8, s text COLLATE "C");
INSERT INTO ci SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_inc ON ci USING pagebtree (k) INCLUDE (s);
CREATE INDEX c_incval ON ci USING pagebtree ((k * 2)) INCLUDE (s);
CREATE INDEX c_incpost ON ci USING pagebtree ((k * 3)) INCLUDE (s);
CREATE INDEX c_incform ON ci USING pagebtree ((k + 7)) INCLUDE (s);
VACUUM ci;
CREATE TABLE cg (k int8);
INSERT INTO cg SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_gepoch ON cg USING pagebtree ((k * 4)) WITH (leaf_group_size = 4);
CREATE TABLE cw (k int8);
INSERT INTO cw SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_lwidth ON cw USING pagebtree ((k / 20));
CREATE TABLE cf (s text COLLATE "C");
INSERT INTO cf SELECT md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_leafflag ON cf USING pagebtree (s);
CREATE TABLE cl (k int8);
INSERT INTO cl SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_ldir ON cl USING pagebtree ((k / 20));
CREATE TABLE co (s text COLLATE "C");
INSERT INTO co SELECT md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_heads_off ON co USING pagebtree (s);
CREATE TABLE cp (k int8) WITH (autovacuum_enabled = off);
INSERT INTO cp SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_lprev ON cp USING pagebtree ((k / 20)) WITH (delta = off);
DELETE FROM cp WHERE k BETWEEN 1 AND 200;
CREATE TABLE cs (k int8, s text COLLATE "C");
INSERT INTO cs SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_sdlconv ON cs USING pagebtree (k) INCLUDE (s);
CREATE TABLE ck (k int8);
INSERT INTO ck SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_innerlen ON ck USING pagebtree ((k + 2)) WITH (layout = plain);
CREATE TABLE cx (k int8);
INSERT INTO cx SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_dlsize ON cx USING pagebtree (k);
CREATE TABLE cn (k int8);
INSERT INTO cn SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_cmpvar ON cn USING pagebtree ((k::numeric * 3));
VACUUM cs;
VACUUM cp;
CREATE TABLE cc (k int8);
INSERT INTO cc SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_cycle ON cc USING pagebtree ((k::numeric));
CREATE TABLE cr (k int8);
INSERT INTO cr SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_root ON cr USING pagebtree ((k * 5));
CREATE INDEX c_levels ON cr USING pagebtree ((k * 7));
CREATE TABLE cd (s text COLLATE "C");
INSERT INTO cd SELECT md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_delta ON cd USING pagebtree (s) WITH (delta = on);
CREATE TABLE ch (s text COLLATE "C");
INSERT INTO ch SELECT md5(g::text) FROM generate_series(1, 3000) g;
CREATE INDEX c_dhole ON ch USING pagebtree (s) WITH (delta = on, leaf_group_size = 4);
CREATE TABLE cm (s text COLLATE "C");
INSERT INTO cm SELECT md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_mgroup ON cm USING pagebtree (s) WITH (delta = on);
CREATE TABLE cm2 (s text COLLATE "C");
INSERT INTO cm2 SELECT md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_mside ON cm2 USING pagebtree (s) WITH (delta = on);
CREATE TABLE cu (s text COLLATE "C");
INSERT INTO cu SELECT md5(g::text) FROM generate_series(1, 3000) g;
CREATE INDEX c_dused ON cu USING pagebtree (s) WITH (delta = on);
CREATE TABLE cb (s text COLLATE "C");
INSERT INTO cb SELECT md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX c_gbpa ON cb USING pagebtree (s) WITH (layout = bpa, leaf_group_size = 4);
CREATE TABLE cg1 (s text COLLATE "C");
INSERT INTO cg1 SELECT md5(g::text) FROM generate_series(1, 200000) g;
CREATE INDEX c_g1link ON cg1 USING pagebtree (s) WITH (leaf_group_size = 4);
CREATE TABLE cq (k int8);
INSERT INTO cq SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX c_selflink ON cq USING pagebtree (k) WITH (layout = plain, delta = off);
SET pagebtree.delta_append_always = on;
INSERT INTO cd VALUES ('0000a'), ('0000b'), ('0000c');
INSERT INTO cm2 VALUES ('0000a');
INSERT INTO cu VALUES ('0000a');
INSERT INTO ch VALUES ('ffffa'), ('ffffb');
CHECKPOINT;
});

# the first leaf of an index with the given layout, as a block number
sub leaf_of
{
	my ($idx, $layout) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT min(b) FROM generate_series(1, pg_relation_size('$idx') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('$idx', b) s
WHERE s.page_type = 'leaf' AND s.layout = '$layout'});
}

# the offset on its side page and the size of leaf $leaf's run slot, with
# $group leaves per side page (a side page is followed by its $group
# leaves; after the page header, slots of MAXALIGN_DOWN(8136 / $group)
# bytes, one per leaf in block order)
sub run_slot
{
	my ($leaf, $group) = @_;
	my $size = int(8136 / $group / 8) * 8;
	return (24 + (($leaf - 1) % ($group + 1) - 1) * $size, $size);
}

# $len bytes at offset $off of $file
sub read_bytes
{
	my ($file, $off, $len) = @_;
	open(my $fh, '<', $file) or die "open $file: $!";
	binmode $fh;
	seek($fh, $off, 0) or die "seek: $!";
	read($fh, my $bytes, $len) == $len or die "read: $!";
	close($fh);
	return $bytes;
}

# Byte offsets within a page (after the 24-byte page header):
#   heads: prefix_off, prefix_len, hint_count, unused (2 bytes each), then
#          16 four-byte hints; slots of 8 bytes {off, len, head} at 96
#   dense: item_len, prefix_off, prefix_len, capacity, count (2 bytes each)
#   plain: slots of 4 bytes {off, len} at 24
#   posting: count, key_len, prefix_off (2 bytes each), width (1 byte)
#   bpa:   nblocks, log_count (2 bytes each), log_cap, block_cap (1 byte
#          each), nitems, prefix_len (2 bytes each), the prefix (padded to
#          an even length); 8 log slots of 4 bytes; then block 0's count
#   fingerprint: count, nsorted, fp_cap, prefix_len (2 bytes each), the
#          prefix (padded to an even length), then one fingerprint byte per
#          entry (flipped: every bit inverted)
#   special space (the last 32 bytes, PbtPageOpaqueData): the layout tag
#          is its byte 24
my @cases = (
	{ idx => 'c_heads', layout => 'heads', off => 24 + 8 + 4 * 5,
	  bytes => "\xff\xff\xff\xff", msg => qr/hint does not match the head it samples/ },
	{ idx => 'c_heads_order', layout => 'heads', off => 96 + 8 * 3 + 4,
	  bytes => "\x01\x01\x01\x01", msg => qr/keys out of order/ },
	{ idx => 'c_dense', layout => 'dense', off => 24 + 8,
	  bytes => "\x01\x00", msg => qr/dense item count disagrees with the presence bitmap/ },
	{ idx => 'c_plain', layout => 'plain', off => 24 + 4 * 2,
	  bytes => "\xf0\x1f", msg => qr/item bytes out of bounds/ },
	{ idx => 'c_bpa', layout => 'bpa', off => \&first_bpa_block,
	  bytes => "\x11\x00", msg => qr/BPA block count exceeds its capacity/ },
	{ idx => 'c_fp', layout => 'fingerprint', off => \&first_fingerprint,
	  msg => qr/fingerprint does not match its key/ },
	# the second key's first position (after the 10-byte header and the
	# first 6-byte directory entry) set to the first key's, 0
	{ idx => 'c_lists', layout => 'lists', off => 24 + 10 + 6,
	  bytes => "\x00\x00", msg => qr/lists key's first entry out of order/ },
	# an entry's length (slot 2's second field) far past what a page holds:
	# scans must not copy that much into their item buffer
	# (bitmap scans too: they read the entries' heap TIDs only)
	{ idx => 'c_heads_len', layout => 'heads', off => 96 + 8 * 2 + 2,
	  bytes => "\x00\x3f", msg => qr/item length out of bounds/,
	  scan => q{SELECT count(*) FROM c WHERE s || 'x' > ''}, bitmap => 1 },
	{ idx => 'c_plain_len', layout => 'plain', off => 24 + 4 * 2 + 2,
	  bytes => "\x00\x3f", msg => qr/out of bounds/,
	  scan => 'SELECT count(*) FROM c WHERE k - 0 > 0', bitmap => 1 },
	# an entry's heap TID offset past what any page holds: an index scan
	# would lose the row (the heap skips the TID), a bitmap scan fail
	# without naming the index
	{ idx => 'c_tid', layout => 'plain', off => \&first_plain_tid_offset,
	  bytes => "\x80\x00", msg => qr/an item's heap TID has an invalid offset/,
	  scan => 'SELECT count(*) FROM c WHERE k + 1 > 0', bitmap => 1,
	  scan_msg => qr/index "c_tid" block \d+: an entry's heap TID has an offset out of range/ },
	# a posting leaf's count (the first 2 bytes after the page header) far
	# past what a page holds: scans sized arrays on the stack by it
	{ idx => 'c_post', layout => 'posting', off => 24, bytes => "\xff\xff",
	  msg => qr/posting entry count disagrees with pd_lower/,
	  scan => 'SELECT count(*) FROM c WHERE k / 5000 <= 3', bitmap => 1,
	  scan_msg => qr/pagebtree page header is damaged: posting entry count disagrees with pd_lower/ },
	# a lists leaf's TID width (byte 6 after the page header) past a TID's
	# 6 bytes: copies of TIDs and their shared prefix were sized by it (an
	# insert's search overran a buffer)
	{ idx => 'c_lwidth', layout => 'lists', off => 24 + 6, bytes => "\xc8",
	  msg => qr/lists TID width out of range/,
	  scan => 'SELECT count(*) FROM cw WHERE k / 20 <= 3', bitmap => 1,
	  insert => 'INSERT INTO cw VALUES (41)',
	  scan_msg => qr/pagebtree page header is damaged: lists TID width out of range/ },
	# a semidense leaf's layout tag (the special space's byte 24) made
	# posting's, a layout no index with INCLUDE columns gets (scans, which
	# know no index state there, find its items out of place)
	{ idx => 'c_incpost', layout => 'semidense', off => 8192 - 32 + 24, bytes => "\x08",
	  msg => qr/posting layout in an index with INCLUDE columns/,
	  scan => 'SELECT count(*) FROM ci WHERE k * 3 > 0', bitmap => 1,
	  scan_msg => qr/pagebtree page (has an item out of bounds|header is damaged: posting page has entries but no key)/ },
	# a heads leaf's flags (the special space's bytes 18-19) without the
	# leaf bit: an insert treated the page as an inner one and crashed
	{ idx => 'c_leafflag', layout => 'heads', off => 8192 - 32 + 18, bytes => "\x00",
	  msg => qr/leaf flag disagrees with level/,
	  scan => q{SELECT count(*) FROM cf WHERE s > ''}, bitmap => 1,
	  insert => q{INSERT INTO cf VALUES ('0')},
	  scan_msg => qr/scan reached a non-leaf page|pagebtree page header is damaged: leaf flag disagrees with level/ },
	# a lists leaf's first key directory entry (after the 10-byte header:
	# first position, offset, length) with its first position's high byte
	# set: a search took the position, 65,280 or more, and an insert (a
	# fold of a delta area's run) moved TIDs from there and crashed
	{ idx => 'c_ldir', layout => 'lists', off => 24 + 10 + 1, bytes => "\xff",
	  msg => qr/lists key's first entry out of order/,
	  scan => 'SELECT count(*) FROM cl WHERE k / 20 <= 3', bitmap => 1,
	  insert => 'INSERT INTO cl VALUES (5)',
	  scan_msg => qr/pagebtree page has a key directory entry out of bounds/ },
	# the numeric key of a comparator-mode leaf's first item (an
	# IndexTuple: heap TID, t_info, then the value at 8) given a 4-byte
	# varlena header claiming 64 MB: comparisons and scan keys read it
	# through the type's functions, past the page
	{ idx => 'c_cmpvar', layout => 'plain', off => sub {
			my ($file, $pageoff) = @_;
			return unpack('v', read_bytes($file, $pageoff + 24, 2)) + 8;
	  },
	  bytes => "\x00\x00\x00\x10", msg => qr/an index tuple's value runs past it/,
	  scan => 'SELECT count(*) FROM cn WHERE k::numeric * 3 < 30', bitmap => 1,
	  insert => 'INSERT INTO cn VALUES (1)',
	  scan_msg => qr/pagebtree page has an item out of bounds/ },
	# a BPA subnode's log capacity (byte 4 after the page header) 0:
	# pagebtree_groups walked its entries without checking its header and
	# crashed the server
	{ idx => 'c_gbpa', layout => 'bpa', off => 24 + 4, bytes => "\x00",
	  msg => qr/BPA header disagrees with the page's slot area/,
	  inspect => q{SELECT count(*) FROM pagebtree_groups('c_gbpa')},
	  inspect_msg => qr/pagebtree page header is damaged: BPA header disagrees with the page's slot area/ },
);

my %path;
for my $case (@cases)
{
	my $idx = $case->{idx};
	$case->{block} = leaf_of($idx, $case->{layout});
	ok($case->{block} ne '', "$idx has a $case->{layout} leaf");
	$path{$idx} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('$idx', true)"),
		'', "$idx passes before the damage");
}
# a later subnode whose left neighbour ends with its first key (50 entries
# a key) gets the key-start flag (bit 11 of the special space's flags at
# its byte 18, uint16; beside it only the group flag, bit 8), which says
# that its left neighbour holds no entry of its first key
{
	my $block = $node->safe_psql(
		'postgres', q{
SELECT min(b) FROM generate_series(1, pg_relation_size('c_gdup') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('c_gdup', b) s
WHERE s.page_type = 'leaf' AND s.flags ~ '^group=[1-3]/4 epoch=[0-9]+$'});
	ok($block ne '', 'c_gdup has a later subnode without the key-start flag');
	$path{c_gdup} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_gdup')");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('c_gdup', true)"),
		'', 'c_gdup passes before the damage');
	# (reported at the group's downlink, with the subnode's block)
	push @cases, { idx => 'c_gdup', block => $block, off => 8192 - 32 + 19,
		bytes => "\x09",
		at => qr/index "c_gdup" is corrupt at block \d+, item \d+: .*\n.*DETAIL:  child block $block$/m,
		msg => qr/a subnode flagged key-start holds a key that its left neighbour may hold/ };
}
# the first subnode at place $pos of a group of 4 in $idx whose right-link
# is the next subnode of its group, as a block number; the index passes
# the verifier before the damage
sub subnode_before_next
{
	my ($idx, $pos) = @_;
	my $block = $node->safe_psql(
		'postgres', qq{
SELECT min(s.blkno) FROM generate_series(1, pg_relation_size('$idx') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('$idx', b) s,
     LATERAL (SELECT * FROM pagebtree_page_stats('$idx', s.next::int8)
              WHERE s.next > 0) r
WHERE s.page_type = 'leaf' AND s.flags ~ '^group=$pos/4 '
  AND r.flags ~ '^group=@{[$pos + 1]}/4 '});
	ok($block ne '', "$idx has a subnode linked to the next one of its group");
	$path{$idx} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('$idx', true)"),
		'', "$idx passes before the damage");
	return $block;
}
# the incomplete-split flag (bit 3 of the same flags' first byte) on a
# subnode whose right-link is the next subnode of its group
{
	my $block = subnode_before_next('c_gsplit', 0);
	push @cases, { idx => 'c_gsplit', block => $block,
		off => 8192 - 32 + 18, bytes => "\x09",
		msg => qr/a subnode is flagged as split into a block of its own group/ };
}
# the epoch (the special space's bytes 8-15, little-endian) of a second
# subnode whose group has a third, made far larger
{
	my $block = subnode_before_next('c_gepoch', 1);
	push @cases, { idx => 'c_gepoch', block => $block,
		off => 8192 - 32 + 15, bytes => "\x7f",
		at => qr/index "c_gepoch" is corrupt at block \d+/,
		msg => qr/subnodes of one leaf group have different epochs/ };
}
# the last group's last subnode holds the run of the two keys, and the hole
# after it has the next slot of the same side page
{
	my ($leaf, $side, $group) = split /\|/, $node->safe_psql(
		'postgres', q{
SELECT r.leaf, r.side_block, m.delta_group
FROM pagebtree_runs('c_dhole') r, pagebtree_metapage('c_dhole') m WHERE r.entries > 0});
	my $hole = $leaf + 1;
	like($node->safe_psql('postgres', "SELECT flags FROM pagebtree_page_stats('c_dhole', $hole)"),
		qr/ hole$/, 'c_dhole: the block after the run\'s leaf is a hole');
	is(($hole - 1) % ($group + 1), ($leaf - 1) % ($group + 1) + 1,
		'c_dhole: its slot is the next one of the same side page');
	is($node->safe_psql('postgres', "SELECT pagebtree_check('c_dhole', true)"),
		'', 'c_dhole passes before the damage');
	$path{c_dhole} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_dhole')");
	my ($slot_off, $slot_size) = run_slot($leaf, $group);
	my $run = read_bytes($path{c_dhole}, $side * 8192 + $slot_off, $slot_size);
	push @cases, { idx => 'c_dhole', block => $side, off => $slot_off + $slot_size,
		bytes => $run, msg => qr/run of a block that is not a live leaf\nDETAIL:  block $hole/ };
}
# the first INCLUDE value (33 bytes: a one-byte varlena header, 0x43, then
# the md5) of a semidense leaf: in c_inc its header made to claim 127
# bytes, past its entry; in c_incval its first character changed to one
# no md5 has, so that the entry is well formed and only the heap pass,
# which compares it with its heap tuple, finds it (index-only scans would
# return it); in c_incform the payload's t_info before it zeroed
for my $case (
	{ idx => 'c_inc', off => \&first_md5_header, bytes => "\xff",
	  msg => qr/an index tuple's value runs past it/,
	  scan => 'SELECT sum(length(s)) FROM ci WHERE k > 0' },
	{ idx => 'c_incval', off => sub { first_md5_header(@_) + 1 }, bytes => 'x',
	  msg => qr/an entry's INCLUDE values differ from its heap tuple's/ },
	{ idx => 'c_incform', off => sub { first_md5_header(@_) - 2 }, bytes => "\x00\x00",
	  msg => qr/an item's INCLUDE payload is of another format version than its index/,
	  scan => 'SELECT sum(length(s)) FROM ci WHERE k + 7 > 0' })
{
	my $idx = $case->{idx};
	my $block = leaf_of($idx, 'semidense');
	ok($block ne '', "$idx has a semidense leaf");
	$path{$idx} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('$idx', true)"),
		'', "$idx passes before the damage");
	push @cases, { %$case, block => $block };
}
# slot 5's entry offset of a semidense leaf (the slots follow the 18-byte
# header and the presence bitmap, capacity bits in whole 8-byte words;
# capacity is the header's bytes 10-11) with its high byte set to 0xfe,
# past the page: an insert that converts the leaf to heads (another TID of
# its first key) read every entry inside its critical section, where the
# bounds error was a PANIC
{
	my $block = leaf_of('c_sdlconv', 'semidense');
	ok($block ne '', 'c_sdlconv has a semidense leaf');
	$path{c_sdlconv} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_sdlconv')");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('c_sdlconv', true)"),
		'', 'c_sdlconv passes before the damage');
	my $first = $node->safe_psql('postgres', qq{
SELECT k FROM cs WHERE ctid = (SELECT heap_tid FROM pagebtree_page_items('c_sdlconv', $block)
                               WHERE itemno = 0)});
	push @cases, { idx => 'c_sdlconv', block => $block,
		off => sub {
			my ($file, $pageoff) = @_;
			my $cap = unpack('v', read_bytes($file, $pageoff + 24 + 10, 2));
			return 24 + 18 + int(($cap + 63) / 64) * 8 + 2 * 5 + 1;
		},
		bytes => "\xfe",
		msg => qr/semidense entry out of bounds/,
		scan => 'SELECT count(*) FROM cs WHERE k > 0',
		insert => "INSERT INTO cs VALUES ($first, 'another')",
		scan_msg => qr/pagebtree page has (an item|a semidense entry) out of bounds/ };
}
# the middle slot's item offset on a heads leaf (slots of 8 bytes {off,
# len, head} at 96) far past the page: a search for its key without the
# hints probes that slot first, finds its head equal to the key's and
# compared the rest of the key at that offset, past the page (another
# buffer's bytes; in a fold's copy of the page, beyond the stack: a
# crash), so an insert of the key went in where the garbage sent it
{
	my $block = leaf_of('c_heads_off', 'heads');
	ok($block ne '', 'c_heads_off has a heads leaf');
	$path{c_heads_off} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_heads_off')");
	my $mid = int($node->safe_psql('postgres',
			"SELECT live_items FROM pagebtree_page_stats('c_heads_off', $block)") / 2);
	my $key = $node->safe_psql('postgres', qq{
SELECT s FROM co WHERE ctid = (SELECT heap_tid FROM pagebtree_page_items('c_heads_off', $block)
                               WHERE itemno = $mid)});
	my $lookup = "SET pagebtree.ablate_leaf_hints = on; SELECT count(*) FROM co WHERE s = '$key'";
	like($node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN SELECT count(*) FROM co WHERE s = '$key'"),
		qr/Index Only Scan using c_heads_off/, 'c_heads_off: a lookup of the middle slot\'s key reads the index');
	push @cases, { idx => 'c_heads_off', block => $block, off => 96 + 8 * $mid,
		bytes => "\xf0\xff", msg => qr/remainder bytes out of bounds/, scan => $lookup,
		insert => "SET pagebtree.ablate_leaf_hints = on; INSERT INTO co VALUES ('$key')",
		scan_msg => qr/pagebtree page has an item out of bounds/ };
}
# the second item's length on the root of a plain index (slot 1 of the
# 4-byte slots {offset, length} after the page header) set to 0, shorter
# than the downlink an inner item starts with: a descent copied the
# separator with a negative length and overran the stack
{
	my ($block, $level) = split /\|/,
	  $node->safe_psql('postgres', "SELECT root, level FROM pagebtree_metapage('c_innerlen')");
	is($level, 1, 'c_innerlen has a level-1 root');
	$path{c_innerlen} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_innerlen')");
	push @cases, { idx => 'c_innerlen', block => $block, off => 24 + 4 + 2,
		bytes => "\x00\x00", msg => qr/inner item shorter than a downlink|item bytes out of bounds/,
		scan => 'SELECT count(*) FROM ck WHERE k + 2 > 10', bitmap => 1,
		insert => 'INSERT INTO ck VALUES (3)',
		scan_msg => qr/pagebtree page has an inner item shorter than its downlink/,
		# (pagebtree_page_items took the separator's length to be negative
		# and did not report the page)
		inspect => "SELECT count(*) FROM pagebtree_page_items('c_innerlen', $block)",
		inspect_msg => qr/pagebtree page has an inner item shorter than its downlink/ };
}
# the root's downlink size (the special space's last byte: bytes after
# each item's child block number) made 255: an insert wrote its downlink
# by it, in a critical section (a PANIC)
{
	my ($block, $level) = split /\|/,
	  $node->safe_psql('postgres', "SELECT root, level FROM pagebtree_metapage('c_dlsize')");
	is($level, 1, 'c_dlsize has a level-1 root');
	$path{c_dlsize} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_dlsize')");
	push @cases, { idx => 'c_dlsize', block => $block, off => 8191,
		bytes => "\xff", msg => qr/out of bounds|downlinks of another size/,
		scan => 'SELECT count(*) FROM cx WHERE k > 10', bitmap => 1,
		insert => 'INSERT INTO cx VALUES (3)',
		scan_msg => qr/pagebtree page header is damaged: inner page has downlinks of another size than its index's/ };
}
my ($root_block, $root_level) = split /\|/,
  $node->safe_psql('postgres', "SELECT root, level FROM pagebtree_metapage('c_root')");
is($root_level, 1, 'c_root has a level-1 root');
my $root_copy = leaf_of('c_root', 'heads');
my ($levels_root, $levels_level) = split /\|/,
  $node->safe_psql('postgres', "SELECT root, level FROM pagebtree_metapage('c_levels')");
is($levels_level, 1, 'c_levels has a level-1 root');
my $levels_leaf = $node->safe_psql('postgres',
	"SELECT child FROM pagebtree_page_items('c_levels', $levels_root)
	 WHERE child IS NOT NULL ORDER BY itemno LIMIT 1");
for my $idx ('c_root', 'c_levels')
{
	$path{$idx} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
}
my $tag_block = leaf_of('c_tag', 'plain');
$path{c_tag} = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_tag')");
# the group index's root is its level-1 page, of the heads layout
my $group_root = $node->safe_psql('postgres',
	"SELECT root FROM pagebtree_metapage('c_group') WHERE level = 1");
ok($group_root ne '', 'c_group has a level-1 root');
is($node->safe_psql('postgres',
		"SELECT layout FROM pagebtree_page_stats('c_group', $group_root)"),
	'heads', 'its root is a heads page');
is($node->safe_psql('postgres', "SELECT pagebtree_check('c_group', true)"),
	'', 'c_group passes before the damage');
$path{c_group} = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_group')");
my $loop_block = $node->safe_psql(
	'postgres', q{
SELECT min(b) FROM generate_series(1, pg_relation_size('c_loop') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('c_loop', b) s
WHERE s.page_type = 'leaf' AND s.prev <> -1 AND s.next <> -1});
ok($loop_block ne '', 'c_loop has a leaf between two others');
$path{c_loop} = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_loop')");
# c_cycle: a leaf between two others, the downlink to its right neighbour
# in the (level-1, plain) root, and a key of that neighbour past its
# first (a lookup of its first key would read the leaf, then step right)
my ($cycle_block, $cycle_next, $cycle_root, $cycle_item, $cycle_key) = split /\|/,
  $node->safe_psql(
	'postgres', q{
SELECT s.blkno, s.next, m.root, i.itemno,
       (SELECT k FROM cc WHERE ctid = (SELECT heap_tid FROM pagebtree_page_items('c_cycle', s.next::int8)
                                      WHERE heap_tid IS NOT NULL OFFSET 10 LIMIT 1))
FROM generate_series(1, pg_relation_size('c_cycle') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('c_cycle', b) s,
     pagebtree_metapage('c_cycle') m, pagebtree_page_items('c_cycle', m.root) i
WHERE s.page_type = 'leaf' AND s.prev <> -1 AND s.next <> -1 AND i.child = s.next
  AND m.level = 1
ORDER BY s.blkno LIMIT 1});
ok($cycle_key ne '', 'c_cycle has a leaf between two others, under its root');
is($node->safe_psql('postgres', "SELECT layout FROM pagebtree_page_stats('c_cycle', $cycle_root)"),
	'plain', 'c_cycle: its root is a plain page');
$path{c_cycle} = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_cycle')");

# the run of the three keys: its side page and its slot's offset there
my ($run_leaf, $run_side, $run_entries, $delta_group) = split /\|/, $node->safe_psql(
	'postgres', q{
SELECT r.leaf, r.side_block, r.entries, m.delta_group
FROM pagebtree_runs('c_delta') r, pagebtree_metapage('c_delta') m WHERE r.entries > 0});
is($run_entries, 3, 'c_delta: the three keys are pending in one run');
is($node->safe_psql('postgres', "SELECT pagebtree_check('c_delta', true)"),
	'', 'c_delta passes before the damage');
$path{c_delta} = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_delta')");

# c_lprev: its first lists leaf starts with key 10 (k = 201), then key 11;
# a row of key 11 inserted now takes heap page 0, freed by the DELETE, so
# its entry goes before key 11's first
my $lprev_block = leaf_of('c_lprev', 'lists');
is($node->safe_psql('postgres',
		"SELECT string_agg(key::text, ',') FROM (SELECT DISTINCT k / 20 AS key FROM cp WHERE ctid IN
		   (SELECT heap_tid FROM pagebtree_page_items('c_lprev', $lprev_block)) ORDER BY 1 LIMIT 2) x"),
	'10,11', 'c_lprev: its first lists leaf starts with keys 10 and 11');
$path{c_lprev} = $node->data_dir . '/'
  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_lprev')");

# the first leaf of $idx among blocks $first to $last (all: undef) that
# meets $cond, and the key of its first entry ($col of $table)
sub leaf_and_key
{
	my ($idx, $table, $col, $cond, $first, $last) = @_;
	$first //= 1;
	$last //= "pg_relation_size('$idx') / 8192 - 1";
	return split /\|/, $node->safe_psql(
		'postgres', qq{
SELECT s.blkno, (SELECT $col FROM $table WHERE ctid = i.heap_tid)
FROM generate_series($first, $last) b,
     LATERAL pagebtree_page_stats('$idx', b) s,
     LATERAL (SELECT heap_tid FROM pagebtree_page_items('$idx', b)
              WHERE heap_tid IS NOT NULL LIMIT 1) i
WHERE s.page_type = 'leaf' AND $cond ORDER BY b LIMIT 1});
}
# c_mside: a leaf that would be a side page with 4 leaves per side page
# (block 1 + 5k), and a leaf of side page 1 (which holds the run of
# '0000a') with 4 leaves per side page; a key of each
my ($mside_group) = $node->safe_psql('postgres',
	"SELECT delta_group FROM pagebtree_metapage('c_mside')");
ok($mside_group > 4, 'c_mside has more than 4 leaves per side page');
my ($mside_leaf, $mside_key) = leaf_and_key('c_mside', 'cm2', 's', '(b - 1) % 5 = 0');
ok($mside_key ne '', 'c_mside has a leaf at block 1 + 5k');
my (undef, $mside_first_key) = leaf_and_key('c_mside', 'cm2', 's', 'true', 2, 5);
ok($mside_first_key ne '', 'c_mside has a leaf among blocks 2-5');
# c_selflink: a leaf between two others, and its first key
my ($selflink_leaf, $selflink_key) =
  leaf_and_key('c_selflink', 'cq', 'k', 's.prev <> -1 AND s.next <> -1');
ok($selflink_key ne '', 'c_selflink has a leaf between two others');
# c_dused: the run of '0000a'
my ($dused_leaf, $dused_side, $dused_group) = split /\|/, $node->safe_psql(
	'postgres', q{
SELECT r.leaf, r.side_block, m.delta_group
FROM pagebtree_runs('c_dused') r, pagebtree_metapage('c_dused') m WHERE r.entries > 0});
ok($dused_side > 0, 'c_dused: a run is pending');
# c_g1link: the first level-1 page, which has a right sibling, and the
# first subnode of its first group
my ($g1_page, $g1_subnode) = split /\|/, $node->safe_psql('postgres',
	"SELECT parent, start FROM pagebtree_groups('c_g1link') LIMIT 1");
is($node->safe_psql('postgres', "SELECT level > 1 FROM pagebtree_metapage('c_g1link')"), 't',
	'c_g1link has more than one level-1 page');
for my $idx ('c_mgroup', 'c_mside', 'c_selflink', 'c_dused', 'c_g1link')
{
	$path{$idx} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
}

$node->stop;

# offset of the first fingerprint in the page at $pageoff of $file
# the length of a page's prefix, padded to an even length, from the 2-byte
# field at offset $at of the page
sub padded_prefix_len
{
	my ($file, $pageoff, $at) = @_;
	my $prefix_len = unpack('v', read_bytes($file, $pageoff + $at, 2));
	return $prefix_len + ($prefix_len % 2);
}

sub first_fingerprint
{
	my ($file, $pageoff) = @_;
	return 24 + 8 + padded_prefix_len($file, $pageoff, 24 + 6);
}

# the heap TID's offset: the last 2 bytes (big-endian) of the first entry
# of a plain page (slot 0: its offset and length, 2 bytes each)
sub first_plain_tid_offset
{
	my ($file, $pageoff) = @_;
	my ($off, $len) = unpack('vv', read_bytes($file, $pageoff + 24, 4));
	return $off + $len - 2;
}

# block 0's count: after the header, the prefix and 8 log slots
sub first_bpa_block
{
	my ($file, $pageoff) = @_;
	return 24 + 10 + padded_prefix_len($file, $pageoff, 24 + 8) + 8 * 4;
}

# the first INCLUDE value's header byte in a c_inc leaf
sub first_md5_header
{
	my ($file, $pageoff) = @_;
	my $page = read_bytes($file, $pageoff, 8192);
	$page =~ /\x43[0-9a-f]{32}/ or die "no INCLUDE value in block";
	return $-[0];
}

sub damage
{
	my ($file, $offset, $bytes) = @_;
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode $fh;
	if (!defined $bytes)
	{
		# flip the byte there
		seek($fh, $offset, 0) or die "seek: $!";
		read($fh, my $old, 1) == 1 or die "read: $!";
		$bytes = chr(ord($old) ^ 0xff);
	}
	seek($fh, $offset, 0) or die "seek: $!";
	print $fh $bytes or die "write: $!";
	close($fh) or die "close: $!";
}

for my $case (@cases)
{
	my $file    = $path{ $case->{idx} };
	my $pageoff = $case->{block} * 8192;
	my $off     = ref $case->{off} ? $case->{off}->($file, $pageoff) : $case->{off};
	damage($file, $pageoff + $off, $case->{bytes});
}
# an unknown layout tag: the special space is the last 32 bytes of the page
damage($path{c_tag}, $tag_block * 8192 + 8192 - 32 + 24, "\x63");
# block $to of the file overwritten by a copy of block $from
sub copy_block
{
	my ($file, $from, $to) = @_;
	damage($file, $to * 8192, read_bytes($file, $from * 8192, 8192));
}
# the root block overwritten by a copy of a leaf, and the first leaf of
# c_levels by a copy of its root
copy_block($path{c_root}, $root_copy, $root_block);
copy_block($path{c_levels}, $levels_root, $levels_leaf);
# its right-link, bytes 4-7 of the special space, to itself
damage($path{c_loop}, $loop_block * 8192 + 8192 - 32 + 4, pack('V', $loop_block));
# the same in c_cycle, whose root's downlink to the right neighbour
# (plain slot: a 2-byte offset of an item that starts with the child's
# block number) now leads to that leaf, so that lookups of the neighbour's
# keys move right from it
{
	my $pageoff = $cycle_root * 8192;
	my $item_off = unpack('v', read_bytes($path{c_cycle}, $pageoff + 24 + 4 * $cycle_item, 2));
	is(unpack('V', read_bytes($path{c_cycle}, $pageoff + $item_off, 4)), $cycle_next,
		'c_cycle: the downlink found on disk');
	damage($path{c_cycle}, $pageoff + $item_off, pack('V', $cycle_block));
	damage($path{c_cycle}, $cycle_block * 8192 + 8192 - 32 + 4, pack('V', $cycle_block));
}
# group hints: downlink 1's item (heads slot 1 at 96 + 8, its offset the
# slot's first 2 bytes) is [child 4][hints: 3-byte header, then bits packed:
# the base (13 bits), then 12 bits for each of subnodes 1..3]; bits 13-23,
# all but the last of subnode 1's, are set (and the base's low five cleared)
{
	my $pageoff = $group_root * 8192;
	my $item_off = unpack('v', read_bytes($path{c_group}, $pageoff + 96 + 8, 2));
	damage($path{c_group}, $pageoff + $item_off + 4 + 3 + 1, "\x07\xff");
}

# the run's second entry (a slot is an 8-byte header and the entries;
# entry: uint16 length with two flag bits, 0x8000 if a count of bytes
# shared with the first entry follows, 0x4000 on a first entry that is
# only the others' reference, then the rest) gets the second bit, which
# only a first entry may have
{
	my $slot_off = $run_side * 8192 + (run_slot($run_leaf, $delta_group))[0];
	my $first = unpack('v', read_bytes($path{c_delta}, $slot_off + 8, 2));
	my $second = unpack('v', read_bytes($path{c_delta}, $slot_off + 8 + 2 + $first, 2));
	is($first & 0xc000, 0, "c_delta: the run's first entry is whole");
	is($second & 0xc000, 0, "c_delta: so is its second (short keys)");
	damage($path{c_delta}, $slot_off + 8 + 2 + $first, pack('v', $second | 0x4000));
}
# c_dused: its run's length (the header's second uint16) past the page
{
	damage($path{c_dused},
		$dused_side * 8192 + (run_slot($dused_leaf, $dused_group))[0] + 2,
		pack('v', 0xffff));
}
# c_lprev: key 0's directory entry (after the 10-byte header: first, off,
# len, 2 bytes each) gets its key offset past the page.  Inserting before
# key 1's first entry compared key 0 first, inside the insert's critical
# section, where its bounds error was a PANIC: the search that found the
# place checks key 1's entry, not key 0's (its binary search stops at 1)
damage($path{c_lprev}, $lprev_block * 8192 + 24 + 10 + 2, "\xff\xff");
# the metapage's delta_group (after magic, version, root, level and key
# mode, 4 bytes each)
damage($path{c_mgroup}, 24 + 20, pack('V', 1));
damage($path{c_mside}, 24 + 20, pack('V', 4));
# the leaf's right-link (the special space's bytes 4-7) to itself
damage($path{c_selflink}, $selflink_leaf * 8192 + 8192 - 32 + 4, pack('V', $selflink_leaf));
# the first level-1 page's right-link to a leaf
damage($path{c_g1link}, $g1_page * 8192 + 8192 - 32 + 4, pack('V', $g1_subnode));

$node->start;

{
	my $append = "SET pagebtree.delta_append_always = on; SET statement_timeout = '60s';";
	my ($ret, $out, $err) = $node->psql('postgres',
		"$append INSERT INTO cm VALUES ('0abc')", timeout => 120);
	like($err, qr/index "c_mgroup" block 0: bad delta area or leaf group settings/,
		'c_mgroup: an insert reports the metapage');
	($ret, $out, $err) = $node->psql('postgres',
		"$append INSERT INTO cm2 VALUES ('$mside_key')", timeout => 120);
	like($err,
		qr/index "c_mside" block $mside_leaf: a leaf lies where the metapage's delta area has a side page/,
		'c_mside: an insert into the leaf reports it');
	# (an append sized by the metapage's slots overflowed the page's)
	($ret, $out, $err) = $node->psql('postgres',
		"$append INSERT INTO cm2 VALUES ('$mside_first_key')", timeout => 120);
	like($err, qr/index "c_mside" block 1: side page's slots differ from the metapage's delta area/,
		'c_mside: an insert into a leaf of side page 1 reports the side page');
	($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_mside', true)");
	like($err, qr/index "c_mside" (is corrupt at block \d+|block 1: side page's slots differ)/,
		'c_mside: the verifier fails');
	($ret, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '60s'; INSERT INTO cq SELECT $selflink_key FROM generate_series(1, 1000)",
		timeout => 120);
	like($err,
		qr/index "c_selflink" block $selflink_leaf: a link leads back to a page the operation holds/,
		'c_selflink: a split of the leaf reports its link');
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT count(*) FROM pagebtree_groups('c_g1link')");
	like($err,
		qr/index "c_g1link" block $g1_subnode: a page reached at level 1 is not an inner page of that level/,
		'c_g1link: pagebtree_groups reports the page its right-link leads to');
}

{
	# (a PBT_CHECKS build checks the page after the insert, and reports the key)
	my ($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO cp VALUES (220) RETURNING ctid');
	if ($ENV{PBT_CHECKS})
	{
		like($err, qr/ERROR:  pagebtree page has a key directory entry out of bounds/,
			'c_lprev: an insert before key 11\'s entries, into the damaged leaf, then its check');
	}
	else
	{
		is($out, '(0,1)', 'c_lprev: an insert before key 11\'s entries, into the damaged leaf');
	}
	($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_lprev', true)");
	like($err, qr/index "c_lprev" is corrupt at block $lprev_block, item 0: lists key out of bounds/,
		'c_lprev: the verifier reports the damaged key');
}

for my $case (@cases)
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT pagebtree_check('$case->{idx}', true)");
	isnt($ret, 0, "$case->{idx}: the verifier fails");
	like($err, $case->{at} // qr/index "$case->{idx}" is corrupt at block $case->{block}/,
		"$case->{idx}: it names the index and block");
	like($err, $case->{msg}, "$case->{idx}: it names the problem");
	if ($case->{inspect})
	{
		($ret, $out, $err) = $node->psql('postgres', $case->{inspect});
		like($err, $case->{inspect_msg}, "$case->{idx}: an inspection function reports the page");
	}
	next unless $case->{scan};
	for my $plan ('enable_bitmapscan', $case->{bitmap} ? 'enable_indexscan' : ())
	{
		($ret, $out, $err) = $node->psql('postgres',
			"SET enable_seqscan = off; SET $plan = off; $case->{scan}");
		like($err, $case->{scan_msg} // qr/pagebtree page has an item out of bounds/,
			"$case->{idx}: a scan reports the page as corrupt ($plan = off)");
	}
	next unless $case->{insert};
	($ret, $out, $err) = $node->psql('postgres', $case->{insert});
	like($err, $case->{scan_msg}, "$case->{idx}: an insert reports the page as corrupt");
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_root', true)");
	like($err, qr/index "c_root" is corrupt at block $root_block, item 0: metapage does not point to the root/,
		'c_root: the verifier reports the root');
	my $root_error = qr/index "c_root" block $root_block: the root page is not at the metapage's root level/;
	($ret, $out, $err) = $node->psql('postgres',
		'SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM cr WHERE k * 5 < 100');
	like($err, $root_error, 'c_root: a lookup reports the root');
	# planning reads the metapage only (18 asks each index for its height),
	# so the table's rows stay readable without the index, as with btree
	is($node->safe_psql('postgres', 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;'
		  . ' SELECT count(*) FROM cr'),
		'20000', 'c_root: a sequential scan of its table runs');
	# enough equal keys to split the page the descent reached
	($ret, $out, $err) = $node->psql('postgres',
		'INSERT INTO cr SELECT 1 FROM generate_series(1, 1000)', timeout => 60);
	like($err, $root_error, 'c_root: an insert reports the root');
}
{
	my $ordered = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; '
	  . "SET statement_timeout = '60s'; SELECT count(*), sum(x) FROM (SELECT k * 4 AS x FROM cg ORDER BY k * 4";
	like($node->safe_psql('postgres', "$ordered) s" =~ s/SELECT count/EXPLAIN SELECT count/r),
		qr/Index (Only )?Scan using c_gepoch/, 'c_gepoch: the scans read the index');
	is($node->safe_psql('postgres', "$ordered) s"), '20000|800040000',
		'c_gepoch: a forward scan reads on past the subnode');
	my ($ret, $out, $err) = $node->psql('postgres', "$ordered DESC) s");
	like($err, qr/index "c_gepoch" block \d+: a subnode's group epoch differs from its neighbour's/,
		'c_gepoch: a backward scan reports the subnode');
	# VACUUM reads a group again from its start when its epochs differ
	($ret, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '60s'; VACUUM (INDEX_CLEANUP ON) cg");
	like($err, qr/index "c_gepoch" block \d+: a subnode's group epoch differs from its neighbour's/,
		'c_gepoch: VACUUM reports the subnode');
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_levels', true)");
	like($err, qr/index "c_levels" is corrupt at block $levels_root, item \d+: downlink to a page of the wrong level/,
		'c_levels: the verifier reports the downlink');
	my $level_error = qr/index "c_levels" block $levels_leaf: (descent reached an unexpected level|cannot find the end of a tree level)/;
	for my $query ('SELECT count(*) FROM cr WHERE k * 7 < 100',
		'SELECT k * 7 FROM cr ORDER BY k * 7 LIMIT 1')
	{
		($ret, $out, $err) = $node->psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; SET statement_timeout = '60s'; $query");
		like($err, $level_error, "c_levels: an error, not a loop: $query");
	}
}
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '120s'; SELECT pagebtree_check('c_loop', true)");
	like($err, qr/index "c_loop" is corrupt at block $loop_block, item 0: right-links form a cycle/,
		'c_loop: the verifier reports the cycle');
	# a forward scan reads the leaf again and again; a backward scan steps
	# left by moving right from the left neighbour until it links to the
	# page it left: both round the cycle until their count of steps
	# passes the index's size
	for my $dir ('', ' DESC')
	{
		($ret, $out, $err) = $node->psql('postgres',
			qq{SET enable_seqscan = off; SET enable_bitmapscan = off; SET statement_timeout = '60s';
SELECT count(*) FROM (SELECT k FROM c ORDER BY k::numeric$dir) s},
			timeout => 120);
		like($err, qr/index "c_loop" block $loop_block: right-links of a level form a cycle/,
			"c_loop: a scan caught in the cycle stops with an error: ORDER BY k::numeric$dir");
	}
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_cycle', true)");
	like($err, qr/index "c_cycle" is corrupt at block $cycle_root/,
		'c_cycle: the verifier reports the downlink');
	my $lookup = "SELECT count(*) FROM cc WHERE k::numeric = $cycle_key";
	my $setup = "SET enable_seqscan = off; SET enable_bitmapscan = off; SET statement_timeout = '60s';";
	like($node->safe_psql('postgres', "$setup EXPLAIN $lookup"),
		qr/Index (Only )?Scan using c_cycle/, 'c_cycle: the lookup reads the index');
	# a reader moves right share-locking each page, a writer exclusively
	for my $query ($lookup, "INSERT INTO cc VALUES ($cycle_key)")
	{
		($ret, $out, $err) = $node->psql('postgres', "$setup $query", timeout => 120);
		like($err, qr/index "c_cycle" block $cycle_block: right-links of a level form a cycle/,
			"c_cycle: an error, not a loop: $query");
	}
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_tag', true)");
	isnt($ret, 0, 'c_tag: the verifier fails');
	like($err, qr/unknown layout tag/, 'c_tag: it names the problem');
	# a scan reaching the page reports corruption instead of misreading it
	($ret, $out, $err) = $node->psql('postgres',
		'SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM c WHERE k + 0 > 0');
	like($err, qr/unknown layout tag/, 'c_tag: a scan reports the page as corrupt');
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_group', true)");
	isnt($ret, 0, 'c_group: the verifier fails');
	like($err, qr/index "c_group" is corrupt at block $group_root, item 1: group hints decrease/,
		'c_group: it names the block, the downlink and the problem');
	my $lookups = q{
SELECT count(*) FROM generate_series(1, 20000, 7) g WHERE EXISTS (SELECT 1 FROM c WHERE k * 2 = g * 2)};
	my $nested = 'SET enable_hashjoin = off; SET enable_mergejoin = off;';
	like($node->safe_psql('postgres', "$nested EXPLAIN (COSTS OFF) $lookups"),
		qr/Nested Loop.*Index (Only )?Scan using c_group.*Index Cond/s,
		'c_group: the lookups go through it');
	is($node->safe_psql('postgres', "$nested $lookups"),
		'2858', 'c_group: lookups with damaged hints still find every row');
}
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('c_delta', true)");
	isnt($ret, 0, 'c_delta: the verifier fails');
	like($err, qr/index "c_delta".* run entr(y|ies)/, 'c_delta: it names the run');
	($ret, $out, $err) = $node->psql('postgres',
		q{SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM cd WHERE s < '0001'});
	like($err, qr/index "c_delta" block $run_side: run entries are corrupt/,
		'c_delta: a scan reports the run as corrupt');
}
# the inspection functions walked the run past the page
for my $call ("pagebtree_runs('c_dused')", "pagebtree_page_stats('c_dused', $dused_side)")
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT count(*) FROM $call");
	like($err, qr/index "c_dused" block $dused_side: run entries are corrupt/,
		"c_dused: $call reports the run");
}
is($node->safe_psql('postgres', "SELECT pagebtree_check('c_intact', true)"),
	'', 'an undamaged index next to them still passes');

# (immediate: a backend caught by a defect these cases guard against would
# hold up a fast shutdown)
$node->stop('immediate');
done_testing();
