// Package prometheus publishes a kapi server's measurements as
// Prometheus metrics under kube-apiserver's names, labels and buckets, so
// that dashboards and alerts written for kube-apiserver work unchanged.
//
// The metrics are registered on the registry the host passes in, never
// on a global one:
//
//	reg := prometheus.NewRegistry()
//	m, err := kapiprom.New(reg)
//	srv := apiserver.New(apiserver.Options{Observer: m})
//	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// and for the etcd backend, etcd.Options{Observer: m}.
//
// # Metrics
//
//	apiserver_request_total                   verb, dry_run, group, version, resource, subresource, scope, component, code
//	apiserver_request_duration_seconds        verb, dry_run, group, version, resource, subresource, scope, component
//	apiserver_response_sizes                  verb, group, version, resource, subresource, scope, component (GET and LIST)
//	apiserver_current_inflight_requests       request_kind (readOnly, mutating): the most seats in use since the last scrape
//	apiserver_longrunning_requests            verb, group, version, resource, subresource, scope, component
//	apiserver_registered_watchers             group, version, kind
//	apiserver_watch_events_total              group, version, resource
//	apiserver_watch_events_sizes              group, version, resource
//	apiserver_storage_objects                 resource ("widgets.stable.example.com"; -1 until the cache has synced)
//	apiserver_request_aborts_total            verb, group, version, resource, subresource, scope
//	apiserver_request_terminations_total      verb, group, version, resource, subresource, scope, component, code (429 and 504)
//	apiserver_flowcontrol_rejected_requests_total  flow_schema ("per-user"), priority_level (readOnly, mutating), reason
//	watch_cache_capacity                      group, resource: the events the watch cache's window holds
//	apiserver_watch_cache_resource_version    group, resource
//	etcd_request_duration_seconds             operation, group, resource
//	etcd_requests_total, etcd_request_errors_total  operation, group, resource
//
// plus the Go runtime and process collectors (go_*, process_*), unless the
// registry has them already.
package prometheus
