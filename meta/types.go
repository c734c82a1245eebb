package meta

import "encoding/json"

// TypeMeta describes an individual object: its kind and the API version of
// its schema.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
}

// GetTypeMeta returns the receiver; it lets every kind embedding TypeMeta
// satisfy part of [Object].
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted object carries.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	GenerateName               string               `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	Namespace                  string               `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	SelfLink                   string               `json:"selfLink,omitempty" protobuf:"bytes,4,opt,name=selfLink"`
	UID                        string               `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid"`
	ResourceVersion            string               `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	Generation                 int64                `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty,omitzero" protobuf:"bytes,8,opt,name=creationTimestamp"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	Labels                     map[string]string    `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels"`
	Annotations                map[string]string    `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,13,rep,name=ownerReferences"`
	Finalizers                 []string             `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// GetObjectMeta returns the receiver; it lets every kind embedding
// ObjectMeta satisfy part of [Object].
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// OwnerReference names an object that owns the one carrying it.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	Kind               string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name               string `json:"name" protobuf:"bytes,3,opt,name=name"`
	UID                string `json:"uid" protobuf:"bytes,4,opt,name=uid"`
	Controller         *bool  `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ManagedFieldsOperationType is the kind of write a managed fields entry
// records.
type ManagedFieldsOperationType string

// The operations a ManagedFieldsEntry records.
const (
	ManagedFieldsOperationApply  ManagedFieldsOperationType = "Apply"
	ManagedFieldsOperationUpdate ManagedFieldsOperationType = "Update"
)

// ManagedFieldsEntry records which fields a manager owns, for server-side
// apply.
type ManagedFieldsEntry struct {
	Manager     string                     `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	Operation   ManagedFieldsOperationType `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation,casttype=ManagedFieldsOperationType"`
	APIVersion  string                     `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	Time        *Time                      `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	FieldsType  string                     `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	FieldsV1    *FieldsV1                  `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	Subresource string                     `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// FieldsV1 is a set of fields in the FieldsV1 trie encoding, kept as raw
// JSON.
type FieldsV1 struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=Raw"`
}

// MarshalJSON writes the raw trie, or null when empty.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if f.Raw == nil {
		return []byte("null"), nil
	}
	return f.Raw, nil
}

// UnmarshalJSON keeps a copy of the raw trie.
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		f.Raw = nil
		return nil
	}
	f.Raw = append(f.Raw[:0], b...)
	return nil
}

// ListMeta is the metadata of a collection.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty" protobuf:"bytes,1,opt,name=selfLink"`
	ResourceVersion    string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	Continue           string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"varint,4,opt,name=remainingItemCount"`
}

// Preconditions must be met before a write is carried out.
type Preconditions struct {
	UID             *string `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// DeletionPropagation says how dependents are garbage collected.
type DeletionPropagation string

// The deletion propagation policies.
const (
	DeletePropagationOrphan     DeletionPropagation = "Orphan"
	DeletePropagationBackground DeletionPropagation = "Background"
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// The finalizers the server puts on an object deleted with the Orphan or
// Foreground policy; the garbage collector removes them once it has
// orphaned, or deleted, the object's dependents.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// DeleteOptions may be sent as the body of a DELETE.
type DeleteOptions struct {
	TypeMeta           `json:",inline"`
	GracePeriodSeconds *int64               `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	Preconditions      *Preconditions       `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	OrphanDependents   *bool                `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	PropagationPolicy  *DeletionPropagation `json:"propagationPolicy,omitempty" protobuf:"bytes,4,opt,name=propagationPolicy,casttype=DeletionPropagation"`
	DryRun             []string             `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential deletes an object
	// that can no longer be read from the store (it fails to decode),
	// skipping finalizers, preconditions and admission. Every other
	// option must be left unset with it.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty" protobuf:"varint,6,opt,name=ignoreStoreReadErrorWithClusterBreakingPotential"`
}

// CreateOptions are the options of a create, as admission sees them.
type CreateOptions struct {
	TypeMeta        `json:",inline"`
	DryRun          []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`
	FieldManager    string   `json:"fieldManager,omitempty" protobuf:"bytes,3,name=fieldManager"`
	FieldValidation string   `json:"fieldValidation,omitempty" protobuf:"bytes,4,name=fieldValidation"`
}

// UpdateOptions are the options of an update (or a patch that updates),
// as admission sees them.
type UpdateOptions struct {
	TypeMeta        `json:",inline"`
	DryRun          []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`
	FieldManager    string   `json:"fieldManager,omitempty" protobuf:"bytes,2,name=fieldManager"`
	FieldValidation string   `json:"fieldValidation,omitempty" protobuf:"bytes,3,name=fieldValidation"`
}

// Status values.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// StatusReason is a machine-readable reason for a failure; see the API
// conventions for the meaning of each.
type StatusReason string

// The reasons a Status carries.
const (
	StatusReasonUnknown               StatusReason = ""
	StatusReasonUnauthorized          StatusReason = "Unauthorized"
	StatusReasonForbidden             StatusReason = "Forbidden"
	StatusReasonNotFound              StatusReason = "NotFound"
	StatusReasonAlreadyExists         StatusReason = "AlreadyExists"
	StatusReasonConflict              StatusReason = "Conflict"
	StatusReasonGone                  StatusReason = "Gone"
	StatusReasonInvalid               StatusReason = "Invalid"
	StatusReasonServerTimeout         StatusReason = "ServerTimeout"
	StatusReasonStoreReadError        StatusReason = "StorageReadError"
	StatusReasonTimeout               StatusReason = "Timeout"
	StatusReasonTooManyRequests       StatusReason = "TooManyRequests"
	StatusReasonBadRequest            StatusReason = "BadRequest"
	StatusReasonMethodNotAllowed      StatusReason = "MethodNotAllowed"
	StatusReasonNotAcceptable         StatusReason = "NotAcceptable"
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge"
	StatusReasonUnsupportedMediaType  StatusReason = "UnsupportedMediaType"
	StatusReasonInternalError         StatusReason = "InternalError"
	StatusReasonExpired               StatusReason = "Expired"
	StatusReasonServiceUnavailable    StatusReason = "ServiceUnavailable"
)

// CauseType is a machine-readable description of one cause of a failure.
type CauseType string

// The cause types used by validation and decoding.
const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeFieldValueForbidden      CauseType = "FieldValueForbidden"
	CauseTypeFieldValueTooLong        CauseType = "FieldValueTooLong"
	CauseTypeFieldValueTooMany        CauseType = "FieldValueTooMany"
	CauseTypeTypeInvalid              CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)

// Status is the return value of calls that do not return another object,
// and the body of every error response.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Status   string         `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	Message  string         `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	Reason   StatusReason   `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason,casttype=StatusReason"`
	Details  *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	Code     int32          `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// StatusDetails carries more about a failure: the object involved, its
// causes and when to retry.
type StatusDetails struct {
	Name              string        `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Group             string        `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	Kind              string        `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	UID               string        `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Causes            []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// StatusCause is one cause of a failure, often a field.
type StatusCause struct {
	Type    CauseType `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason,casttype=CauseType"`
	Message string    `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Field   string    `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// Watch event types.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
	Error    = "ERROR"
)

// InitialEventsAnnotation marks the bookmark that ends the initial events of
// a watch started with sendInitialEvents=true.
const InitialEventsAnnotation = "k8s.io/initial-events-end"

// WatchEvent is one event of a watch stream as it travels on the wire. The
// object is kept encoded so that one encoding serves every watcher.
type WatchEvent struct {
	Type   string          `json:"type" protobuf:"bytes,1,opt,name=type"`
	Object json.RawMessage `json:"object" protobuf:"bytes,2,opt,name=object"`
}

// APIResource describes one resource for discovery.
type APIResource struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}
