package patch_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

func TestPatcherDispatch(t *testing.T) {
	p := widgetPatcher(t, newClock())
	if got := fmt.Sprint(p.PatchTypes()); got != "[application/json-patch+json application/merge-patch+json application/strategic-merge-patch+json application/apply-patch+yaml application/apply-patch+cbor]" {
		t.Errorf("types %s", got)
	}
	doc := []byte(`{"spec":{"tags":["a"]}}`)
	for ct, want := range map[string]string{
		"application/json-patch+json":                          `{"spec":{"tags":["a","b"]}}`,
		"application/merge-patch+json; charset=utf-8":          `{"spec":{"tags":["b"]}}`,
		"application/strategic-merge-patch+json;charset=utf-8": `{"spec":{"tags":["b"]}}`,
	} {
		body := `{"spec":{"tags":["b"]}}`
		if ct == "application/json-patch+json" {
			body = `[{"op":"add","path":"/spec/tags/-","value":"b"}]`
		}
		out, err := p.Patch(ct, doc, []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
		jsonEqual(t, out, want)
	}
	_, err := p.Patch("application/xml", doc, nil)
	wantStatus(t, err, 415, meta.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor")
	_, err = p.Patch(patch.ApplyPatchType, doc, nil)
	wantStatus(t, err, 500, meta.StatusReasonUnknown, "patch: application/apply-patch+yaml goes through Apply")
	if p.APIVersion() != "stable.example.com/v1" {
		t.Errorf("APIVersion %q", p.APIVersion())
	}
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	if _, err := patch.New(patch.Config{Schema: widgetSchema(t), Kind: "Widget"}); err == nil {
		t.Error("no version accepted")
	}
	if _, err := patch.New(patch.Config{Version: "v1", Kind: "Widget", ResetFields: map[string][]string{"": {"a..b"}}}); err == nil {
		t.Error("bad reset path accepted")
	}
}

func TestFieldManagerConcurrentUse(t *testing.T) {
	p := widgetPatcher(t, newClock())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := fmt.Sprintf(`{`+w+`,"spec":{"replicas":%d,"ports":[{"name":"p%d","port":%d}]}}`, i, i, 80+i)
			live, managed, err := p.Apply(nil, []byte(cfg), patch.ApplyOptions{Manager: fmt.Sprintf("m%d", i)})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := p.Update(live, []byte(cfg), patch.UpdateOptions{Manager: "u", LiveManaged: managed}); err != nil {
				t.Error(err)
			}
			if _, err := p.Patch(patch.StrategicMergePatchType, live, []byte(`{"spec":{"ports":[{"name":"x","port":1}]}}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}
