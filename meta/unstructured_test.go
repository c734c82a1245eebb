package meta_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
)

func TestUnstructuredDroppedMetadataFields(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{"metadata":{"name":"a","labels":{"x":"y"}}}`, nil},
		{`{"metadata":{"name":"a","zeta":1,"alpha":{"b":2}}}`, []string{"metadata.alpha", "metadata.zeta"}},
		{`{"spec":{"metadata":{"bogus":1}}}`, nil},
	}
	for _, tc := range tests {
		var u meta.Unstructured
		if err := u.UnmarshalJSON([]byte(tc.in)); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if diff := cmp.Diff(tc.want, u.DroppedMetadataFields()); diff != "" {
			t.Errorf("%s: dropped (-want +got):\n%s", tc.in, diff)
		}
	}
	// A later decode starts afresh.
	var u meta.Unstructured
	_ = u.UnmarshalJSON([]byte(`{"metadata":{"x":1}}`))
	_ = u.UnmarshalJSON([]byte(`{"metadata":{"name":"b"}}`))
	if got := u.DroppedMetadataFields(); got != nil {
		t.Errorf("after a clean decode: %q", got)
	}
}
