package apiserver

import "github.com/kapi-dev/kapi/apiserver/observe"

// The observation types live in package observe, which the request
// filters fill in without importing this package; they keep their names
// here for hosts.
type (
	Observer      = observe.Observer
	RequestLabels = observe.RequestLabels
	RequestRecord = observe.RequestRecord
	ResourceStats = observe.ResourceStats
	Tracer        = observe.Tracer
	Span          = observe.Span
)
