package schema

import (
	"reflect"

	"github.com/kapi-dev/kapi/meta"
)

// metaPrefix is the component name prefix kube-apiserver uses for the
// meta/v1 types.
const metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1."

// typeDoc documents one meta wire type: its component name, a description,
// descriptions of its JSON fields, and extensions kube-apiserver publishes
// for it.
type typeDoc struct {
	name   string
	desc   string
	fields map[string]string
	adjust func(*Schema)
}

// Descriptions shared by every kind.
const (
	descAPIVersion = "The versioned schema of this representation of the object, as group/version (or version alone for the core group)."
	descKind       = "The kind of object this is, in CamelCase."
)

// metaSpecial returns the schema of the meta types whose JSON is not their
// Go fields: Time is a string and FieldsV1 a JSON trie.
func metaSpecial(t reflect.Type) *Schema {
	switch t {
	case reflect.TypeFor[meta.Time]():
		return &Schema{
			Name:        metaPrefix + "Time",
			Type:        "string",
			Format:      "date-time",
			Description: "A timestamp in RFC 3339 form, in UTC with second precision.",
		}
	case reflect.TypeFor[meta.MicroTime]():
		return &Schema{
			Name:        metaPrefix + "MicroTime",
			Type:        "string",
			Format:      "date-time",
			Description: "A timestamp in RFC 3339 form, in UTC with microsecond precision.",
		}
	case reflect.TypeFor[meta.FieldsV1]():
		return &Schema{
			Name:                   metaPrefix + "FieldsV1",
			Type:                   "object",
			Description:            "A set of fields encoded as a JSON trie, as recorded by server-side apply.",
			XPreserveUnknownFields: true,
		}
	}
	return nil
}

// applyTypeDoc names and documents s if t is a meta wire type.
func applyTypeDoc(t reflect.Type, s *Schema) {
	d, ok := metaDoc(t)
	if !ok || d.name == "" {
		return
	}
	s.Name = metaPrefix + d.name
	s.Description = d.desc
	if d.adjust != nil {
		d.adjust(s)
	}
}

// fieldDoc returns the description of JSON field name of meta type t, or "".
func fieldDoc(t reflect.Type, name string) string {
	d, _ := metaDoc(t)
	return d.fields[name]
}

func metaDoc(t reflect.Type) (typeDoc, bool) {
	switch t {
	case reflect.TypeFor[meta.TypeMeta]():
		return typeDoc{fields: map[string]string{"apiVersion": descAPIVersion, "kind": descKind}}, true
	case reflect.TypeFor[meta.ObjectMeta]():
		return objectMetaDoc(), true
	case reflect.TypeFor[meta.ListMeta]():
		return typeDoc{name: "ListMeta", desc: "Metadata of a list response.", fields: map[string]string{
			"selfLink":           "Deprecated; always empty.",
			"resourceVersion":    "The version of the collection when it was read; a watch started from it sees every later change.",
			"continue":           "An opaque token that fetches the next page of a paginated list; empty on the last page.",
			"remainingItemCount": "An estimate of the number of items after this page, when the server knows it.",
		}}, true
	case reflect.TypeFor[meta.OwnerReference]():
		return typeDoc{name: "OwnerReference", desc: "Identifies an object that owns the one carrying the reference.", fields: map[string]string{
			"apiVersion":         "API version of the owner.",
			"kind":               "Kind of the owner.",
			"name":               "Name of the owner.",
			"uid":                "UID of the owner.",
			"controller":         "True when the owner is the controller managing this object.",
			"blockOwnerDeletion": "True to keep the owner from being deleted in the foreground until this object is gone.",
		}, adjust: func(s *Schema) { s.XMapType = "atomic" }}, true
	case reflect.TypeFor[meta.ManagedFieldsEntry]():
		return typeDoc{name: "ManagedFieldsEntry", desc: "The set of fields one manager owns, and the operation that set them.", fields: map[string]string{
			"manager":     "Name of the workflow that manages the fields.",
			"operation":   "The kind of write that set the fields: Apply or Update.",
			"apiVersion":  "The API version the fields are expressed in.",
			"time":        "When the entry last changed.",
			"fieldsType":  "The encoding of the field set; only FieldsV1.",
			"fieldsV1":    "The field set, as a FieldsV1 trie.",
			"subresource": "The subresource the write went through, if any.",
		}}, true
	case reflect.TypeFor[meta.Preconditions]():
		return typeDoc{name: "Preconditions", desc: "Conditions that must hold before a write is carried out.", fields: map[string]string{
			"uid":             "The UID the object must have.",
			"resourceVersion": "The resourceVersion the object must have.",
		}}, true
	case reflect.TypeFor[meta.DeleteOptions]():
		return deleteOptionsDoc(), true
	case reflect.TypeFor[meta.Status]():
		return statusDoc(), true
	case reflect.TypeFor[meta.StatusDetails]():
		return statusDetailsDoc(), true
	case reflect.TypeFor[meta.StatusCause]():
		return typeDoc{name: "StatusCause", desc: "One cause of a failure, often tied to a field.", fields: map[string]string{
			"reason":  "A machine-readable cause, such as FieldValueInvalid.",
			"message": "A human-readable description of the cause.",
			"field":   "The path of the field that caused the failure, such as spec.ports[0].port.",
		}}, true
	case reflect.TypeFor[meta.WatchEvent]():
		return typeDoc{name: "WatchEvent", desc: "One event of a watch stream.", fields: map[string]string{
			"type":   "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.",
			"object": "The object after the change (before it, for DELETED), a bookmark carrying only a resourceVersion, or a Status for ERROR.",
		}, adjust: func(s *Schema) { s.Required = []string{"type", "object"} }}, true
	}
	return typeDoc{}, false
}

func objectMetaDoc() typeDoc {
	return typeDoc{
		name: "ObjectMeta",
		desc: "Metadata every persisted object carries: identity, labels and annotations, ownership and lifecycle.",
		fields: map[string]string{
			"name":                       "Unique name of the object within its namespace, or within the cluster for cluster-scoped kinds. Cannot be changed.",
			"generateName":               "A prefix from which the server makes a unique name when name is empty.",
			"namespace":                  "The namespace the object lives in; empty for cluster-scoped objects.",
			"selfLink":                   "Deprecated; always empty.",
			"uid":                        "Identifier the server assigns at creation, unique in time and space.",
			"resourceVersion":            "Opaque version of the object that changes on every write; used for optimistic concurrency and watches.",
			"generation":                 "Sequence number of the desired state, raised by the server when the spec changes.",
			"creationTimestamp":          "When the server created the object.",
			"deletionTimestamp":          "When deletion was requested. Once set, the object goes away as soon as its finalizers are empty.",
			"deletionGracePeriodSeconds": "Seconds the object is allowed for graceful termination before it is removed.",
			"labels":                     "Key/value pairs used to organize and select objects.",
			"annotations":                "Key/value data for tools and libraries; not used for selection.",
			"ownerReferences":            "Objects this object depends on. When every owner is gone, the object is garbage collected.",
			"finalizers":                 "Identifiers of pending cleanup work; the object is kept until the list is empty.",
			"managedFields":              "Which manager owns which fields, maintained by server-side apply.",
		},
		adjust: func(s *Schema) {
			if p := s.Properties["ownerReferences"]; p != nil {
				p.XListType, p.XListMapKeys = "map", []string{"uid"}
			}
			if p := s.Properties["finalizers"]; p != nil {
				p.XListType = "set"
			}
			if p := s.Properties["managedFields"]; p != nil {
				p.XListType = "atomic"
			}
		},
	}
}

func deleteOptionsDoc() typeDoc {
	return typeDoc{
		name: "DeleteOptions",
		desc: "Options that may accompany a delete request.",
		fields: map[string]string{
			"apiVersion":         descAPIVersion,
			"kind":               descKind,
			"gracePeriodSeconds": "Seconds before the object is deleted; zero means at once, unset means the kind's default.",
			"preconditions":      "Conditions the object must meet for the delete to go ahead.",
			"orphanDependents":   "Deprecated: use propagationPolicy. True to orphan the dependents.",
			"propagationPolicy":  "How dependents are garbage collected: Orphan, Background or Foreground.",
			"dryRun":             "All to run every stage of the request without persisting the result.",
			"ignoreStoreReadErrorWithClusterBreakingPotential": "True to delete an object that can no longer be read from storage, " +
				"skipping its finalizers, preconditions and admission; every other option must be unset. It may break whatever relied on the object's normal deletion.",
		},
		adjust: func(s *Schema) {
			if p := s.Properties["dryRun"]; p != nil {
				p.XListType = "atomic"
			}
		},
	}
}

func statusDoc() typeDoc {
	return typeDoc{
		name: "Status",
		desc: "The result of a call that returns no object, and the body of every error response.",
		fields: map[string]string{
			"apiVersion": descAPIVersion,
			"kind":       descKind,
			"metadata":   "Standard list metadata.",
			"status":     "Success or Failure.",
			"message":    "A human-readable description of the result.",
			"reason":     "A machine-readable reason for a failure, such as NotFound or Conflict.",
			"details":    "More about the failure; the fields present depend on the reason.",
			"code":       "The HTTP status code of the response.",
		},
		// kube-apiserver publishes no required fields for Status.
		adjust: func(s *Schema) { s.Required = nil },
	}
}

func statusDetailsDoc() typeDoc {
	return typeDoc{
		name: "StatusDetails",
		desc: "More about a failure: the object involved, the causes and when to retry.",
		fields: map[string]string{
			"name":              "Name of the object the failure is about.",
			"group":             "API group of the object.",
			"kind":              "Kind of the object.",
			"uid":               "UID of the object, when known.",
			"causes":            "The individual causes, often one per invalid field.",
			"retryAfterSeconds": "Seconds a client should wait before retrying.",
		},
		adjust: func(s *Schema) {
			if p := s.Properties["causes"]; p != nil {
				p.XListType = "atomic"
			}
		},
	}
}
