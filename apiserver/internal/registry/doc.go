// Package registry is a kind compiled for serving: a [Resource] per
// served version, built once at registration from a kinds.Kind, holding
// what every request of the kind uses — the store and watch cache shared
// by all the kind's versions, the codecs, the schema plan, the field
// manager's patcher, the conversions between versions ([VersionSet]),
// and the stored values.
//
// Stored values are its business alone (see storedjson.go): the JSON
// with a resourceVersion placeholder that answers splice the revision
// into, managedFields kept apart and shared in memory stores, values
// normalized through a changed schema, objects kept as another kind's
// ([kinds.StoredAs]), the index terms the watch cache lists by, and the
// store operations a write ends with ([Resource.Create],
// [Resource.Replace], [Resource.ReplaceOrRemove]).
//
// It sits below the verbs' handlers and the write pipeline, which call
// it, and knows nothing of HTTP.
package registry
