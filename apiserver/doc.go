// Package apiserver serves Kubernetes-style resource APIs from a Go
// service. A host builds a [Server] with [New], registers its kinds with
// [Server.Register] and mounts the server, an http.Handler, on its own mux:
//
//	srv := apiserver.New(apiserver.Options{})
//	srv.Register(apiserver.Kind{
//		Group: "stable.example.com", Version: "v1",
//		Kind: "Widget", Resource: "widgets", Namespaced: true,
//		New: func() meta.Object { return &Widget{} },
//	})
//	if err := srv.Err(); err != nil { ... }
//	mux.Handle("/", srv)
//
// Registration fails closed: a server any of whose registrations failed
// answers every request with a 500 Status naming the errors (logged once),
// so a host that forgets Err never serves part of its API. Register
// panics once the server has answered a request.
//
// # What it serves
//
// Discovery (/api, /apis, /apis/G, /apis/G/V, legacy and aggregated), the
// OpenAPI v3 documents kubectl reads for validation and explain, health
// endpoints, and for every kind the verbs get, list, watch, create, update,
// patch, delete and deletecollection under
// /apis/G/V/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]].
//
// # Mounting
//
// A host mounts the server at "/", next to its own handlers at the paths
// [Server.Patterns] lists, or under a path prefix with [http.StripPrefix]
// (clients then use a server URL that ends in the prefix, such as
// https://host/kapi).
//
// # Patches and managedFields
//
// PATCH accepts JSON patches, merge patches, strategic merge patches (for
// kinds with Go types; kinds served as meta.Unstructured refuse them with
// 415, as custom resources do) and server-side apply
// (application/apply-patch+yaml, which creates a missing object). Every
// write records its manager in metadata.managedFields: the fieldManager
// query parameter, or the User-Agent's product ("kubectl" for
// kubectl/v1.35.0). The package patch does the work.
//
// # The order of a write
//
// Every write (create, update, patch, apply, and writes to the status and
// scale subresources) takes the same steps in the same order, in one
// function of this package (write.run, in pipeline.go):
//
//  1. read the stored object (not for a create by POST) and, for a kind
//     served in several versions ([Kind].Versions), convert it to the
//     version of the request, in which every step up to the store runs;
//  2. build the requested object: the decoded body (with field
//     validation), or the stored object patched or applied;
//  3. check the preconditions: resourceVersion, UID;
//  4. set the fields the server owns: uid, creation time, the split
//     between spec and status;
//  5. default: the schema's defaults, then [Kind].Default;
//  6. run [Options].MutatingAdmission, then default again;
//  7. generate the name of a create that asks for one (generateName);
//  8. bump metadata.generation on spec changes and record the write in
//     metadata.managedFields;
//  9. validate: metadata, the schema and its CEL rules
//     ([Options].RuleEngine), [Kind].Validate;
//  10. run [Options].ValidatingAdmission;
//  11. convert the object to the storage version (nothing to convert for
//     a kind of one version, or a write in the storage version);
//  12. store with compare-and-swap, starting again at 1 when a
//     concurrent write won the race. A dry run stops before storing.
//
// A delete reads the object, checks its preconditions and runs the same
// mutating and validating admission before it removes the object (or
// marks it deleted while finalizers remain).
//
// # Stored objects
//
// An object is stored under the key /GROUP/RESOURCE/NAMESPACE/NAME
// (/GROUP/RESOURCE/NAME for a cluster-scoped kind; GROUP is "core" for the
// legacy group), and the store's revision of that key is the object's
// resourceVersion. The value is the object encoded in
// [Options].StorageMediaType, without its resourceVersion, which is only
// known once the write is done:
//
//   - JSON, the default, is the object as encoding/json writes it (the
//     bytes a JSON answer carries, without the trailing newline), with
//     metadata.resourceVersion set to a placeholder, the one-character
//     string "\u0000". The first "resourceVersion":"\u0000" in the value
//     is metadata's: apiVersion, kind and metadata are written first, the
//     fields of metadata before resourceVersion are strings, and a string
//     cannot hold the unescaped quotes around the marker. A JSON get, a JSON list and the answer to a JSON
//     write are the value with the key's revision spliced in place of the
//     placeholder, without decoding or encoding the object; a value
//     without the placeholder (written by something else) is decoded and
//     encoded instead. In a store that keeps values in memory
//     ([storage.SharedKeeper], such as storage/memory), a
//     metadata.managedFields member the resource has written lately is
//     left out of the value too, with the placeholder
//     "managedFields":"\u0001" in its place, and kept once as the value's
//     shared part however many values hold it (every object one client
//     wrote in one second): answers splice it back as they splice the
//     revision. A value whose labels or annotations read as that
//     placeholder keeps its managedFields, and so does every value of a
//     store that persists them, such as etcd;
//   - Kubernetes protobuf and CBOR values carry no resourceVersion at all,
//     start with their encoding's magic bytes (codec.Sniff tells the three
//     apart) and are decoded for every JSON answer.
//
// Values of every encoding are read whatever the option says, so a store
// written before a change of StorageMediaType stays readable.
//
// Objects of a kind served as meta.Unstructured with a schema are read
// through the schema the kind has now, as kube-apiserver reads custom
// resources: a value stored before the schema changed (a kind replaced
// by [Server.Install], a server started with a newer schema) loses the
// fields the schema no longer knows and gains its new defaults when it
// is read, without being written. The watch cache does this once per
// stored object version, as the value enters it, and keeps the value as
// read, which gets, lists and watches then splice and encode as any
// other; a value that already matches the schema is kept as stored. A
// write starts from the object as read. Values are
// decoded, and the results of patches too, by the application/json
// serializer (or the one of the value's encoding) of [Options].Codecs.
//
// # Versions
//
// A kind served in several versions ([Kind].Versions) is stored in one,
// its storage version, and converted on every request: Go types through
// a hub ([Hub], [Convertible]), run-time kinds by [Kind].Convert (or
// only their apiVersion changes). The versions share one watch cache of
// storage-version objects; a read converts each object to the version
// asked for once per object version and keeps the encoding, which every
// later get, list and watch in that version and media type reuses. A
// run-time kind's [Kind].Convert (a conversion webhook) converts one
// object per call, a list's objects too, as kube-apiserver sends one
// object per ConversionReview; what it converts is kept likewise.
// Values stored in an earlier storage version are read (converted) as
// they are and rewritten in the current one by their next write;
// [Server.StoredVersions] says when none is left. managedFields entries
// keep the version they were recorded in, and apply compares each
// manager's fields in its own version, so conflicts are found across
// versions. A conversion that fails is a 500 InternalError naming both
// versions, and nothing is stored.
//
// A write runs in the version of the request, as kube-apiserver runs a
// custom resource's strategy: the stored object is converted to that
// version, and the object is converted to the storage version only to
// be stored. So the schema's defaults, validation and CEL rules (with
// oldSelf, the stored object in that version) are the version's own,
// and a 422 names the version's fields (spec.count in a version that
// calls spec.replicas so). Admission sees the object, the stored one and
// [AdmissionRequest].Kind in the version of the request, on delete too,
// as kube-apiserver's in-process admission sees custom resources. The
// kind's Go hooks ([Kind].Default, Validate, PrepareForCreate,
// PrepareForUpdate, PrepareForStatusUpdate, Canonicalize, Finalize,
// Deletion and SelectableFields) are written against one Go type and
// see objects in the storage version, converted to it and, for the
// hooks that change the object, back; the field
// paths of Validate's errors are the storage version's, so a check whose
// paths differ between versions belongs in each version's schema (its
// bounds or x-kubernetes-validations). Field selectors on a version with
// selectable fields of its own ([KindVersion].SelectableFields, as each
// version of a CustomResourceDefinition declares) read them from objects
// in that version. metadata.generation compares the object with the
// stored one in the version of the request: a spec change through any
// version bumps it once, a status write does not.
//
// # Errors
//
// Every failure is a Kubernetes Status with the code, reason, message and
// causes kube-apiserver would send; a panic in a handler becomes a 500
// Status, never a dropped connection.
package apiserver
