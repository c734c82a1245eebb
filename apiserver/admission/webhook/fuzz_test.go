package webhook

import (
	"encoding/json"
	"testing"
)

// Whatever a webhook answers, decoding and verifying it never panics,
// and an answer that passes verification is allowed or denied with a
// patch only where the rules allow one.
func FuzzVerifyResponse(f *testing.F) {
	const uid = "0f0e0d0c-0b0a-4908-8706-050403020100"
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+uid+`","allowed":true}}`), true, "v1")
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+uid+`","allowed":true,"patchType":"JSONPatch","patch":"W10="}}`), true, "v1")
	f.Add([]byte(`{"response":{"allowed":false,"status":{"code":1000,"message":"x"}}}`), false, "v1beta1")
	f.Add([]byte(`{"response":{"patchType":""}}`), true, "v1")
	f.Add([]byte(`null`), false, "v1")
	f.Fuzz(func(t *testing.T, body []byte, mutating bool, version string) {
		var rv review
		if json.Unmarshal(body, &rv) != nil {
			return
		}
		res, err := verifyResponse(version, uid, mutating, &rv)
		if err != nil {
			return
		}
		if !mutating && (len(res.patch) > 0 || res.patchType != "") {
			t.Fatalf("a validating answer kept a patch: %+v", res)
		}
		if version == "v1" && rv.Response.UID != uid {
			t.Fatalf("accepted uid %q", rv.Response.UID)
		}
		if !res.allowed {
			st := denial("aw.hook", res.result)
			if st.Status.Code < 400 || st.Status.Status != "Failure" || st.Status.Message == "" {
				t.Fatalf("denial %+v", st.Status)
			}
		}
	})
}
