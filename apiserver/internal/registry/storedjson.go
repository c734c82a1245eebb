package registry

import (
	"encoding/json"
	"slices"

	"github.com/kapi-dev/kapi/apiserver/internal/splice"
	"github.com/kapi-dev/kapi/storage"
)

// How objects are stored (a floating comment: the package doc points
// here).
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

// Stored values are the object's JSON with a placeholder where the
// resourceVersion goes, since the revision is only known once the write
// is done. Serving JSON then means splicing the revision in: no decoding
// and no re-encoding on reads.
const rvPlaceholder = "\x00"

// rvMarker is how the placeholder reads in the stored JSON. Only the
// metadata's resourceVersion can produce it: user strings escape quotes,
// and metadata comes before every other field that could hold a key of
// that name.
var RvMarker = []byte(`"resourceVersion":"\u0000"`)

// RvMarkerIndex is bytes.Index(value, rvMarker), found by the marker's
// backslash rather than its opening quote: JSON text holds a backslash
// only in escapes, but a quote around every key and string, which made
// bytes.Index stop at each of them.
func RvMarkerIndex(value []byte) int {
	return splice.MarkerIndex(value, 0, RvMarker, len(`"resourceVersion":"`))
}

// AppendJSON appends a stored object as JSON with its resourceVersion.
func (r *Resource) AppendJSON(dst []byte, kv *storage.KeyValue) ([]byte, error) {
	if at := r.SpliceAt(kv); at >= 0 {
		return AppendSpliced(dst, kv, at), nil
	}
	obj, err := r.Decode(kv)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(obj)
	return append(dst, b...), err
}

// AppendSpliced appends a stored value whose resourceVersion placeholder
// is at at, with the revision in its place.
func AppendSpliced(dst []byte, kv *storage.KeyValue, at int) []byte {
	dst = slices.Grow(dst, len(kv.Value)+SharedGrowth(kv)+len(`"resourceVersion":""`)+20-len(RvMarker))
	dst = append(dst, kv.Value[:at]...)
	dst = splice.AppendRVField(dst, kv.ModRevision)
	head, mf, tail := SplitShared(kv, kv.Value[at+len(RvMarker):])
	dst = append(append(dst, head...), mf...)
	return append(dst, tail...)
}
