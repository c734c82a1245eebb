#!/bin/sh
# opcount.sh counts the instructions one request of each kind costs in
# process (create, update, merge patch, apply, get, and list of 1,000
# Widgets), with valgrind's callgrind, which the machine's load and clock
# do not sway as they sway timings.
#
# Each benchmark runs twice under callgrind, with LOW and HIGH iterations,
# counting only what runs inside the benchmark client's method for the
# operation (the request built, served by the handler and answered into a
# recorder, with the garbage collection it assists); the difference of the
# two totals over HIGH-LOW is the cost of one request, so that warming up
# cancels out. The bench package is built without inlining so that those
# methods stay functions callgrind can see; the server is built as usual.
# The servers run without their controllers (-bench.controllers=false),
# whose goroutines would otherwise run, in part, inside the counted calls.
# Callgrind needs Go's asynchronous preemption off (its signals trip it)
# and a binary without cgo.
#
# The collector's work is counted with the request that triggers it, so
# totals move by a collection more or less; GOGC=off in the environment
# leaves the collector out, for comparing code paths alone. OPS names the
# operations to count (default: all).
#
# Usage, from the examples module: sh bench/scripts/opcount.sh [LOW HIGH]
set -eu
low=${1:-200}
high=${2:-1200}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go test -c -o "$dir/bench.test" \
	-gcflags='github.com/kapi-dev/kapi/examples/bench=-l' ./bench
count() {
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=2 GOGC=${GOGC:-100} valgrind --tool=callgrind \
		--callgrind-out-file="$dir/out" --collect-atstart=no \
		--toggle-collect="*bench_test.(*client).$2" \
		"$dir/bench.test" -test.run '^$' -test.bench "$1" -test.benchtime "$3x" \
		-bench.controllers=false >/dev/null 2>&1
	awk '/^(summary|totals):/ { print $2; exit }' "$dir/out"
}
printf '%-12s %14s\n' op instructions/op
for op in \
	create:create:'^BenchmarkCreate$/^transport=inprocess$' \
	update:update:'^BenchmarkUpdate$/^transport=inprocess$' \
	merge-patch:mergePatchReplicas:'^BenchmarkWrite$/^op=merge-patch$' \
	apply:applyReplicas:'^BenchmarkWrite$/^op=apply$' \
	get:get:'^BenchmarkGet$/^objects=1000$/^transport=inprocess$' \
	list:list:'^BenchmarkList$/^objects=1000$/^transport=inprocess$'; do
	name=${op%%:*}
	case " ${OPS:-$name} " in *" $name "*) ;; *) continue ;; esac
	rest=${op#*:}
	method=${rest%%:*}
	pattern=${rest#*:}
	a=$(count "$pattern" "$method" "$low")
	b=$(count "$pattern" "$method" "$high")
	printf '%-12s %14d\n' "$name" $(( (b - a) / (high - low) ))
done
