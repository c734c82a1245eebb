package bench

import (
	"encoding/json"
	"time"

	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/meta"
)

// Namespace is the namespace the benchmark Widgets live in.
const Namespace = "bench"

// CollectionPath is the URL path of the benchmark Widgets' collection.
const CollectionPath = "/apis/" + api.Group + "/" + api.Version + "/namespaces/" + Namespace + "/widgets"

// ObjectPath is the URL path of one benchmark Widget.
func ObjectPath(name string) string { return CollectionPath + "/" + name }

// Name returns the name of the i-th benchmark Widget with the given
// prefix. Names have the same length (for i < 10^9), so that Widgets of
// the same prefix length encode to the same number of bytes.
func Name(prefix string, i int) string { return string(AppendName(nil, prefix, i)) }

// AppendName appends Name(prefix, i) to dst without allocating.
func AppendName(dst []byte, prefix string, i int) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, "-000000000"...)
	for j := len(dst) - 1; i > 0 && j > len(dst)-10; j-- {
		dst[j] = byte('0' + i%10)
		i /= 10
	}
	return dst
}

// transitionTime is the fixed lastTransitionTime of the conditions, so that
// every Widget encodes to the same number of bytes.
var transitionTime = meta.NewTime(time.Date(2025, 6, 1, 12, 30, 45, 0, time.UTC))

// NewWidget returns the benchmark Widget named name: labels, annotations,
// spec (replicas, color, size, tags, ports) and status (replicas,
// generation, selector, conditions) filled the way a real workload's object
// is, so that its JSON encoding is about 1.9 KB, the size DESIGN.md's
// targets assume. The server adds uid, resourceVersion, generation and
// creationTimestamp (about 130 bytes) and drops status on create; the
// benchmarks' preload writes it back through the status subresource.
func NewWidget(name string) *api.Widget {
	replicas := int32(3)
	return &api.Widget{
		TypeMeta: meta.TypeMeta{APIVersion: api.Group + "/" + api.Version, Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{
			Name:      name,
			Namespace: Namespace,
			Labels: map[string]string{
				"app.kubernetes.io/name":       "widget",
				"app.kubernetes.io/instance":   name,
				"app.kubernetes.io/component":  "frontend",
				"app.kubernetes.io/part-of":    "storefront",
				"app.kubernetes.io/managed-by": "kapi-bench",
				"app.kubernetes.io/version":    "v1.42.7",
				"environment":                  "production",
			},
			Annotations: map[string]string{
				"example.com/description":     "A benchmark widget with representative metadata, spec and status.",
				"example.com/owner":           "platform-team@example.com",
				"example.com/runbook":         "https://runbooks.example.com/widgets/storefront-frontend",
				"example.com/last-applied-by": "deploy-pipeline/storefront",
			},
		},
		Spec: api.WidgetSpec{
			Replicas: &replicas,
			Color:    "turquoise",
			Size:     "large",
			Tags:     []string{"frontend", "storefront", "checkout", "cache", "eu-west-1", "canary", "pci-scope", "tier-1"},
			Ports: []api.WidgetPort{
				{Name: "http", Port: 8080, Protocol: "TCP"},
				{Name: "https", Port: 8443, Protocol: "TCP"},
				{Name: "metrics", Port: 9090, Protocol: "TCP"},
				{Name: "health", Port: 8081, Protocol: "TCP"},
				{Name: "grpc", Port: 9000, Protocol: "TCP"},
				{Name: "dns", Port: 5353, Protocol: "UDP"},
			},
		},
		Status: api.WidgetStatus{
			ReadyReplicas:      3,
			ObservedGeneration: 1,
			Selector:           "app.kubernetes.io/name=widget,app.kubernetes.io/instance=" + name,
			Conditions: []api.Condition{
				{Type: "Available", Status: "True", Reason: "MinimumReplicasAvailable",
					Message: "Widget has minimum availability: 3 of 3 replicas ready.", LastTransitionTime: transitionTime},
				{Type: "Progressing", Status: "True", Reason: "NewReplicaSetAvailable",
					Message: "Widget rollout of revision 7 has successfully progressed.", LastTransitionTime: transitionTime},
				{Type: "Degraded", Status: "False", Reason: "AsExpected",
					Message: "All replicas are healthy and serving traffic.", LastTransitionTime: transitionTime},
			},
		},
	}
}

// WidgetJSON returns the JSON encoding of NewWidget(name).
func WidgetJSON(name string) []byte {
	b, err := json.Marshal(NewWidget(name))
	if err != nil {
		panic(err) // a Widget always encodes
	}
	return b
}

// NewSmallWidget returns a smaller benchmark Widget named name, the size
// of the objects a user measured kapi and kube-apiserver with: about
// 1.9 KB of JSON as stored, managedFields (of its create and of its status
// update), status and the server's metadata included, where
// [NewWidget]'s stored form is about 3.9 KB. It has the same kinds of
// fields as NewWidget (labels, annotations, tags, ports, conditions),
// fewer of each.
func NewSmallWidget(name string) *api.Widget {
	replicas := int32(3)
	return &api.Widget{
		TypeMeta: meta.TypeMeta{APIVersion: api.Group + "/" + api.Version, Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{
			Name:      name,
			Namespace: Namespace,
			Labels: map[string]string{
				"app.kubernetes.io/name":     "widget",
				"app.kubernetes.io/instance": name,
			},
			Annotations: map[string]string{
				"example.com/owner": "platform-team@example.com",
			},
		},
		Spec: api.WidgetSpec{
			Replicas: &replicas,
			Color:    "turquoise",
			Size:     "large",
			Tags:     []string{"frontend", "storefront"},
			Ports: []api.WidgetPort{
				{Name: "http", Port: 8080, Protocol: "TCP"},
				{Name: "metrics", Port: 9090, Protocol: "TCP"},
			},
		},
		Status: api.WidgetStatus{
			ReadyReplicas:      3,
			ObservedGeneration: 1,
			Selector:           "app.kubernetes.io/instance=" + name,
			Conditions: []api.Condition{
				{Type: "Available", Status: "True", Reason: "MinimumReplicasAvailable",
					Message: "Widget has minimum availability.", LastTransitionTime: transitionTime},
			},
		},
	}
}
