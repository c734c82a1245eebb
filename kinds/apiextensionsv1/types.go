package apiextensionsv1

import (
	"encoding/json"

	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// CustomResourceDefinition describes a kind served at run time, as
// apiextensions.k8s.io/v1 CustomResourceDefinition does. Its name is
// <spec.names.plural>.<spec.group>.
type CustomResourceDefinition struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            CustomResourceDefinitionSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec" optional:"true"`
	Status          CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CustomResourceDefinitionSpec is what a definition asks for.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the kind ("stable.example.com").
	Group string `json:"group" protobuf:"bytes,1,opt,name=group" optional:"true"`
	// Names are the kind's names.
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names" optional:"true"`
	// Scope is Namespaced or Cluster.
	Scope string `json:"scope" protobuf:"bytes,4,opt,name=scope" optional:"true"`
	// Versions are the versions served; exactly one is the storage
	// version.
	Versions []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	// Conversion says how objects convert between versions.
	Conversion *CustomResourceConversion `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// PreserveUnknownFields must be false in v1.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceDefinitionNames are the names of a kind.
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural" protobuf:"bytes,1,opt,name=plural" optional:"true"`
	Singular   string   `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,opt,name=shortNames"`
	Kind       string   `json:"kind" protobuf:"bytes,4,opt,name=kind" optional:"true"`
	ListKind   string   `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// CustomResourceDefinitionVersion is one version of the kind.
type CustomResourceDefinitionVersion struct {
	Name               string                    `json:"name" protobuf:"bytes,1,opt,name=name" optional:"true"`
	Served             bool                      `json:"served" protobuf:"varint,2,opt,name=served" optional:"true"`
	Storage            bool                      `json:"storage" protobuf:"varint,3,opt,name=storage" optional:"true"`
	Deprecated         bool                      `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	DeprecationWarning *string                   `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	Schema             *CustomResourceValidation `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	// Subresources are the status and scale subresources served.
	Subresources             *CustomResourceSubresources      `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	SelectableFields         []SelectableField                `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the structural schema of the kind, kept as
	// the JSON kube-apiserver would write of it; in protobuf it is a
	// typed JSONSchemaProps (see schemaproto.go).
	OpenAPIV3Schema JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// JSONSchemaProps is an OpenAPI v3 schema, kept as JSON in kube's form.
type JSONSchemaProps json.RawMessage

// MarshalJSON writes the schema as it is, or null.
func (p JSONSchemaProps) MarshalJSON() ([]byte, error) {
	if len(p) == 0 {
		return []byte("null"), nil
	}
	return p, nil
}

// UnmarshalJSON keeps the schema as kube-apiserver keeps it: read into
// its typed form and written back, so that its fields come in kube's
// order, unknown ones are gone and JSON values (default, example, enum)
// are re-encoded as kube stores them.
func (p *JSONSchemaProps) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*p = nil
		return nil
	}
	s := &schemaProps{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, s); err != nil {
		return err
	}
	out, err := json.Marshal(s)
	if err != nil {
		return err
	}
	*p = out
	return nil
}

// OpenAPISchema describes a schema as any JSON object.
func (*JSONSchemaProps) OpenAPISchema() *schema.Schema {
	return &schema.Schema{Type: "object", XPreserveUnknownFields: true}
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Status, when present, serves /status.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// Scale, when present, serves /scale.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
}

// CustomResourceSubresourceStatus turns on /status; it has no fields.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps /scale onto the kind's fields.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath" protobuf:"bytes,1,name=specReplicasPath" optional:"true"`
	StatusReplicasPath string  `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath" optional:"true"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}

// CustomResourceColumnDefinition is a column of kubectl get.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name" protobuf:"bytes,1,opt,name=name" optional:"true"`
	Type        string `json:"type" protobuf:"bytes,2,opt,name=type" optional:"true"`
	Format      string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Priority    int32  `json:"priority,omitempty" protobuf:"bytes,5,opt,name=priority"`
	JSONPath    string `json:"jsonPath" protobuf:"bytes,6,opt,name=jsonPath" optional:"true"`
}

// SelectableField is a field field selectors may name.
type SelectableField struct {
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath" optional:"true"`
}

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion struct {
	// Strategy is None or Webhook.
	Strategy string             `json:"strategy" protobuf:"bytes,1,name=strategy" optional:"true"`
	Webhook  *WebhookConversion `json:"webhook,omitempty" protobuf:"bytes,2,opt,name=webhook"`
}

// WebhookConversion is the webhook converting objects.
type WebhookConversion struct {
	ClientConfig             *WebhookClientConfig `json:"clientConfig,omitempty" protobuf:"bytes,2,name=clientConfig"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// WebhookClientConfig says how to reach a webhook.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	Service  *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	CABundle []byte            `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference names a Service a webhook is reached through.
type ServiceReference struct {
	Namespace string  `json:"namespace" protobuf:"bytes,1,opt,name=namespace" optional:"true"`
	Name      string  `json:"name" protobuf:"bytes,2,opt,name=name" optional:"true"`
	Path      *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	Port      *int32  `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// CustomResourceDefinitionStatus is what the server reports. Conditions
// are left out while there are none, where kube-apiserver writes null:
// `kubectl wait --for=condition=Established` fails on a null list
// (".status.conditions accessor error") and waits on an absent one, and
// a script that waits right after creating a definition must not lose
// that race to the controller.
type CustomResourceDefinitionStatus struct {
	Conditions     []CustomResourceDefinitionCondition `json:"conditions,omitempty" listType:"map" listMapKey:"type" protobuf:"bytes,1,opt,name=conditions"`
	AcceptedNames  CustomResourceDefinitionNames       `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames" optional:"true"`
	StoredVersions []string                            `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
	// ObservedGeneration is the generation the status was last made
	// from.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,4,opt,name=observedGeneration"`
}

// CustomResourceDefinitionCondition is one condition of a definition.
type CustomResourceDefinitionCondition struct {
	Type               string    `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             string    `json:"status" protobuf:"bytes,2,opt,name=status" optional:"true"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string    `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string    `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
	// ObservedGeneration is the generation the condition was set from.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,6,opt,name=observedGeneration"`
}

// The condition types and statuses of a definition.
const (
	Established    = "Established"
	NamesAccepted  = "NamesAccepted"
	Terminating    = "Terminating"
	ConditionTrue  = "True"
	ConditionFalse = "False"
	// ConditionUnknown is the status of a condition not yet decided.
	ConditionUnknown = "Unknown"
)

// Scopes and conversion strategies.
const (
	NamespaceScoped  = "Namespaced"
	ClusterScoped    = "Cluster"
	NoneConverter    = "None"
	WebhookConverter = "Webhook"
	CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"
	groupName        = "apiextensions.k8s.io"
	resourceName     = "customresourcedefinitions"
)

// Condition returns the definition's condition of type typ, or nil.
func (c *CustomResourceDefinition) Condition(typ string) *CustomResourceDefinitionCondition {
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Type == typ {
			return &c.Status.Conditions[i]
		}
	}
	return nil
}

// SetCondition sets a condition, keeping its transition time when its
// status is unchanged.
func (c *CustomResourceDefinition) SetCondition(cond CustomResourceDefinitionCondition, now meta.Time) {
	old := c.Condition(cond.Type)
	if old == nil {
		cond.LastTransitionTime = now
		c.Status.Conditions = append(c.Status.Conditions, cond)
		return
	}
	if old.Status == cond.Status && !old.LastTransitionTime.IsZero() {
		cond.LastTransitionTime = old.LastTransitionTime
	} else {
		cond.LastTransitionTime = now
	}
	*old = cond
}

// StorageVersion returns the name of the storage version, or "".
func (c *CustomResourceDefinition) StorageVersion() string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// Served reports whether the definition serves any version: kube-apiserver
// takes a definition that serves none, whose kind it does not serve.
func (c *CustomResourceDefinition) Served() bool {
	for _, v := range c.Spec.Versions {
		if v.Served {
			return true
		}
	}
	return false
}

// IsEstablished reports whether the definition's kind is served.
func (c *CustomResourceDefinition) IsEstablished() bool {
	e := c.Condition(Established)
	return e != nil && e.Status == ConditionTrue
}
