// Package schema holds one model of a kind's structure: a structural
// schema, the subset of OpenAPI v3 that Kubernetes requires of
// CustomResourceDefinitions, plus the x-kubernetes extensions that drive
// list and map merging, unknown-field handling and patching.
//
// The same [Schema] value feeds field validation, value validation,
// defaulting, strategic merge patch, server-side apply (after conversion to
// structured-merge-diff), OpenAPI publishing and Table columns. Build it once,
// when a kind is registered, and share it read-only: nothing here belongs on
// a request's hot path.
//
// # Building from Go types
//
// [FromType] reflects over a Go type the way encoding/json sees it: json tags
// name the properties, `json:"-"` and unexported fields are skipped, and
// embedded structs without a name flatten their fields into the parent.
// A field is required unless it is a pointer, a slice or a map, or its tag
// says omitempty or omitzero, or it carries the tag `optional:"true"`: to
// make a field optional, tag it omitempty or make it a pointer, or, where
// the JSON form must keep the empty value (as in types that mirror
// Kubernetes' own), tag it optional. A required property must be present in what a
// client sends (a property with a default is filled in instead); since a
// decoded Go value cannot tell a field sent as its zero value from one
// left out, servers look at the body with [Schema.MissingRequired] when a
// [RequiredCheck] finds a required field at its zero value.
//
// Go kinds map to OpenAPI types and formats as Kubernetes publishes them:
//
//	bool                                  boolean
//	int8, int16, int32, uint8, uint16     integer/int32
//	int, int64, uint, uint32, uint64      integer/int64
//	float32                               number/float
//	float64                               number/double
//	string                                string
//	[]byte                                string/byte
//	[]T, [N]T                             array of T
//	map[K]T                               object with additionalProperties T
//	struct                                object with properties
//	any, json.RawMessage, json.Marshaler  any type, x-kubernetes-preserve-unknown-fields
//	encoding.TextMarshaler                string
//	time.Time                             string/date-time
//
// The meta wire types get the names kube-apiserver publishes them under,
// such as io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, in [Schema.Name],
// and short descriptions. meta.Time is a string/date-time and meta.FieldsV1 an
// object that preserves unknown fields. A type whose pointer implements
// [Provider] supplies its own schema.
//
// # Struct tags
//
// Tags on a field add documentation and constraints to the field's schema.
// Numbers are parsed with strconv, `default` holds a JSON value and `enum` a
// comma-separated list (or a JSON array) of values of the field's type:
//
//	description:"text"            description
//	default:"1"  default:"\"TCP\"" default (JSON)
//	minimum:"0"  maximum:"1000"   minimum, maximum
//	exclusiveMinimum:"true"       exclusiveMinimum (also exclusiveMaximum)
//	pattern:"^[a-z]+$"            pattern (must compile as a Go regexp)
//	enum:"a,b,c"                  enum
//	format:"date-time"            format, replacing the derived one
//	minLength, maxLength          string length bounds
//	minItems, maxItems            array length bounds
//	minProperties, maxProperties  object size bounds
//	nullable:"true"               nullable
//	listType:"atomic|set|map"     x-kubernetes-list-type
//	listMapKey:"name,port"        x-kubernetes-list-map-keys (listType map)
//	mapType:"atomic|granular"     x-kubernetes-map-type
//	preserveUnknownFields:"true"  x-kubernetes-preserve-unknown-fields
//	embeddedResource:"true"       x-kubernetes-embedded-resource
//	intOrString:"true"            x-kubernetes-int-or-string (untyped fields only)
//	patchStrategy:"merge"         x-kubernetes-patch-strategy
//	patchMergeKey:"name"          x-kubernetes-patch-merge-key
//
// # Validation rules
//
// CEL rules (x-kubernetes-validations) sit on any node. On a Go field,
// the rule tag declares one, with the other tags of the rule beside it:
//
//	rule:"self == oldSelf"        rule (the CEL expression)
//	message:"size is immutable"   message
//	messageExpression:"'...'"     messageExpression
//	reason:"FieldValueForbidden"  reason
//	fieldPath:".replicas"         fieldPath
//	optionalOldSelf:"true"        optionalOldSelf
//
// A Go type that implements [RuleProvider] adds its ValidationRules to
// its node wherever it is used; use it for several rules, or for rules
// on a type. [FromType] and [FromOpenAPI] check rules as kube-apiserver
// checks a CRD's (a rule is given, messages are one line, the reason is
// known, fieldPath leads to a field); compiling and evaluating them is
// the job of a [RuleEngine], which the server must have for kinds with
// rules.
//
// A tag that does not parse, does not fit the field's type, or contradicts
// another (listType map without keys, a key that is neither required nor
// defaulted in the item, a default outside the bounds) makes [FromType]
// fail with an error naming the Go field. Recursive types are refused.
//
// # Building from OpenAPI
//
// [FromOpenAPI] reads the openAPIV3Schema of a CustomResourceDefinition
// (JSON or YAML) for kinds defined at run time and served as
// meta.Unstructured. It accepts structural schemas only and refuses
// others with an error naming the node.
//
// allOf, anyOf, oneOf and not hold value validations, with the
// restrictions kube-apiserver puts on them: no type, default,
// description, title, nullable, additionalProperties, x-kubernetes
// extension or metadata property inside them (kube's int-or-string
// anyOf of type integer and type string aside), and every property and
// items they name also specified in the structural part of the schema
// ("Required value: because it is defined in ..."). [Validator] enforces
// them with kube's messages, such as
//
//	: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid
//
// The metadata of the root may restrict name and generateName (strings)
// with value validations, as a CustomResourceDefinition may; the root's
// ObjectMeta schema carries them.
//
// # Using a schema on writes
//
// Three operations work on decoded JSON values (map[string]any, []any,
// string, bool, int64, float64, nil), as kube-apiserver applies them to
// custom resources: [Schema.Prune] drops unknown fields and names them for
// field validation, [Schema.ApplyDefaults] fills in defaults, and a
// [Validator] reports constraint violations as status field errors worded
// as kube-apiserver words them. For Go values, a [Defaulter] built once per
// type gives the outcome of [Schema.ApplyDefaults] on their JSON form
// without encoding them.
//
// Defaults apply below an object only when it is present. A struct field
// is present in the JSON form unless tagged omitzero (see [OmitsZero]) and
// zero: tag a spec omitzero so that an object written without one is
// stored without one, as kube-apiserver stores the custom resource. Since
// an object sent empty decodes to the same zero value, servers give the
// [Defaulter] the JSON a value was decoded from ([Defaulter.DefaultDecoded])
// when [Defaulter.Hides] says it matters.
package schema
