package corev1

import (
	"context"
	"regexp"
	"sort"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// ConfigMap holds configuration data for pods to consume.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable, when true, forbids changing Data and BinaryData.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Data is UTF-8 configuration data.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// BinaryData is binary configuration data.
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData"`
}

// MaxConfigMapBytes bounds the data of a ConfigMap, as kube-apiserver's
// 1 MiB limit.
const MaxConfigMapBytes = 1 << 20

// ConfigMapKind is the registration of ConfigMap: /api/v1 configmaps,
// short name cm, namespaced, printed with its key count.
func ConfigMapKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "", Version: "v1", Kind: "ConfigMap", Resource: "configmaps", Singular: "configmap",
		ShortNames: []string{"cm"}, Namespaced: true,
		NoGeneration: true,
		New:          func() meta.Object { return &ConfigMap{} },
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			var prev *ConfigMap
			if old != nil {
				prev = old.(*ConfigMap)
			}
			return validateConfigMap(obj.(*ConfigMap), prev)
		},
		PrinterColumns: []apiserver.PrinterColumn{
			// A string column of numbers, as kube prints it.
			{Name: "Data", Type: "string", Description: configMapDataDoc, Cell: func(obj meta.Object) any {
				cm := obj.(*ConfigMap)
				return int64(len(cm.Data) + len(cm.BinaryData))
			}},
			apiserver.AgeColumn(),
		},
	}
}

// validateConfigMap checks keys as kube-apiserver does (a key is in Data
// or BinaryData, not both), bounds the size and keeps an immutable
// ConfigMap's data.
func validateConfigMap(cm, old *ConfigMap) status.FieldErrors {
	errs := validateKeys(status.NewPath("data"), sortedKeys(cm.Data))
	errs = append(errs, validateKeys(status.NewPath("binaryData"), sortedKeys(cm.BinaryData))...)
	size := 0
	for _, k := range sortedKeys(cm.Data) {
		size += len(k) + len(cm.Data[k])
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, status.InvalidValue(status.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
	}
	for k, v := range cm.BinaryData {
		size += len(k) + len(v)
	}
	if size > MaxConfigMapBytes {
		errs = append(errs, status.TooLong(status.NewPath(""), "", MaxConfigMapBytes))
	}
	if old != nil && isTrue(old.Immutable) {
		if !isTrue(cm.Immutable) {
			errs = append(errs, status.ForbiddenField(status.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !sameMap(cm.Data, old.Data, func(a, b string) bool { return a == b }) {
			errs = append(errs, status.ForbiddenField(status.NewPath("data"), "field is immutable when `immutable` is set"))
		}
		if !sameMap(cm.BinaryData, old.BinaryData, func(a, b []byte) bool { return string(a) == string(b) }) {
			errs = append(errs, status.ForbiddenField(status.NewPath("binaryData"), "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

var configKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// validateKeys checks the keys of a ConfigMap's or Secret's data: file
// names made of alphanumerics, '-', '_' and '.', not "." or "..".
func validateKeys(p status.Path, keys []string) status.FieldErrors {
	var errs status.FieldErrors
	for _, k := range keys {
		switch {
		case len(k) > 253:
			errs = append(errs, status.InvalidValue(p.Key(k), k, "must be no more than 253 characters"))
		case !configKey.MatchString(k):
			errs = append(errs, status.InvalidValue(p.Key(k), k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"))
		case k == "." || k == "..":
			errs = append(errs, status.InvalidValue(p.Key(k), k, "must not be '.' or '..'"))
		}
	}
	return errs
}

func sameMap[V any](a, b map[string]V, eq func(x, y V) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !eq(v, w) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isTrue(b *bool) bool { return b != nil && *b }

// The descriptions of the columns of kube's Tables of ConfigMaps.
const configMapDataDoc = "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."

var (
	dnsLabel      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	qualifiedName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
)
