// Package bench holds the baseline benchmarks of the Widget server:
// create, get, list and update through the full HTTP handler
// (server.NewHandler on the memory store, and server.Open on etcd for the
// Backend benchmarks), with Widgets of about 1.9 KB of
// JSON as DESIGN.md's targets assume. The package itself only builds that
// Widget ([NewWidget], [WidgetJSON]); the benchmarks are in its tests.
//
// # What is measured
//
//	BenchmarkCreate/transport=T                     POST, unique names, into an empty server of its own
//	BenchmarkCreateParallel/transport=T             the same, 16 clients
//	BenchmarkGet/objects=N/transport=T              GET a random one of N Widgets
//	BenchmarkGetParallel/objects=10000/transport=T  the same, 16 clients
//	BenchmarkList/objects=N/transport=T             GET all N Widgets as JSON (MB/s is the response size over time)
//	BenchmarkRead/read=R/transport=T                R over the 10,000 Widgets: table, partial-metadata,
//	                                                partial-metadata-protobuf (as the metadata client lists), protobuf,
//	                                                cbor (lists), pages=500 (a pass in pages), label-1pct, label-1pct-table
//	                                                (a label selector matching 1%), field-none (a field selector matching none),
//	                                                field-1pct (a field selector on spec.color matching 1%)
//	BenchmarkUpdate/transport=T                     PUT with the current resourceVersion and a changed spec, 1,000 Widgets
//	BenchmarkWrite/op=O                             update, merge-patch or apply of spec.replicas, in process, 1,000 Widgets
//	BenchmarkWriteParallel/op=O/transport=T         16 clients changing spec.replicas of 10,000 Widgets, each its own: get-put (GET,
//	                                                then PUT back whole; one op per pair), merge-patch or apply (forced)
//	BenchmarkMemoryPerWidget/controllers=C          live heap and resident set per stored Widget after loading 10,000 (create + status)
//	                                                and listing them, once settled (heap-B/widget, inuse-B/widget, rss-B/widget, anon-B/widget), with the garbage
//	                                                collector and namespace controller on or off; -bench.heapprofile writes a heap
//	                                                profile of the loaded server (run each sub-benchmark in a process of its own)
//	BenchmarkMemoryPerCreatedWidget                 the same for 10,000 Widgets only created
//	BenchmarkStartToReady/path=P                    from server.Open (in process) or Run (loopback) to /readyz and a Widget list answering 200;
//	                                                path=open also with the controllers on or off (path=open/controllers=C)
//	BenchmarkWatchFanOut/watchers=W                 W watchers over loopback, 1,000 updates at 500/s: updates/s achieved, delivery p50/p99/max,
//	                                                encodings per event, CPU per delivery, load average
//	BenchmarkCascadeDelete/policy=P                 DELETE of a Gadget owning 10,000 Widgets (Background, Foreground) until they are gone: time and peak heap
//	BenchmarkNamespaceDelete                        DELETE of a namespace holding 10,000 Widgets until it is gone: time and peak heap
//	BenchmarkListVersions/version=V                 GET all 10,000 Widgets as JSON in v1 (storage) or v1beta1 (converted)
//	BenchmarkGetInstrumented/transport=T/instruments=I  BenchmarkGetParallel with Prometheus metrics and OpenTelemetry tracing off or on
//	                                                (-bench.instrumented-objects N loads N Widgets instead of 10,000, for runs under callgrind)
//	BenchmarkGetParallelAuthz/transport=T/auth=A    BenchmarkGetParallel on 1,000 Widgets with authentication and RBAC off or on
//	BenchmarkFlood/limits=L                         a polite user's GETs while 200 clients of another user flood writes,
//	                                                with in-flight limits off or on: polite p50/p99, 429s per second, RSS
//
// N is 1,000 and 10,000. T is the transport:
//
//   - inprocess calls handler.ServeHTTP with an httptest.ResponseRecorder:
//     the server alone. Its B/op and allocs/op include about a dozen small
//     allocations of the client side (http.NewRequest, the recorder), but
//     not the recorder's body buffer, which is kept from request to request.
//   - loopback goes through an httptest.Server on 127.0.0.1 with a
//     keep-alive http.Client, compression off: what a client on the same
//     machine sees. Client and server share the CPUs, as they would in a
//     load test on one machine.
//
// The Backend benchmarks run the same requests on each store, as
// sub-benchmarks backend=memory and backend=etcd (servers opened with
// server.Open on one embedded single-member etcd that syncs to disk, each
// under its own prefix):
//
//	BenchmarkBackendCreate/backend=B          POST, unique names, one client, in process
//	BenchmarkBackendCreateParallel/backend=B  the same, 16 clients
//	BenchmarkBackendGet/backend=B             GET a random one of 1,000 Widgets, in process
//	BenchmarkBackendGetParallel/backend=B     the same, 16 clients; on etcd also etcd-rt/op, the unary requests etcd handled per GET
//	BenchmarkBackendList/backend=B            GET all 1,000 Widgets as JSON, in process
//	BenchmarkBackendWatch/backend=B           POST in process, then read its ADDED event from a watch over loopback
//
// Compare the backends from one run with benchstat -col /backend.
//
// The parallel benchmarks set b.SetParallelism so that
// GOMAXPROCS × parallelism ≥ 16 goroutines (8 per core on 2 cores) each
// act as one client, and report req/s (requests per second over all
// clients), p50-ns, p99-ns (request latency quantiles, within 12.5%) and
// cpu-ns/op (process CPU time per request, clients' share included: much
// less sensitive to the machine's load than the rates) next to ns/op
// (wall time per request over all clients).
//
// # Object size
//
// The loaded Widgets are [NewWidget]'s by default: about 1.9 KB of JSON as
// sent, about 3.9 KB as stored, since the server adds managedFields (1.6 KB
// for a create and a status update of that many fields) and status. With
// -bench.widget small they are [NewSmallWidget]'s, about 1.9 KB as stored
// (as served: managedFields, status and the server's metadata included),
// the size of the objects of the side-by-side comparison with
// kube-apiserver (its JSON list of 10,000 was 17.8 MiB). The flag changes
// what every preloading benchmark loads (BenchmarkMemoryPerWidget,
// BenchmarkList, BenchmarkRead, BenchmarkGet...) and the Widgets
// BenchmarkWatchFanOut writes, not the names of the benchmarks, so compare
// the two sizes from separate runs:
//
//	go test -run x -bench 'MemoryPerWidget|List/objects=10000|Read/read=pages=500' ./bench -args -bench.widget small
//
// # Instructions per request
//
// scripts/opcount.sh counts the instructions one create, update, merge
// patch, apply, get and list of 1,000 Widgets cost in process, under
// valgrind's callgrind, from two runs of each benchmark at different
// iteration counts; -bench.controllers=false, which it passes, runs the
// fixtures' servers without their controllers so that their goroutines
// do not run inside the counted requests. Counts, unlike times, do not
// depend on the machine's load: compare two commits with the script run
// in a checkout of each (GOGC=off leaves the collector's work out).
//
// # HTTP/2
//
// Over loopback the clients speak HTTP/1.1, on a connection each. With
// -bench.http2 the server serves TLS and the clients share one HTTP/2
// transport, as client-go's do: requests and watches are streams of a few
// connections (-bench.http2-streams sets how many a connection allows,
// 100 by default as the example server), and each response crosses
// net/http's writer goroutine of its connection and TLS.
//
// The Widgets are loaded through the handler (POST, then PUT .../status,
// since create drops status), each with a label bench.example.com/shard
// of "00" to "99" and a spec.color of one of 100 colors, so that a
// selector on one shard or color matches 1%, before the
// timer starts, once per process for each size; loading 10,000 takes about a second. Every benchmark
// checks the status code of every response, and TestBenchmarkRequests
// checks the requests themselves (codes, names, item counts, new
// resourceVersions), so that no benchmark can measure error responses.
//
// # Running and comparing
//
// From the examples module:
//
//	go test -run x -bench . -benchmem -count 6 ./bench | tee old.txt
//	# ... change the library ...
//	go test -run x -bench . -benchmem -count 6 ./bench | tee new.txt
//	go install golang.org/x/perf/cmd/benchstat@latest
//	benchstat old.txt new.txt
//
// Compare ratios, not absolute times: machines are noisy. Run both sides on
// the same machine, with nothing else busy; -count 6 or more gives benchstat
// enough samples for its confidence intervals. A subset runs with, e.g.,
// -bench 'List/objects=10000'; a CPU profile of one benchmark with
// -cpuprofile cpu.out and go tool pprof -top -cum cpu.out.
package bench
