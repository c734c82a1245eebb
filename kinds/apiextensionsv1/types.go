package apiextensionsv1

import (
	"encoding/json"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// CustomResourceDefinition describes a kind served at run time, as
// apiextensions.k8s.io/v1 CustomResourceDefinition does. Its name is
// <spec.names.plural>.<spec.group>.
type CustomResourceDefinition struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            CustomResourceDefinitionSpec   `json:"spec"`
	Status          CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionSpec is what a definition asks for.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the kind ("stable.example.com").
	Group string `json:"group"`
	// Names are the kind's names.
	Names CustomResourceDefinitionNames `json:"names"`
	// Scope is Namespaced or Cluster.
	Scope string `json:"scope"`
	// Versions are the versions served; exactly one is the storage
	// version.
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion says how objects convert between versions.
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields must be false in v1.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionNames are the names of a kind.
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is one version of the kind.
type CustomResourceDefinitionVersion struct {
	Name               string                    `json:"name"`
	Served             bool                      `json:"served"`
	Storage            bool                      `json:"storage"`
	Deprecated         bool                      `json:"deprecated,omitempty"`
	DeprecationWarning *string                   `json:"deprecationWarning,omitempty"`
	Schema             *CustomResourceValidation `json:"schema,omitempty"`
	// Subresources are the status and scale subresources served.
	Subresources             *CustomResourceSubresources      `json:"subresources,omitempty"`
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []SelectableField                `json:"selectableFields,omitempty"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the structural schema of the kind, kept as the
	// JSON it was written in.
	OpenAPIV3Schema JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// JSONSchemaProps is an OpenAPI v3 schema, kept as JSON.
type JSONSchemaProps json.RawMessage

// MarshalJSON writes the schema as it is, or null.
func (p JSONSchemaProps) MarshalJSON() ([]byte, error) {
	if len(p) == 0 {
		return []byte("null"), nil
	}
	return p, nil
}

// UnmarshalJSON keeps a copy of the JSON.
func (p *JSONSchemaProps) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*p = nil
		return nil
	}
	*p = append((*p)[:0], b...)
	return nil
}

// OpenAPISchema describes a schema as any JSON object.
func (*JSONSchemaProps) OpenAPISchema() *schema.Schema {
	return &schema.Schema{Type: "object", XPreserveUnknownFields: true}
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Status, when present, serves /status.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Scale, when present, serves /scale.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus turns on /status; it has no fields.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps /scale onto the kind's fields.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceColumnDefinition is a column of kubectl get.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// SelectableField is a field field selectors may name.
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion struct {
	// Strategy is None or Webhook.
	Strategy string             `json:"strategy"`
	Webhook  *WebhookConversion `json:"webhook,omitempty"`
}

// WebhookConversion is the webhook converting objects.
type WebhookConversion struct {
	ClientConfig             *WebhookClientConfig `json:"clientConfig,omitempty"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions"`
}

// WebhookClientConfig says how to reach a webhook.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference names a Service a webhook is reached through.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// CustomResourceDefinitionStatus is what the server reports.
type CustomResourceDefinitionStatus struct {
	Conditions     []CustomResourceDefinitionCondition `json:"conditions" listType:"map" listMapKey:"type"` // null when none, as kube writes it
	AcceptedNames  CustomResourceDefinitionNames       `json:"acceptedNames"`
	StoredVersions []string                            `json:"storedVersions"`
}

// CustomResourceDefinitionCondition is one condition of a definition.
type CustomResourceDefinitionCondition struct {
	Type               string     `json:"type"`
	Status             string     `json:"status"`
	LastTransitionTime *meta.Time `json:"lastTransitionTime,omitempty"`
	Reason             string     `json:"reason,omitempty"`
	Message            string     `json:"message,omitempty"`
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
		cond.LastTransitionTime = &now
		c.Status.Conditions = append(c.Status.Conditions, cond)
		return
	}
	if old.Status == cond.Status && old.LastTransitionTime != nil {
		cond.LastTransitionTime = old.LastTransitionTime
	} else {
		cond.LastTransitionTime = &now
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

// IsEstablished reports whether the definition's kind is served.
func (c *CustomResourceDefinition) IsEstablished() bool {
	e := c.Condition(Established)
	return e != nil && e.Status == ConditionTrue
}
