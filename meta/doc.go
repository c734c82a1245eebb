// Package meta holds the wire types every kapi resource shares: TypeMeta,
// ObjectMeta, ListMeta, Status, WatchEvent, DeleteOptions and friends, the
// [Object] interface every stored kind satisfies, [Unstructured] for kinds
// defined at run time, and label and field selectors.
//
// The JSON of these types is byte-compatible with Kubernetes' meta/v1, and
// their protobuf struct tags carry the field numbers of
// k8s.io/apimachinery's meta/v1 generated.proto so that a protobuf codec can
// follow the same tags without code generation.
//
// The package depends on the standard library only.
package meta
