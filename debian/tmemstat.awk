# tmemstat.awk: the table, --json and --raw output of tmemstat(8), from
# the records tmemstat feeds it: each debugfs record prefixed with its file's
# name ("stats puts 12", "preswap type 0 slots ..."), "param NAME VALUE" per
# module parameter, "swaps DEVICE" per /proc/swaps line. -v mode=table|json|raw.
function kv(k,   i) {
	for (i = 2; i < NF; i += 2)
		if ($i == k)
			return $(i + 1)
	return ""
}
function name(   i, s) {	# the "name" pair runs to the end of the line
	for (i = 2; i < NF; i += 2)
		if ($i == "name") {
			s = $(i + 1)
			for (i += 2; i <= NF; i++)
				s = s " " $i
			return s
		}
	return ""
}
function num(v) { return v == "" ? 0 : v + 0 }
function mib(b) { return sprintf("%.1f MiB", b / 1048576) }
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function jval(v) { return v ~ /^-?[0-9]+$/ ? v : jstr(v) }
# a record as a JSON object, from field 2 on
function jrec(   i, s, sep) {
	s = "{"
	for (i = 2; i < NF; i += 2) {
		if ($i == "name") {
			s = s sep jstr("name") ": " jstr(name())
			break
		}
		s = s sep jstr($i) ": " jval($(i + 1))
		sep = ", "
	}
	return s "}"
}
$1 == "stats" { st[$2] = $3; sto[++nst] = $2 }
$1 == "param" { par[$2] = $3 }
$1 == "hooks" { hk[$2] = $3; hko[++nhk] = $2 }
$1 == "swaps" { dev[nsw++] = $2 }
$1 == "pools" { pl[++npl] = $0; plj[npl] = jrec() }
$1 == "precache" {
	n = ++npc
	pc[n, "fs"] = kv("type") " " kv("device")
	pc[n, "pool"] = kv("pool")
	pc[n, "puts"] = num(kv("puts")); pc[n, "ref"] = num(kv("put_refused"))
	pc[n, "hits"] = num(kv("hits")); pc[n, "misses"] = num(kv("misses"))
	pc[n, "flushes"] = num(kv("flushes"))
	pcj[n] = jrec()
}
$1 == "preswap" && $2 == "pool" {
	ps_enabled = kv("enabled"); ps_held = kv("held")
	ps_refcg = num(kv("refused_cgroup")); psj = jrec()
}
$1 == "preswap" && $2 == "type" {
	n = ++nar
	ar[n, "type"] = kv("type"); ar[n, "slots"] = kv("slots")
	ar[n, "held"] = kv("held"); ar[n, "puts"] = num(kv("puts"))
	ar[n, "ref"] = num(kv("put_refused")); ar[n, "gets"] = num(kv("gets"))
	ar[n, "miss"] = num(kv("get_misses"))
	ar[n, "out"] = num(kv("moved_out")) + num(kv("written_back"))
	arj[n] = jrec()
}
$1 == "preswap_cgroups" {
	n = ++ncg
	cg[n, "id"] = kv("cgroup"); cg[n, "ino"] = kv("ino")
	cg[n, "pages"] = kv("pages"); cg[n, "bytes"] = num(kv("bytes"))
	cg[n, "ref"] = kv("refused")
	cgj[n] = jrec()
}
$1 != "param" && $1 != "swaps" { raw[++nraw] = $0 }
END {
	if (mode == "raw") {
		for (i = 1; i <= nraw; i++)
			print raw[i]
		exit 0
	}
	hit = num(st["gets_hit"]); miss = num(st["gets_miss"])
	if (mode == "json") {
		printf "{\"store\": {"
		for (i = 1; i <= nst; i++)
			printf "%s%s: %s", (i > 1 ? ", " : ""), jstr(sto[i]), jval(st[sto[i]])
		printf "}, \"hit_ratio\": %s", (hit + miss > 0 ? sprintf("%.4f", hit / (hit + miss)) : "null")
		printf ", \"pools\": ["
		for (i = 1; i <= npl; i++)
			printf "%s%s", (i > 1 ? ", " : ""), plj[i]
		printf "], \"precache\": ["
		for (i = 1; i <= npc; i++)
			printf "%s%s", (i > 1 ? ", " : ""), pcj[i]
		printf "], \"preswap\": %s, \"swap_areas\": [", (psj == "" ? "null" : psj)
		for (i = 1; i <= nar; i++)
			printf "%s%s", (i > 1 ? ", " : ""), arj[i]
		printf "], \"cgroups\": ["
		for (i = 1; i <= ncg; i++)
			printf "%s%s", (i > 1 ? ", " : ""), cgj[i]
		printf "], \"hooks\": {"
		for (i = 1; i <= nhk; i++)
			printf "%s%s: %s", (i > 1 ? ", " : ""), jstr(hko[i]), jval(hk[hko[i]])
		printf "}}\n"
		exit 0
	}
	limit = num(st["max_pages"]) * 4096
	used = num(st["backend_bytes"])
	printf "tmem store       backend %s, compressor %s (precache %s)\n", st["backend"], st["compressor"], st["precache_compressor"]
	printf "  limit          %s (%.0f pages of memory", mib(limit), num(st["max_pages"])
	if (par["max_pages"] + 0 == 0 && par["max_pool_percent"] != "")
		printf ", max_pool_percent %s", par["max_pool_percent"]
	printf ")\n"
	printf "  memory used    %s (%s of the limit)\n", mib(used), (limit > 0 ? sprintf("%.0f %%", 100 * used / limit) : "-")
	printf "  pages stored   %.0f (%s), same-filled %.0f, ephemeral %.0f\n", num(st["pages"]), mib(num(st["pages"]) * 4096), num(st["same_filled"]), num(st["ephemeral_pages"])
	printf "  compression    %s : 1\n", (used > 0 ? sprintf("%.2f", num(st["pages"]) * 4096 / used) : "-")
	printf "  hit ratio      %s (%.0f hits, %.0f misses)\n", ratio(hit, hit + miss), hit, miss
	printf "  puts           %.0f, refused %.0f: full %.0f, no memory %.0f, incompressible %.0f\n", num(st["puts"]), num(st["puts_refused"]), num(st["refused_full"]), num(st["refused_nomem"]), num(st["refused_incompressible"])
	printf "  evicted        %.0f (LRU), %.0f (shrinker)\n", num(st["evicted"]), num(st["shrunk"])
	printf "\n%-16s %5s %10s %9s %10s %10s %6s %9s\n", "PRECACHE", "POOL", "PUTS", "REFUSED", "HITS", "MISSES", "HIT", "FLUSHES"
	if (npc == 0)
		printf "  (no filesystem has a pool: one is made at its first disk read)\n"
	for (i = 1; i <= npc; i++)
		printf "%-16s %5s %10.0f %9.0f %10.0f %10.0f %6s %9.0f\n", pc[i, "fs"], pc[i, "pool"], pc[i, "puts"], pc[i, "ref"], pc[i, "hits"], pc[i, "misses"], ratio(pc[i, "hits"], pc[i, "hits"] + pc[i, "misses"]), pc[i, "flushes"]
	printf "\n%-16s %9s %9s %10s %9s %10s %6s %9s\n", "PRESWAP", "SLOTS", "HELD", "PUTS", "REFUSED", "GETS", "MISSES", "MOVED"
	if (psj != "" && ps_enabled == "0")
		printf "  (vm.preswap_enabled = 0: no new puts)\n"
	if (nar == 0)
		printf "  (no swap area is on)\n"
	for (i = 1; i <= nar; i++) {
		d = (i - 1) in dev ? dev[i - 1] : "type " ar[i, "type"]
		printf "%-16s %9.0f %9.0f %10.0f %9.0f %10.0f %6.0f %9.0f\n", d, ar[i, "slots"], ar[i, "held"], ar[i, "puts"], ar[i, "ref"], ar[i, "gets"], ar[i, "miss"], ar[i, "out"]
	}
	if (ps_refcg > 0)
		printf "  %.0f puts refused by memory cgroup limits\n", ps_refcg
	if (ncg > 0) {
		printf "\n%-16s %9s %9s %12s %9s\n", "CGROUP (ID)", "INODE", "PAGES", "BYTES", "REFUSED"
		for (i = 1; i <= ncg; i++)
			printf "%-16s %9s %9.0f %12.0f %9.0f\n", cg[i, "id"], cg[i, "ino"], cg[i, "pages"], cg[i, "bytes"], cg[i, "ref"]
	}
}
