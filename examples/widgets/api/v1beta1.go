package api

import (
	"errors"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// VersionV1beta1 is the earlier, deprecated version of Widget, still
// served: its spec names replicas count.
const VersionV1beta1 = "v1beta1"

// WidgetV1beta1 is a Widget in version v1beta1. It converts to and from
// Widget, the hub, with ConvertTo and ConvertFrom.
type WidgetV1beta1 struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            WidgetV1beta1Spec `json:"spec,omitzero" protobuf:"bytes,2,opt,name=spec"`
	Status          WidgetStatus      `json:"status,omitzero" protobuf:"bytes,3,opt,name=status"`
}

// WidgetV1beta1Spec is WidgetSpec with replicas named count.
type WidgetV1beta1Spec struct {
	Count  *int32       `json:"count,omitempty" protobuf:"varint,1,opt,name=count" default:"1" minimum:"0" maximum:"1000" description:"Number of desired replicas."`
	Color  string       `json:"color,omitempty" protobuf:"bytes,2,opt,name=color" pattern:"^[a-z]+$" description:"Color of the widget, lower-case letters only."`
	Size   string       `json:"size,omitempty" protobuf:"bytes,3,opt,name=size" description:"Size of the widget."`
	Tags   []string     `json:"tags,omitempty" protobuf:"bytes,4,rep,name=tags" listType:"set" description:"Free-form tags, each at most once."`
	Ports  []WidgetPort `json:"ports,omitempty" protobuf:"bytes,5,rep,name=ports" listType:"map" listMapKey:"name" patchStrategy:"merge" patchMergeKey:"name" description:"Ports the widget listens on, keyed by name."`
	Serial string       `json:"serial,omitempty" protobuf:"bytes,6,opt,name=serial" description:"Serial number, SN- and digits, fixed once set." rule:"self == oldSelf" message:"serial is immutable once set"`
}

// ValidationRules are WidgetSpec's rules, which v1beta1 shares: a write
// through v1beta1 is validated with v1beta1's schema, and the rules bind
// only serial, named alike in both versions.
func (WidgetV1beta1Spec) ValidationRules() []schema.Rule {
	return serialRules()
}

// Hub marks Widget (v1) as the version every other converts through.
func (*Widget) Hub() {}

var errNotWidget = errors.New("the hub is not a *Widget")

// ConvertTo fills the hub, a *Widget, from w. The result shares w's
// slices and maps.
func (w *WidgetV1beta1) ConvertTo(hub apiserver.Hub) error {
	dst, ok := hub.(*Widget)
	if !ok {
		return errNotWidget
	}
	dst.ObjectMeta = w.ObjectMeta
	dst.Spec = WidgetSpec{Replicas: w.Spec.Count, Color: w.Spec.Color, Size: w.Spec.Size, Tags: w.Spec.Tags, Ports: w.Spec.Ports, Serial: w.Spec.Serial}
	dst.Status = w.Status
	return nil
}

// ConvertFrom fills w from the hub, a *Widget. The result shares the
// hub's slices and maps.
func (w *WidgetV1beta1) ConvertFrom(hub apiserver.Hub) error {
	src, ok := hub.(*Widget)
	if !ok {
		return errNotWidget
	}
	w.ObjectMeta = src.ObjectMeta
	w.Spec = WidgetV1beta1Spec{Count: src.Spec.Replicas, Color: src.Spec.Color, Size: src.Spec.Size, Tags: src.Spec.Tags, Ports: src.Spec.Ports, Serial: src.Spec.Serial}
	w.Status = src.Status
	return nil
}

// widgetVersions are the versions Widget is served in: v1, stored, and
// v1beta1, deprecated.
func widgetVersions() []apiserver.KindVersion {
	return []apiserver.KindVersion{
		{Name: Version, Storage: true},
		{Name: VersionV1beta1, Deprecated: true,
			New: func() meta.Object { return &WidgetV1beta1{} },
			Subresources: &apiserver.Subresources{Status: true, Scale: &apiserver.Scale{SpecReplicasPath: ".spec.count",
				StatusReplicasPath: ".status.readyReplicas", LabelSelectorPath: ".status.selector"}},
			PrinterColumns: []apiserver.PrinterColumn{
				{Name: "Color", Type: "string", JSONPath: ".spec.color"},
				{Name: "Replicas", Type: "integer", JSONPath: ".spec.count"},
				{Name: "Ready", Type: "integer", JSONPath: ".status.readyReplicas"},
				{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
			}},
	}
}
