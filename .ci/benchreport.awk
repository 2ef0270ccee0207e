# Summarises `go test -bench` output: the median of every custom metric of
# every benchmark over its -count runs (the machines are shared and noisy),
# then the engine step's targets.
# Figures written by the end-to-end tests (STEWARD_UI_BENCH) are in the same
# form: E2EProviderShare/N=... is Steward's own share of a step through the
# OpenAI provider, E2EProviderSDKControl/N=... the same requests made with
# the openai-go SDK alone, in the same run.
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i += 2) {
		unit = $(i + 1)
		if (unit == "ns/op" || unit == "B/op" || unit == "allocs/op") continue
		key = name " " unit
		if (!(key in n)) order[++keys] = key
		vals[key, ++n[key]] = $i
	}
}
END {
	printf "\n%-40s %-16s %12s %s\n", "benchmark", "metric", "median", "runs"
	for (k = 1; k <= keys; k++) {
		key = order[k]; m = n[key]
		for (i = 1; i <= m; i++) a[i] = vals[key, i] + 0
		for (i = 2; i <= m; i++) { v = a[i]; j = i - 1; while (j > 0 && a[j] > v) { a[j + 1] = a[j]; j-- }; a[j + 1] = v }
		med = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		split(key, parts, " ")
		printf "%-40s %-16s %12.4g %d\n", parts[1], parts[2], med, m
		medians[key] = med
	}
	# Issue 15's targets for the engine's step, judged beside the control
	# (a raw SQLite loop of the same rows, in the same run).
	for (k = 1; k <= keys; k++) {
		key = order[k]
		if (key !~ /^BenchmarkEngineSteps\/N=[0-9]+ ms\/step$/) continue
		split(key, parts, " "); b = parts[1]
		printf "%-40s ms/step %.3g (target <= 0.28: %s), last/first %.3g (target <= 1.2: %s), control %.3g ms/step\n", b,
			medians[key], (medians[key] <= 0.28 ? "met" : "missed"), medians[b " last/first"],
			(medians[b " last/first"] <= 1.2 ? "met" : "missed"), medians[b " control-ms/step"]
	}
}
