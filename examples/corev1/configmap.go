// Package corev1 serves the core group's ConfigMap (group "", version v1)
// with kapi, so that clients built for kube-apiserver's own types, such as
// client-go's typed clientset, work against it unchanged.
//
// ConfigMap mirrors k8s.io/api/core/v1.ConfigMap field for field, with the
// same JSON names and protobuf field numbers; its metadata is kapi's
// meta.ObjectMeta, which has meta/v1 ObjectMeta's wire form. A kapi kind
// must satisfy meta.Object, which the k8s.io/api struct cannot, hence the
// mirror; a test holds the two in step.
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

// ConfigMapKind is the registration of ConfigMap: /api/v1 configmaps,
// short name cm, namespaced.
func ConfigMapKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "", Version: "v1", Kind: "ConfigMap", Resource: "configmaps", Singular: "configmap",
		ShortNames: []string{"cm"}, Namespaced: true,
		New: func() meta.Object { return &ConfigMap{} },
		Validate: func(_ context.Context, obj, old meta.Object) status.FieldErrors {
			var prev *ConfigMap
			if old != nil {
				prev = old.(*ConfigMap)
			}
			return validate(obj.(*ConfigMap), prev)
		},
	}
}

var configKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// validate checks keys as kube-apiserver does (a key is in Data or
// BinaryData, not both) and keeps an immutable ConfigMap's data.
func validate(cm, old *ConfigMap) status.FieldErrors {
	var errs status.FieldErrors
	for _, k := range sortedKeys(cm.Data) {
		if !configKey.MatchString(k) {
			errs = append(errs, status.InvalidValue(status.NewPath("data").Key(k), k,
				"a valid config key must consist of alphanumeric characters, '-', '_' or '.'"))
		}
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, status.InvalidValue(status.NewPath("data").Key(k), k,
				"duplicate of key present in binaryData"))
		}
	}
	for _, k := range sortedKeys(cm.BinaryData) {
		if !configKey.MatchString(k) {
			errs = append(errs, status.InvalidValue(status.NewPath("binaryData").Key(k), k,
				"a valid config key must consist of alphanumeric characters, '-', '_' or '.'"))
		}
	}
	if old != nil && old.Immutable != nil && *old.Immutable {
		if cm.Immutable == nil || !*cm.Immutable {
			errs = append(errs, status.ForbiddenField(status.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !sameData(cm, old) {
			errs = append(errs, status.ForbiddenField(status.NewPath("data"), "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

func sameData(a, b *ConfigMap) bool {
	if len(a.Data) != len(b.Data) || len(a.BinaryData) != len(b.BinaryData) {
		return false
	}
	for k, v := range a.Data {
		if w, ok := b.Data[k]; !ok || w != v {
			return false
		}
	}
	for k, v := range a.BinaryData {
		if w, ok := b.BinaryData[k]; !ok || string(w) != string(v) {
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
