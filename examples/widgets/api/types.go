// Package api defines the example kinds: the namespaced Widget and the
// cluster-scoped Gadget of group stable.example.com, version v1. Widget
// is served in v1beta1 too (WidgetV1beta1, deprecated), converted by Go
// functions.
//
// Widget is the contract of DESIGN.md: every field it lists may be set,
// changed and removed by any write within its bounds (replicas 0 to 1000,
// color lower-case letters, unique tags, ports keyed by a required name).
// Beyond the contract, Widget carries spec.serial, the example's CEL
// showcase, in both versions; its rules bind serial alone:
//
//   - a rule with a messageExpression: a serial is "SN-" and digits;
//   - a transition rule on serial, self == oldSelf: it never changes once
//     set;
//   - a transition rule on spec: a serial once set is not removed.
package api

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// Group and Version of the example kinds.
const (
	Group   = "stable.example.com"
	Version = "v1"
)

// Widget is the example namespaced kind.
type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            WidgetSpec   `json:"spec,omitzero" protobuf:"bytes,2,opt,name=spec"`
	Status          WidgetStatus `json:"status,omitzero" protobuf:"bytes,3,opt,name=status"`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	Replicas *int32       `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas" default:"1" minimum:"0" maximum:"1000" description:"Number of desired replicas."`
	Color    string       `json:"color,omitempty" protobuf:"bytes,2,opt,name=color" pattern:"^[a-z]+$" description:"Color of the widget, lower-case letters only."`
	Size     string       `json:"size,omitempty" protobuf:"bytes,3,opt,name=size" description:"Size of the widget."`
	Tags     []string     `json:"tags,omitempty" protobuf:"bytes,4,rep,name=tags" listType:"set" description:"Free-form tags, each at most once."`
	Ports    []WidgetPort `json:"ports,omitempty" protobuf:"bytes,5,rep,name=ports" listType:"map" listMapKey:"name" patchStrategy:"merge" patchMergeKey:"name" description:"Ports the widget listens on, keyed by name."`
	Serial   string       `json:"serial,omitempty" protobuf:"bytes,6,opt,name=serial" description:"Serial number, SN- and digits, fixed once set." rule:"self == oldSelf" message:"serial is immutable once set"`
}

// ValidationRules are the CEL rules on a Widget's spec, beside the
// transition rule in the tags of Serial. They are the example's CEL
// showcase and bind only serial, a field beyond the Widget contract of
// DESIGN.md: every write the contract allows passes them.
func (WidgetSpec) ValidationRules() []schema.Rule {
	return serialRules()
}

// serialRules are the rules on the serial field, the same in every
// version: a plain rule with a messageExpression, and a transition rule
// that keeps a serial from being removed.
func serialRules() []schema.Rule {
	return []schema.Rule{
		{Rule: "!has(self.serial) || self.serial.matches('^SN-[0-9]+$')",
			MessageExpression: "'serial ' + self.serial + ' must be SN- followed by digits'", FieldPath: ".serial"},
		{Rule: "!has(oldSelf.serial) || has(self.serial)",
			Message: "serial may not be removed once set", FieldPath: ".serial", Reason: schema.ReasonForbidden},
	}
}

// WidgetPort is one named port.
type WidgetPort struct {
	Name     string `json:"name" protobuf:"bytes,1,opt,name=name" description:"Name of the port, unique in the widget."`
	Port     int32  `json:"port" protobuf:"varint,2,opt,name=port" description:"Port number."`
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol" default:"\"TCP\"" description:"Protocol, TCP by default."`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	ReadyReplicas      int32       `json:"readyReplicas,omitempty" protobuf:"varint,1,opt,name=readyReplicas" description:"Number of ready replicas."`
	ObservedGeneration int64       `json:"observedGeneration,omitempty" protobuf:"varint,2,opt,name=observedGeneration" description:"Generation last acted on."`
	Selector           string      `json:"selector,omitempty" protobuf:"bytes,3,opt,name=selector" description:"Label selector of the replicas, for the scale subresource."`
	Conditions         []Condition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions" listType:"map" listMapKey:"type" patchStrategy:"merge" patchMergeKey:"type" description:"Current conditions."`
}

// Condition is one aspect of a Widget's state.
type Condition struct {
	Type               string    `json:"type" protobuf:"bytes,1,opt,name=type" description:"Type of the condition."`
	Status             string    `json:"status" protobuf:"bytes,2,opt,name=status" description:"True, False or Unknown."`
	Reason             string    `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason" description:"Machine-readable reason of the last transition."`
	Message            string    `json:"message,omitempty" protobuf:"bytes,4,opt,name=message" description:"Human-readable message of the last transition."`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime" description:"When the condition last changed."`
}

// Gadget is the example cluster-scoped kind.
type Gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            GadgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// GadgetSpec is the desired state of a Gadget.
type GadgetSpec struct {
	Owner string `json:"owner,omitempty" protobuf:"bytes,1,opt,name=owner" description:"Who owns the gadget."`
	Level int32  `json:"level,omitempty" protobuf:"varint,2,opt,name=level" description:"Level of the gadget."`
}

// WidgetKind is the registration of Widget.
func WidgetKind() apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: Version, Kind: "Widget", Resource: "widgets", Singular: "widget",
		ShortNames: []string{"wd"}, Namespaced: true,
		// An update names the resourceVersion it replaces, as
		// kube-apiserver requires of a custom resource.
		RequireResourceVersion: true,
		Subresources: apiserver.Subresources{Status: true, Scale: &apiserver.Scale{SpecReplicasPath: ".spec.replicas",
			StatusReplicasPath: ".status.readyReplicas", LabelSelectorPath: ".status.selector"}},
		// The schema built from the struct tags defaults replicas and
		// protocol and checks replicas, color and list uniqueness; its
		// CEL rules (WidgetSpec.ValidationRules and the tags of Serial)
		// need a server with a rule engine.
		New:      func() meta.Object { return &Widget{} },
		Versions: widgetVersions(),
		Validate: func(_ context.Context, obj, _ meta.Object) status.FieldErrors { return validateWidget(obj.(*Widget)) },
		SelectableFields: map[string]func(meta.Object) string{
			"spec.color": func(obj meta.Object) string { return obj.(*Widget).Spec.Color },
		},
		PrinterColumns: []apiserver.PrinterColumn{
			{Name: "Color", Type: "string", JSONPath: ".spec.color"},
			{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
			{Name: "Ready", Type: "integer", JSONPath: ".status.readyReplicas"},
			{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		},
	}
}

// GadgetKind is the registration of Gadget.
func GadgetKind() apiserver.Kind {
	return apiserver.Kind{
		Group: Group, Version: Version, Kind: "Gadget", Resource: "gadgets", Singular: "gadget",
		Namespaced:             false,
		RequireResourceVersion: true,
		New:                    func() meta.Object { return &Gadget{} },
		PrinterColumns:         []apiserver.PrinterColumn{gadgetAge()},
	}
}

// gadgetAge is the Age column kube-apiserver gives a custom resource
// without printer columns of its own: Gadget's Table is the one kubectl
// shows for the Gadget CRD of DESIGN.md.
func gadgetAge() apiserver.PrinterColumn {
	c := apiserver.AgeColumn()
	c.Type = "date"
	return c
}

// validateWidget checks what the schema does not: the schema requires
// each port's name to be sent (it is a Go field without omitempty), and
// as the key of the ports list it must not be empty either.
func validateWidget(w *Widget) status.FieldErrors {
	var errs status.FieldErrors
	for i, p := range w.Spec.Ports {
		if p.Name == "" {
			errs = append(errs, status.Required(status.NewPath("spec", "ports").Index(i).Child("name"), ""))
		}
	}
	return errs
}
