package tables

import "github.com/kapi-dev/kapi/meta"

// Transformations a client can ask for in Accept, as kube-apiserver names
// them.
const (
	AsTable           = "Table"
	AsPartial         = "PartialObjectMetadata"
	AsPartialList     = "PartialObjectMetadataList"
	MetaGroup         = "meta.k8s.io"
	PartialAPIVersion = "meta.k8s.io/v1"
	IncludeObjectNone = "None"
	IncludeObjectMeta = "Metadata"
	IncludeObjectFull = "Object"
	TransformNone     = ""
)

// Descriptions of the columns kube-apiserver gives every Table: the name,
// and the creation time of a kind without columns of its own.
const (
	NameColumnDesc      = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	CreatedAtColumnDesc = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// PartialObject and PartialList are meta.k8s.io's PartialObjectMetadata
// and PartialObjectMetadataList, with their meta/v1 protobuf numbers.
type PartialObject struct {
	meta.TypeMeta `json:",inline"`
	Metadata      meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

// PartialList is meta.k8s.io's PartialObjectMetadataList.
type PartialList struct {
	meta.TypeMeta `json:",inline"`
	ListMeta      meta.ListMeta   `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Items         []PartialObject `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Table is meta.k8s.io's Table as kube-apiserver sends it.
type Table struct {
	meta.TypeMeta     `json:",inline"`
	ListMeta          meta.ListMeta `json:"metadata"`
	ColumnDefinitions []Column      `json:"columnDefinitions"`
	Rows              []Row         `json:"rows"`
}

// Column is a Table's column definition.
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// Row is a Table's row.
type Row struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object"` // null for includeObject=None, as kube-apiserver sends it
}
