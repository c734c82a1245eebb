package apiserver_test

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// widgetV1beta1 is the Widget of v1beta1, where spec.replicas is named
// spec.count. widget (v1) is the hub.
type widgetV1beta1 struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            widgetV1beta1Spec `json:"spec,omitempty"`
	Status          widgetStatus      `json:"status,omitempty"`
}

type widgetV1beta1Spec struct {
	Count *int32       `json:"count,omitempty"`
	Color string       `json:"color,omitempty"`
	Tags  []string     `json:"tags,omitempty" listType:"set"`
	Ports []widgetPort `json:"ports,omitempty" listType:"map" listMapKey:"name"`
}

func (*widget) Hub() {}

// errPoison is what conversion answers for a Widget whose color is
// "poison", to test conversion failures.
var errPoison = errors.New("poisoned")

func (w *widgetV1beta1) ConvertTo(h apiserver.Hub) error {
	dst := h.(*widget)
	if w.Spec.Color == "poison" {
		return errPoison
	}
	dst.ObjectMeta = w.ObjectMeta
	dst.Spec = widgetSpec{Replicas: w.Spec.Count, Color: w.Spec.Color, Tags: w.Spec.Tags, Ports: w.Spec.Ports}
	dst.Status = w.Status
	return nil
}

func (w *widgetV1beta1) ConvertFrom(h apiserver.Hub) error {
	src := h.(*widget)
	if src.Spec.Color == "poison" {
		return errPoison
	}
	w.ObjectMeta = src.ObjectMeta
	w.Spec = widgetV1beta1Spec{Count: src.Spec.Replicas, Color: src.Spec.Color, Tags: src.Spec.Tags, Ports: src.Spec.Ports}
	w.Status = src.Status
	return nil
}

// twoVersionKind is the test Widget served in v1 (the storage version)
// and v1beta1 (deprecated), or with storage in v1beta1.
func twoVersionKind(storage string) apiserver.Kind {
	k := widgetKind()
	k.Version = ""
	if storage != "v1" { // the hooks read v1 objects
		k.Validate, k.SelectableFields = nil, nil
	}
	k.Versions = []apiserver.KindVersion{
		{Name: "v1", Storage: storage == "v1"},
		{Name: "v1beta1", Storage: storage == "v1beta1", Deprecated: true,
			New: func() meta.Object { return &widgetV1beta1{} },
			Subresources: &apiserver.Subresources{Status: true, Scale: &apiserver.Scale{SpecReplicasPath: ".spec.count",
				StatusReplicasPath: ".status.readyReplicas", LabelSelectorPath: ".status.selector"}}},
	}
	return k
}

const (
	v1Path      = "/apis/stable.example.com/v1/namespaces/default/widgets"
	v1beta1Path = "/apis/stable.example.com/v1beta1/namespaces/default/widgets"
	deprecation = `299 - "stable.example.com/v1beta1 Widget is deprecated; use stable.example.com/v1 Widget"`
)

// startVersions serves the kinds on store and returns the server.
func startVersions(t testing.TB, store storage.Interface, kinds ...apiserver.Kind) (*apiserver.Server, *httptest.Server) {
	t.Helper()
	if store == nil {
		store = memory.New(memory.Options{})
	}
	srv := apiserver.New(apiserver.Options{Storage: store})
	for _, k := range kinds {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return srv, ts
}
