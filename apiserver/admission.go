package apiserver

import (
	"github.com/kapi-dev/kapi/apiserver/admission"
)

// The admission types live in package admission, the write pipeline's
// admission step; they keep their names here for hosts.
type (
	Operation        = admission.Operation
	AdmissionRequest = admission.Request
	AdmissionFunc    = admission.Func
)

// The operations admission sees. Patches and applies are updates (or
// creates, when they create the object).
const (
	OperationCreate = admission.Create
	OperationUpdate = admission.Update
	OperationDelete = admission.Delete
)
