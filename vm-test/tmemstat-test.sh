#!/bin/bash
# Host-side tests of tmemstat (debian/tmemstat, debian/tmemstat.awk), part
# of make check: run on recorded debugfs files (vm-test/fixtures/tmemstat/,
# in the module's format: src/main.c), with the host's awk (mawk on
# Debian, as on the machines the package goes to). The table, --raw and
# --json (parsed strictly, with python3) must carry exactly the counters of
# the files, and usage errors must say what is wrong. TAP on stdout. The
# live system (real counters, missing module, debugfs, root) is tested in
# the guest (test_tmemstat, test_final_unload, unpatched.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
ts="$here/../debian/tmemstat"
export TMEMSTAT_DIR="$here/fixtures/tmemstat" TMEMSTAT_PARAMS="$here/fixtures/tmemstat/params"
export TMEMSTAT_AWK="$here/../debian/tmemstat.awk"
T=0 FAILED=0
ok() {
	T=$((T + 1))
	if [ "$1" = 0 ]; then echo "ok $T - tmemstat: $2"; else echo "not ok $T - tmemstat: $2"; FAILED=1; fi
}

out=$("$ts" 2>&1)
rc=$?
grep -q '^  puts           5123456789, refused 4567: full 100, no memory 20, incompressible 4447$' <<<"$out" &&
	grep -q '^  hit ratio      0.34 (1234 hits, 2345 misses)$' <<<"$out" &&
	grep -q '^  limit          204.8 MiB (52428 pages of memory, max_pool_percent 20)$' <<<"$out" &&
	grep -q '^ext4 vdc  *0  *5  *1  *3  *4  *0.43  *0$' <<<"$out" &&
	grep -q '^vfat loop0  *4  *9  *0  *6  *2  *0.75  *1$' <<<"$out" &&
	grep -q '  84213  *90000  *10  *5000  *0  *0$' <<<"$out" &&
	grep -q '^5  *1234  *100  *40000  *3$' <<<"$out"
ok $((rc + $?)) "the table shows the store, each filesystem, swap area and cgroup (counters above 2^32 too)"

"$ts" --raw >/tmp/tmemstat-raw.$$ 2>&1
rc=$?
for f in stats pools precache preswap preswap_cgroups hooks; do
	sed "s/^/$f /" "$TMEMSTAT_DIR/$f"
done | cmp -s - /tmp/tmemstat-raw.$$
ok $((rc + $?)) "--raw prints every record of every file, exactly"
rm -f /tmp/tmemstat-raw.$$

"$ts" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["store"]["puts"] == 5123456789 and d["store"]["backend"] == "compress"
assert abs(d["hit_ratio"] - 1234 / (1234 + 2345)) < 1e-4
assert [p["name"] for p in d["pools"]] == ["ext4 vdc", "preswap"]
assert d["pools"][1]["kind"] == "persistent" and d["pools"][1]["pages"] == 84213
assert [(p["type"], p["device"], p["hits"]) for p in d["precache"]] == [("ext4", "vdc", 3), ("vfat", "loop0", 6)]
assert d["preswap"] == {"pool": 1, "enabled": 1, "held": 84213, "refused_cgroup": 7}
assert d["swap_areas"][0]["held"] == 84213 and d["swap_areas"][0]["get_misses"] == 0
assert d["cgroups"] == [{"cgroup": 5, "ino": 1234, "pages": 100, "bytes": 40000, "refused": 3}]
assert d["hooks"] == {"precache_get": 10, "preswap_put": 90010}
' 2>/tmp/tmemstat-json.$$
ok $? "--json is valid JSON with the same values $(tail -1 /tmp/tmemstat-json.$$)"
rm -f /tmp/tmemstat-json.$$

out=$("$ts" --watch 0 2>&1)
[ $? = 1 ] && grep -q 'positive number' <<<"$out"
ok $? "--watch 0 is refused ($out)"
out=$("$ts" -x 2>&1)
[ $? = 2 ] && grep -q '^Usage: tmemstat' <<<"$out"
ok $? "an unknown option: usage, exit 2"
"$ts" -h | grep -q -- '--json'
ok $? "-h lists the options"
out=$(timeout 2 "$ts" -w 0.5 --raw 2>&1)
[ "$(grep -c '^stats puts ' <<<"$out")" -ge 3 ]
ok $? "-w 0.5 prints again every half second ($(grep -c '^stats puts ' <<<"$out") times in 2 s)"
out=$(TMEMSTAT_DIR=/nonexistent "$ts" 2>&1)
[ $? = 1 ] && grep -q 'cannot read /nonexistent/stats' <<<"$out"
ok $? "unreadable counters: exit 1 and the path ($out)"
echo "# host-side tests finished"
echo "1..$T"
exit $FAILED
