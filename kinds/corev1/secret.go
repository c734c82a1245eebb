package corev1

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Secret holds a small amount of sensitive data.
type Secret struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable, when true, forbids changing Data.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,5,opt,name=immutable"`
	// Data is the secret data, base64 in JSON.
	Data map[string][]byte `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// StringData is write-only convenience input: its entries are merged
	// into Data on every write, overriding Data's, and never stored.
	StringData map[string]string `json:"stringData,omitempty" protobuf:"bytes,4,rep,name=stringData"`
	// Type says how the data is used; default SecretTypeOpaque. It cannot
	// change.
	Type string `json:"type,omitempty" protobuf:"bytes,3,opt,name=type"`
}

// Secret types with keys kube-apiserver requires.
const (
	SecretTypeOpaque           = "Opaque"
	SecretTypeTLS              = "kubernetes.io/tls"
	SecretTypeBasicAuth        = "kubernetes.io/basic-auth"
	SecretTypeSSHAuth          = "kubernetes.io/ssh-auth"
	SecretTypeDockerConfigJSON = "kubernetes.io/dockerconfigjson"
)

// MaxSecretBytes bounds the data of a Secret, as kube-apiserver's 1 MiB.
const MaxSecretBytes = 1 << 20

// SecretKind is the registration of Secret: /api/v1 secrets, namespaced,
// selectable by type, printed with its type and key count.
func SecretKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "", Version: "v1", Kind: "Secret", Resource: "secrets", Singular: "secret", Namespaced: true,
		NoGeneration: true,
		New:          func() meta.Object { return &Secret{} },
		Default:      func(_ context.Context, obj meta.Object) { defaultSecret(obj.(*Secret)) },
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			var prev *Secret
			if old != nil {
				prev = old.(*Secret)
			}
			return validateSecret(obj.(*Secret), prev)
		},
		SelectableFields: map[string]func(meta.Object) string{
			"type": func(obj meta.Object) string { return obj.(*Secret).Type },
		},
		PrinterColumns: []apiserver.PrinterColumn{
			{Name: "Type", Type: "string", Description: secretTypeDoc, Cell: func(obj meta.Object) any { return obj.(*Secret).Type }},
			// A string column of numbers, as kube prints it.
			{Name: "Data", Type: "string", Description: secretDataDoc, Cell: func(obj meta.Object) any {
				return int64(len(obj.(*Secret).Data))
			}},
			apiserver.AgeColumn(),
		},
	}
}

// defaultSecret merges StringData into Data and sets the default type.
func defaultSecret(s *Secret) {
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = SecretTypeOpaque
	}
}

// validateSecret checks keys and size, the keys its type requires, and
// that neither the type nor an immutable Secret's data changes.
func validateSecret(s, old *Secret) status.FieldErrors {
	data := status.NewPath("data")
	errs := validateKeys(data, sortedKeys(s.Data))
	size := 0
	for k, v := range s.Data {
		size += len(k) + len(v)
	}
	if size > MaxSecretBytes {
		errs = append(errs, status.TooLong(data, "", MaxSecretBytes))
	}
	for _, k := range requiredKeys[s.Type] {
		if _, ok := s.Data[k]; !ok {
			errs = append(errs, status.Required(data.Key(k), ""))
		}
	}
	if old == nil {
		return errs
	}
	if s.Type != old.Type {
		errs = append(errs, status.InvalidValue(status.NewPath("type"), s.Type, "field is immutable"))
	}
	if isTrue(old.Immutable) {
		if !isTrue(s.Immutable) {
			errs = append(errs, status.ForbiddenField(status.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !sameMap(s.Data, old.Data, func(a, b []byte) bool { return string(a) == string(b) }) {
			errs = append(errs, status.ForbiddenField(data, "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

// requiredKeys are the data keys each well-known type must have.
var requiredKeys = map[string][]string{
	SecretTypeTLS:              {"tls.crt", "tls.key"},
	SecretTypeSSHAuth:          {"ssh-privatekey"},
	SecretTypeDockerConfigJSON: {".dockerconfigjson"},
}

// The descriptions of the columns of kube's Tables of Secrets.
const (
	secretTypeDoc = "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
	secretDataDoc = "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"
)
