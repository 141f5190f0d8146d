#!/bin/bash
# Step 7 (make bench only): turn the result lines guest/bench.sh wrote into
# $RESULTS/tap.log into
#   bench.md        the table (also printed): per workload and configuration
#                   the median wall time and its spread (min-max over the
#                   runs), the ratio of the median to base's and to zswap's,
#                   disk traffic, what the store held (pages, memory,
#                   pages per MiB, compression ratio), the hit ratio, puts
#                   and refusals by cause; then the core microbenchmark's
#                   medians, each compressor's also as a multiple of a
#                   4 KiB memcpy timed in the same run
#   bench.csv       the same table, machine-readable (raw sectors and bytes)
#   bench-runs.csv  every run (status: ok, failed, or killed = ended by
#                   the OOM killer; killed runs are left out of the table)
#   bench.png       chart (gnuplot): wall time relative to base with the
#                   spread, and disk traffic, per workload and configuration
. "$(dirname "$0")/lib.sh"

[ -f "$RESULTS/tap.log" ] || die "no tap.log in $RESULTS"
# the TAP stream comes through a serial port: its lines end in CR LF
tap="$RESULTS/tap.txt"
tr -d '\r' <"$RESULTS/tap.log" >"$tap"
grep -q '^# bench,' "$tap" || die "no benchmark results in $tap"
step "benchmark report in $RESULTS"

runs="$RESULTS/bench-runs.csv"
csv="$RESULTS/bench.csv"
md="$RESULTS/bench.md"
png="$RESULTS/bench.png"
dat="$RESULTS/bench-plot.dat"
fields=workload,config,rep,wall_s,sectors_read,sectors_written,store_pages,store_bytes,hit_ratio,store_puts,store_refused,status,refused_full,refused_nomem,refused_incompressible

{
	echo "$fields"
	sed -n 's/^# bench,//p' "$tap"
} >"$runs"

# Aggregate: one row per workload x configuration, in the order the
# workloads first ran and in the order of CONFIGS.
CONFIGS="base zswap tmem-ram tmem-lz4 tmem-lz4-wb tmem-zstd"
# median(LIST): the median of a space-separated list of numbers ("" if
# empty); every awk program below starts with it
MEDIAN_AWK='
function median(s,    a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (n == 0) return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'
awk -F, -v csv="$csv" -v dat="$dat" -v configs="$CONFIGS" "$MEDIAN_AWK"'
function lo(s,    a, n, i, m) {
	n = split(s, a, " "); m = a[1]
	for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]
	return m
}
function hi(s,    a, n, i, m) {
	n = split(s, a, " "); m = a[1]
	for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]
	return m
}
function ratio(a, b) { return (b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
function mib(x) { return x == "" ? "-" : sprintf("%.1f", x / 1048576) }
# pages per MiB of store memory, and the compression ratio (the memory the
# pages would take uncompressed over the memory the store used)
function ppm(p, b) { return p + 0 == 0 || b + 0 == 0 ? "-" : sprintf("%d", p * 1048576 / b) }
function cratio(p, b) { return p + 0 == 0 || b + 0 == 0 ? "-" : sprintf("%.2f", p * 4096 / b) }
function cause(k, f) { return v[k, f] == "" ? "-" : sprintf("%d", median(v[k, f])) }
NR == 1 { next }
{
	w = $1; c = $2; k = w SUBSEP c
	if (!(w in seen)) { seen[w] = 1; order[++nw] = w }
}
# a run the OOM killer ended has no result: counted, left out of the medians
$12 != "" && $12 != "ok" && $12 != "failed" { killed[k]++; next }
{
	has[k] = 1; n[k]++
	for (f = 4; f <= 11; f++) v[k, f] = v[k, f] " " $f
	# refusals by cause (runs from before they were recorded have none)
	for (f = 13; f <= 15; f++) if ($f != "") v[k, f] = v[k, f] " " $f
}
END {
	print "workload,config,runs,wall_median_s,wall_min_s,wall_max_s,ratio_to_base,ratio_to_zswap,sectors_read,sectors_written,store_pages,store_bytes,hit_ratio,store_puts,store_refused,runs_oom_killed,pages_per_mib,compression_ratio,refused_full,refused_nomem,refused_incompressible" >csv
	print "| workload | config | runs | wall s, median | spread (min-max) | x base | x zswap | disk MiB read | disk MiB written | store peak pages | store peak MiB | pages/MiB | ratio | hit ratio | puts | refused | full / nomem / incompr. |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	nc = split(configs, cfg, " ")
	for (i = 1; i <= nw; i++) {
		w = order[i]
		bw = (w, "base") in has ? median(v[w, "base", 4]) : ""
		zw = (w, "zswap") in has ? median(v[w, "zswap", 4]) : ""
		line = w
		for (j = 1; j <= nc; j++) {
			c = cfg[j]; k = w SUBSEP c
			nk = killed[k] + 0
			if (!(k in has)) {
				if (nk) {
					printf "%s,%s,0,,,,,,,,,,,,,%d,,,,,\n", w, c, nk >csv
					printf "| %s | %s | 0 (%d OOM-killed) | - | - | - | - | - | - | - | - | - | - | - | - | - | - |\n", w, c, nk
				}
				line = line "\tNaN\tNaN\tNaN\tNaN"
				continue
			}
			m = median(v[k, 4]); l = lo(v[k, 4]); h = hi(v[k, 4])
			sr = median(v[k, 5]); sw = median(v[k, 6])
			sp = median(v[k, 7]); sb = median(v[k, 8])
			hr = c == "base" ? "-" : median(v[k, 9])
			if (hr != "-") hr = sprintf("%.3f", hr)
			pu = median(v[k, 10]); rf = median(v[k, 11])
			rb = (c == "base" || bw == "") ? (c == "base" ? "1.00" : "-") : ratio(m, bw)
			rz = zw == "" ? "-" : ratio(m, zw)
			cf = cause(k, 13); cn = cause(k, 14); ci = cause(k, 15)
			printf "%s,%s,%d,%.2f,%.2f,%.2f,%s,%s,%d,%d,%d,%d,%s,%d,%d,%d,%s,%s,%s,%s,%s\n", w, c, n[k], m, l, h, rb, rz, sr, sw, sp, sb, hr, pu, rf, nk, ppm(sp, sb), cratio(sp, sb), cf, cn, ci >csv
			printf "| %s | %s | %s | %.1f | %.1f-%.1f | %s | %s | %.1f | %.1f | %d | %s | %s | %s | %s | %d | %d | %s / %s / %s |\n", w, c, n[k] (nk ? " (" nk " OOM-killed)" : ""), m, l, h, rb, rz, sr / 2048, sw / 2048, sp, mib(sb), ppm(sp, sb), cratio(sp, sb), hr, pu, rf, cf, cn, ci
			if (bw != "" && bw + 0 > 0)
				line = line sprintf("\t%.3f\t%.3f\t%.3f\t%.1f", m / bw, l / bw, h / bw, (sr + sw) / 2048)
			else
				line = line "\tNaN\tNaN\tNaN\tNaN"
		}
		if (w != "micro")
			print line >dat
	}
}' "$runs" >"$RESULTS/bench-table.md"

info() { sed -n "s/^# bench-info,$1,//p" "$tap" | tail -n1; }
{
	echo "# tmem benchmark: no tmem vs zswap vs tmem (plain copies, lz4, zstd)"
	echo
	echo "Run $(basename "$RESULTS"), guest: $(info guest)."
	echo "Store limit: $(info limit)."
	echo
	echo "- swap: $(info swap); $(info mix | sed 's/^mixfill: //')"
	echo "- sort: $(info sort)"
	echo "- reread: $(info reread)"
	echo "- swap@ssd, reread@ssd: the same workloads with the swap and data disks throttled to the disk model"
	echo "- disk model: $(info disk)"
	echo "- micro: tmem_bench (the store alone; wall = the module's run; its store columns show the bench's private store)"
	sed -n 's/^# bench-info,note,/- note: /p' "$tap"
	echo
	echo "Configurations: base = swap disk only (reread: precache off); zswap = zswap on (lz4, zsmalloc)," \
		"preswap off; tmem-* = preswap on, zswap off (reread: precache on), with backend=ram (tmem-ram)" \
		"or the compressing backend and compressor lz4 or zstd; tmem-lz4-wb = tmem-lz4 with preswap_writeback=1." \
		"x base, x zswap: median wall time over the median of base / zswap (below 1 = faster)." \
		"Disk = the swap disk (reread: the data disk), from /proc/diskstats." \
		"Store peak: the most pages and memory tmem or zswap held (sampled each second)." \
		"Hit ratio: swap-ins served by the store / all swap-ins (reread: page-cache misses served by precache)." \
		"Pages/MiB: store peak pages per MiB of store peak memory; ratio: the same as 4096 bytes per page over the bytes used." \
		"Puts, refused: pages the store took during a run, and pages it refused, then by cause: full (at its limit)," \
		"nomem (no memory to be had without blocking), incompressible (would not save memory; zswap: poor compression)."
	echo
	cat "$RESULTS/bench-table.md"
	if grep -q '^# micro,' "$tap"; then
		echo
		echo "Core microbenchmark (tmem_bench, RAM backend; median over the runs, ns per 4 KiB page):"
		echo
		echo "| pages stored (median) | fill ns/put | memcpy ns | RAM backend ns | put ns | get ns |"
		echo "|---:|---:|---:|---:|---:|---:|"
		sed -n 's/^# micro,//p' "$tap" | awk -F, "$MEDIAN_AWK"'
		# row i of every run: the same store size (the last one is the
		# store filled to its limit, whose page count varies a little)
		$1 != rep { rep = $1; i = 0 }
		{
			i++
			if (i > n) n = i
			for (f = 2; f <= 7; f++) v[i, f] = v[i, f] " " $f
		}
		END {
			for (i = 1; i <= n; i++) {
				printf "| %d |", median(v[i, 2])
				for (f = 3; f <= 7; f++) printf " %.1f |", median(v[i, f])
				printf "\n"
			}
		}'
		if grep -q '^# micro-thr,' "$tap"; then
			echo
			echo "Threads on a full store (tmem_bench; RAM backend, 16384 pages; median over the runs):" \
				"ops/ms with 1 and 2 threads on their own CPUs, each on its own share of the handles;" \
				"memcpy is the same threads copying 4 KiB pages with no tmem, the ceiling the emulator allows;" \
				"ephemeral-1lru is the ephemeral pool on one LRU shard (one lock for all, as before the LRU was sharded)."
			echo
			echo "| pool | op | 1 thread ops/ms | 2 threads ops/ms | speedup |"
			echo "|---|---|---:|---:|---:|"
			sed -n 's/^# micro-thr,//p' "$tap" | awk -F, "$MEDIAN_AWK"'
			{
				k = $2 "," $3
				if (!(k in seen)) { seen[k] = 1; order[++n] = k }
				a[k] = a[k] " " $4; b[k] = b[k] " " $5
			}
			END {
				for (i = 1; i <= n; i++) {
					k = order[i]; split(k, kk, ",")
					x = median(a[k]); y = median(b[k])
					printf "| %s | %s | %d | %d | %.2fx |\n", kk[1], kk[2], x, y, (x > 0 ? y / x : 0)
				}
			}'
		fi
	fi
	if grep -q '^# micro-comp,' "$tap"; then
		echo
		memcpy=$(sed -n 's/^# micro,//p' "$tap" | awk -F, "$MEDIAN_AWK"'{ s = s " " $4 } END { m = median(s); if (m != "") printf "%.0f\n", m }')
		echo "Compressing backend (tmem_bench, text pages; median over the runs): ns per put and get," \
			"and as multiples of a 4 KiB memcpy timed in the same runs (${memcpy:-?} ns, median);" \
			"irqs-off max = the longest put timed with interrupts off, as precache puts run under i_pages;" \
			"bytes charged per page (4096 uncompressed)."
		echo
		echo "| compressor | pool | put ns | x memcpy | irqs-off max ns | get ns | x memcpy | bytes/page | failed |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
		sed -n 's/^# micro-comp,//p' "$tap" | awk -F, -v mc="${memcpy:-0}" "$MEDIAN_AWK"'
		function x(ns) { return mc + 0 > 0 ? sprintf("%.1f", ns / mc) : "-" }
		{
			k = $2 "," $3
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			for (f = 4; f <= 8; f++) v[k, f] = v[k, f] " " $f
		}
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, kk, ",")
				printf "| %s | %s | %.1f | %s | %s | %.1f | %s | %d | %d |\n", kk[1], kk[2],
					median(v[k, 4]), x(median(v[k, 4])),
					kk[2] == "ephemeral" ? sprintf("%d", median(v[k, 5])) : "-",
					median(v[k, 6]), x(median(v[k, 6])), median(v[k, 7]), median(v[k, 8])
			}
		}'
	fi
	echo
	echo "Files: bench.csv (this table), bench-runs.csv (every run), bench.png (chart)."
} >"$md"
rm -f "$RESULTS/bench-table.md" "$tap"

if command -v gnuplot >/dev/null && [ -s "$dat" ]; then
	gnuplot <<EOF || echo "gnuplot failed: no chart"
set terminal pngcairo size 1000,800 font "sans,10"
set output "$png"
set datafile separator "\t"
set datafile missing "NaN"
set multiplot layout 2,1 title "tmem bench ($(basename "$RESULTS")): base = no store, zswap, tmem (ram, lz4, zstd)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set grid ytics
set yrange [0:*]
set key top left
set ylabel "wall time / base (median, min-max)"
plot for [i=0:4] "$dat" using 2+4*i:3+4*i:4+4*i:xtic(1) title word("$CONFIGS", i+1)
set style histogram clustered gap 1
set ylabel "disk MiB read + written (median)"
plot for [i=0:4] "$dat" using 5+4*i:xtic(1) title word("$CONFIGS", i+1)
unset multiplot
EOF
fi

cat "$md"
echo
echo "table: $md"
echo "csv:   $csv (every run: $runs)"
[ -f "$png" ] && echo "chart: $png"
step_done
