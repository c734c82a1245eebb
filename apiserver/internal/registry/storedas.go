package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unique"

	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// A 422 Invalid of a kind with StoredAs names the stored kind, as
// kube-apiserver's name the internal kind both versions share.

// CheckStoredAs reports what is missing from a kind's StoredAs.
func CheckStoredAs(k *kinds.Kind) error {
	sa := k.StoredAs
	switch {
	case sa == nil:
		return nil
	case sa.Version == "" || sa.Kind == "" || sa.Resource == "":
		return errors.New("StoredAs needs the Version, Kind and Resource of the stored kind")
	case sa.New == nil || sa.ToStored == nil || sa.FromStored == nil:
		return errors.New("StoredAs needs New, ToStored and FromStored")
	case sa.Group == k.Group && sa.Resource == k.Resource:
		return errors.New("StoredAs names the kind's own resource")
	}
	return nil
}

// InvalidKind is the kind a 422 Invalid names: the stored kind of a kind
// with StoredAs, which is to kube-apiserver the same kind in another
// version (an events.k8s.io Event's errors name the core Event), else the
// kind itself.
func (r *Resource) InvalidKind() meta.GroupVersionKind {
	if sa := r.Kind.StoredAs; sa != nil {
		return meta.GroupVersionKind{Group: sa.Group, Version: sa.Version, Kind: sa.Kind}
	}
	return r.Kind.GroupVersionKind()
}

// storagePrefix is the key prefix of a resource's objects.
func storagePrefix(group, resource string) string {
	if group == "" {
		group = "core"
	}
	return "/" + group + "/" + resource + "/"
}

// sharedStore is the store of a kind with StoredAs: keys under the served
// resource's prefix map to the stored resource's, and values are
// converted between the two kinds in the encoding they are stored in.
type sharedStore struct {
	storage.Interface
	kind   *kinds.Kind
	served string // the served resource's prefix
	stored string // the stored resource's prefix
	codecs *codec.Registry
}

// progressSharedStore is a sharedStore over a store that takes progress
// requests, passed on.
type progressSharedStore struct {
	*sharedStore
	pr storage.ProgressRequester
}

func (p progressSharedStore) RequestProgress(ctx context.Context) error {
	return p.pr.RequestProgress(ctx)
}

// newSharedStore wraps st, the storage of the kind k with StoredAs.
func newSharedStore(k *kinds.Kind, st storage.Interface, codecs *codec.Registry) storage.Interface {
	s := &sharedStore{
		Interface: st, kind: k, codecs: codecs,
		served: storagePrefix(k.Group, k.Resource),
		stored: storagePrefix(k.StoredAs.Group, k.StoredAs.Resource),
	}
	if pr, ok := st.(storage.ProgressRequester); ok {
		return progressSharedStore{sharedStore: s, pr: pr}
	}
	return s
}

// toStoredKey and toServedKey map keys between the two prefixes.
func (s *sharedStore) toStoredKey(key string) string {
	if rest, ok := strings.CutPrefix(key, s.served); ok {
		return s.stored + rest
	}
	return key
}

func (s *sharedStore) toServedKey(key string) string {
	if rest, ok := strings.CutPrefix(key, s.stored); ok {
		return s.served + rest
	}
	return key
}

// toServed returns a stored value as the served kind, with its key
// mapped. A value that cannot be converted is passed on empty, so that
// reading that object fails as reading an undecodable one does, while
// the others stay readable.
func (s *sharedStore) toServed(kv *storage.KeyValue) *storage.KeyValue {
	if kv == nil {
		return nil
	}
	out := *kv
	out.Key, out.Shared = s.toServedKey(kv.Key), unique.Handle[string]{}
	if len(kv.Value) > 0 {
		v, err := s.convert(StoredBytes(kv), s.kind.StoredAs.New, s.kind.StoredAs.FromStored, s.kind.GroupVersion().String(), s.kind.Kind)
		if err != nil {
			v = nil
		}
		out.Value = v
	}
	return &out
}

// convert decodes value (in any storage encoding) into newIn's type,
// converts it with conv and encodes the result, typed apiVersion and kind,
// in value's encoding. A JSON value keeps its resourceVersion placeholder.
func (s *sharedStore) convert(value []byte, newIn func() meta.Object, conv func(meta.Object) (meta.Object, error), apiVersion, kind string) ([]byte, error) {
	in := newIn()
	mt := codec.Sniff(value)
	var ser codec.Serializer
	if mt == codec.MediaTypeJSON {
		if err := json.Unmarshal(value, in); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if ser, ok = s.codecs.Lookup(mt); !ok {
			return nil, fmt.Errorf("stored value in %s, which this server does not decode", mt)
		}
		if _, err := ser.Decode(value, in); err != nil {
			return nil, err
		}
	}
	out, err := conv(in)
	if err != nil {
		return nil, err
	}
	tm := out.GetTypeMeta()
	tm.APIVersion, tm.Kind = apiVersion, kind
	out.GetObjectMeta().ResourceVersion = in.GetObjectMeta().ResourceVersion
	if ser == nil {
		return json.Marshal(out)
	}
	var buf bytes.Buffer
	err = ser.Encode(&buf, out)
	return buf.Bytes(), err
}

func (s *sharedStore) Get(ctx context.Context, key string, opts storage.GetOptions) (storage.GetResponse, error) {
	resp, err := s.Interface.Get(ctx, s.toStoredKey(key), opts)
	resp.KV = s.toServed(resp.KV)
	return resp, err
}

func (s *sharedStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	if opts.After != "" {
		opts.After = s.toStoredKey(opts.After)
	}
	resp, err := s.Interface.List(ctx, s.toStoredKey(prefix), opts)
	kvs := make([]*storage.KeyValue, len(resp.KVs))
	for i, kv := range resp.KVs {
		kvs[i] = s.toServed(kv)
	}
	resp.KVs = kvs
	return resp, err
}

func (s *sharedStore) OptimisticPut(ctx context.Context, key string, value []byte, expectedRevision int64, opts storage.PutOptions) (storage.PutResponse, error) {
	sa := s.kind.StoredAs
	apiVersion := meta.GroupVersion{Group: sa.Group, Version: sa.Version}.String()
	stored, err := s.convert(value, s.kind.New, sa.ToStored, apiVersion, sa.Kind)
	if err != nil {
		return storage.PutResponse{}, fmt.Errorf("converting %s to %s: %w", s.kind.Kind, sa.Kind, err)
	}
	resp, err := s.Interface.OptimisticPut(ctx, s.toStoredKey(key), stored, expectedRevision, opts)
	if resp.Succeeded && resp.KV != nil {
		// The written value is the caller's, as the store would return it.
		kv := *resp.KV
		kv.Key, kv.Value, kv.Shared = key, value, unique.Handle[string]{}
		resp.KV = &kv
	} else {
		resp.KV = s.toServed(resp.KV)
	}
	return resp, err
}

func (s *sharedStore) OptimisticDelete(ctx context.Context, key string, expectedRevision int64, opts storage.DeleteOptions) (storage.DeleteResponse, error) {
	resp, err := s.Interface.OptimisticDelete(ctx, s.toStoredKey(key), expectedRevision, opts)
	resp.KV = s.toServed(resp.KV)
	return resp, err
}

// Watch passes on the stored resource's changes as the served kind's.
func (s *sharedStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	in := s.Interface.Watch(ctx, s.toStoredKey(prefix), opts)
	out := make(chan storage.WatchResponse, cap(in))
	go func() {
		defer close(out)
		for resp := range in {
			// The store may share its events with other watchers: copy.
			if len(resp.Events) > 0 {
				evs := make([]storage.Event, len(resp.Events))
				for i, ev := range resp.Events {
					evs[i] = storage.Event{Type: ev.Type, KV: s.toServed(ev.KV), PrevKV: s.toServed(ev.PrevKV)}
				}
				resp.Events = evs
			}
			select {
			case out <- resp:
			case <-ctx.Done():
				// Drain so the store's sender is not left blocked.
				for range in {
				}
				return
			}
		}
	}()
	return out
}
