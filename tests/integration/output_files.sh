#!/usr/bin/env bash
# Output files (-o, --svg, --pprof; the s key's snapshots go the same way):
# never written through a symbolic link, never another user's file in a
# world-writable sticky directory (the kernel's protected_regular rule),
# and written beside the name, which they take only once whole: the file
# at the name is the old one or the new one, never a part.
. "$(dirname "$0")/../lib.sh"

FIXTURE=tests/fixtures/viewer.folded
$FLAMETOP -i "$FIXTURE" --folded >"$TEST_TMP/expected" 2>/dev/null

# refused "what" ARGS...: flametop -i FIXTURE ARGS exits 2 with one line on stderr.
refused() {
	local what=$1 rc
	shift
	$FLAMETOP -i "$FIXTURE" "$@" >/dev/null 2>"$TEST_TMP/err"
	rc=$?
	diag <"$TEST_TMP/err"
	check "$what: exit 2 and one line (got $rc)" \
		bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ]"
}

# 1. A symbolic link at the name: refused, its target untouched.
echo "precious" >"$TEST_TMP/target"
ln -s "$TEST_TMP/target" "$TEST_TMP/link.folded"
refused "-o through a symlink" --folded -o "$TEST_TMP/link.folded"
check "-o through a symlink: says so" grep -q 'symbolic link' "$TEST_TMP/err"
check "-o through a symlink: the link's target is untouched" \
	bash -c "[ \"\$(cat '$TEST_TMP/target')\" = precious ] && [ -L '$TEST_TMP/link.folded' ]"
ln -s "$TEST_TMP/target" "$TEST_TMP/link.svg"
refused "--svg through a symlink" --svg "$TEST_TMP/link.svg"
check "--svg through a symlink: the link's target is untouched" \
	bash -c "[ \"\$(cat '$TEST_TMP/target')\" = precious ]"
ln -s "$TEST_TMP/nowhere" "$TEST_TMP/dangling.pb.gz"
refused "--pprof through a dangling symlink" --pprof "$TEST_TMP/dangling.pb.gz"
check "--pprof through a dangling symlink: nothing made at its target" [ ! -e "$TEST_TMP/nowhere" ]

# 2. Another user's file in a world-writable sticky directory: refused.
if [ "$(id -u)" = 0 ]; then
	mkdir -m 1777 "$TEST_TMP/sticky"
	echo "theirs" >"$TEST_TMP/sticky/out.folded"
	chown nobody "$TEST_TMP/sticky/out.folded"
	refused "-o over another user's file in a sticky directory" --folded -o "$TEST_TMP/sticky/out.folded"
	check "-o in a sticky directory: says so, the file is untouched" \
		bash -c "grep -q 'sticky' '$TEST_TMP/err' && [ \"\$(cat '$TEST_TMP/sticky/out.folded')\" = theirs ]"
	$FLAMETOP -i "$FIXTURE" --folded -o "$TEST_TMP/sticky/mine.folded" 2>/dev/null
	check "-o of a new file in a sticky directory is written" \
		cmp -s "$TEST_TMP/expected" "$TEST_TMP/sticky/mine.folded"
else
	skip "sticky directory refusal" "not root: can't give a file to another user"
fi

# 3. An existing file is replaced whole, by a new file (a new inode: renamed over it).
echo "old" >"$TEST_TMP/out.folded"
before=$(stat -c %i "$TEST_TMP/out.folded")
$FLAMETOP -i "$FIXTURE" --folded -o "$TEST_TMP/out.folded" 2>/dev/null
check "-o replaces an existing file with the whole output" cmp -s "$TEST_TMP/expected" "$TEST_TMP/out.folded"
check "-o replaced it by a rename (inode $before -> $(stat -c %i "$TEST_TMP/out.folded"))" \
	[ "$before" != "$(stat -c %i "$TEST_TMP/out.folded")" ]
check "-o leaves no temporary file behind" \
	bash -c "[ -z \"\$(ls -A '$TEST_TMP' | grep '^\\.out\\.folded\\.')\" ]"
$FLAMETOP -i "$FIXTURE" --folded -o /dev/null 2>"$TEST_TMP/err"
check "-o /dev/null (a device) is written directly (exit $?)" [ -c /dev/null ]

# 4. Killed while it works (here: waiting for its input), flametop leaves the
# file at the name as it was: not emptied, not half written; and, its output
# having no name until it is complete, nothing beside it.
echo "old whole" >"$TEST_TMP/kept.folded"
mkfifo "$TEST_TMP/in.fifo"
start_bg $FLAMETOP -i "$TEST_TMP/in.fifo" --folded -o "$TEST_TMP/kept.folded"
exec 4>"$TEST_TMP/in.fifo" # flametop has its outputs open once it reads
head -n 3 "$FIXTURE" >&4
sleep 0.5
kill -KILL "$bg_pid"
exec 4>&-
wait "$bg_pid" 2>/dev/null
check "killed while writing: the file at the name is the old one, whole" \
	bash -c "[ \"\$(cat '$TEST_TMP/kept.folded')\" = 'old whole' ]"
check "killed while writing: no temporary file is left beside it" \
	bash -c "[ -z \"\$(ls -A '$TEST_TMP' | grep '^\\.kept\\.folded\\.')\" ]"

# 5. The output's directory swapped mid-run by its owner (here nobody, against
# root flametop): moved away and replaced by a symbolic link to a directory of
# root's, while flametop waits for its input. The profile still lands in the
# directory flametop checked (now moved), never through the link: root's 0600
# file at the same name is untouched. flametop refuses a directory that is a
# symbolic link from the start.
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$TEST_TMP"
	mkdir -m 700 "$TEST_TMP/secret"
	echo "root's secret" >"$TEST_TMP/secret/out.folded"
	chmod 600 "$TEST_TMP/secret/out.folded"
	mkdir -p "$TEST_TMP/swap/out"
	chown -R nobody "$TEST_TMP/swap"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	mkfifo "$TEST_TMP/swap.fifo"
	start_bg $FLAMETOP -i "$TEST_TMP/swap.fifo" --folded -o "$TEST_TMP/swap/out/out.folded"
	exec 4>"$TEST_TMP/swap.fifo" # flametop has its outputs open once it reads
	head -n 3 "$FIXTURE" >&4
	sleep 0.5
	as_nobody mv "$TEST_TMP/swap/out" "$TEST_TMP/swap/moved"
	as_nobody ln -s "$TEST_TMP/secret" "$TEST_TMP/swap/out"
	tail -n +4 "$FIXTURE" >&4
	exec 4>&-
	wait "$bg_pid"
	rc=$?
	check "directory swapped mid-run: flametop ends well (exit $rc)" [ "$rc" = 0 ]
	check "directory swapped mid-run: root's 0600 file behind the link is untouched" \
		bash -c "[ \"\$(cat '$TEST_TMP/secret/out.folded')\" = \"root's secret\" ] &&
			[ \"\$(stat -c %a '$TEST_TMP/secret/out.folded')\" = 600 ] &&
			[ \"\$(ls -A '$TEST_TMP/secret')\" = out.folded ]"
	check "directory swapped mid-run: the profile is in the directory checked, now moved" \
		cmp -s "$TEST_TMP/expected" "$TEST_TMP/swap/moved/out.folded"
	refused "-o into a directory that is a symbolic link" --folded -o "$TEST_TMP/swap/out/x.folded"
	check "-o into a directory that is a symbolic link: says so, nothing made" \
		bash -c "grep -q 'symbolic link' '$TEST_TMP/err' && [ ! -e '$TEST_TMP/secret/x.folded' ]"
else
	skip "directory swapped mid-run" "not root: the swap is done by another user against root"
fi
exit 0
