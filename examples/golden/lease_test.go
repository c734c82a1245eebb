package golden

import (
	"encoding/json"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcoordinationv1 "github.com/kapi-dev/kapi/kinds/coordinationv1"
)

// lease is a Lease with both MicroTimes set to times with microseconds,
// the precision MicroTime keeps on every wire.
func lease() *coordinationv1.Lease {
	acquired := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)
	return &coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "controller", Namespace: "default", ResourceVersion: "7"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr("a_1"), LeaseDurationSeconds: ptr(int32(15)),
			AcquireTime: &metav1.MicroTime{Time: acquired}, RenewTime: &metav1.MicroTime{Time: acquired.Add(2500 * time.Microsecond)},
			LeaseTransitions: ptr(int32(3)),
		},
	}
}

// TestLeaseJSONAndCBOR compares kapi's JSON and CBOR of a Lease, whose
// times are MicroTimes, with apimachinery's; the protobuf form is among
// the fixtures of TestProtobufObjects.
func TestLeaseJSONAndCBOR(t *testing.T) {
	want := lease()
	got := fromJSON(t, want, &kcoordinationv1.Lease{}).(*kcoordinationv1.Lease)
	if got.Spec.RenewTime.Nanosecond() != 125956000 {
		t.Fatalf("renewTime read as %v", got.Spec.RenewTime)
	}
	wj, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	gj, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(gj) != string(wj) {
		t.Errorf("JSON:\n kapi         %s\n apimachinery %s", gj, wj)
	}
	sameCBOR(t, "lease", kapiCBOR(t, got), amCBOR(t, want))
}
