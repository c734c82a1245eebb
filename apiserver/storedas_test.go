package apiserver_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// widgetViewKind serves the Widgets' storage as view.example.com
// WidgetViews, whose color is the Widget's in upper case; a color of
// "bad" cannot be converted either way.
func widgetViewKind() apiserver.Kind {
	conv := func(f func(string) string) func(meta.Object) (meta.Object, error) {
		return func(obj meta.Object) (meta.Object, error) {
			w := *obj.(*widget)
			if strings.EqualFold(w.Spec.Color, "bad") {
				return nil, errors.New("bad color")
			}
			w.Spec.Color = f(w.Spec.Color)
			return &w, nil
		}
	}
	return apiserver.Kind{
		Group: "view.example.com", Version: "v1", Kind: "WidgetView", Resource: "widgetviews", Namespaced: true,
		New: func() meta.Object { return &widget{} },
		StoredAs: &apiserver.StoredAs{
			Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
			New:        func() meta.Object { return &widget{} },
			ToStored:   conv(strings.ToLower),
			FromStored: conv(strings.ToUpper),
		},
	}
}

const viewsPath = "/apis/view.example.com/v1/namespaces/default/widgetviews"

func TestStoredAsConverts(t *testing.T) {
	ts := startWith(t, widgetKind(), widgetViewKind())
	createWidget(t, ts.Server, "a", `{"color":"red"}`)
	r := do(t, ts.Server, "GET", viewsPath+"/a", "", "")
	if w := decodeWidget(t, r); r.code != http.StatusOK || w.Spec.Color != "RED" || w.Kind != "WidgetView" || w.APIVersion != "view.example.com/v1" {
		t.Fatalf("view of a: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "POST", viewsPath, "application/json",
		`{"apiVersion":"view.example.com/v1","kind":"WidgetView","metadata":{"name":"b"},"spec":{"color":"BLUE"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create through the view: %d %s", r.code, r.body)
	}
	if w := decodeWidget(t, do(t, ts.Server, "GET", widgetsPath+"/b", "", "")); w.Spec.Color != "blue" || w.Kind != "Widget" {
		t.Fatalf("widget b = %+v", w)
	}
}

// TestStoredAsUnconvertible checks that an object the conversion refuses
// is a 500 where it is read or written, and leaves the others readable.
func TestStoredAsUnconvertible(t *testing.T) {
	ts := startWith(t, widgetKind(), widgetViewKind())
	createWidget(t, ts.Server, "good", `{"color":"red"}`)
	createWidget(t, ts.Server, "broken", `{"color":"bad"}`)
	if r := do(t, ts.Server, "GET", viewsPath+"/good", "", ""); r.code != http.StatusOK {
		t.Errorf("get good: %d %s", r.code, r.body)
	}
	r := do(t, ts.Server, "GET", viewsPath+"/broken", "", "")
	if st := decodeStatus(t, r); r.code != http.StatusInternalServerError || st.Reason != meta.StatusReasonInternalError {
		t.Errorf("get broken: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "POST", viewsPath, "application/json",
		`{"apiVersion":"view.example.com/v1","kind":"WidgetView","metadata":{"name":"c"},"spec":{"color":"BAD"}}`)
	if st := decodeStatus(t, r); r.code != http.StatusInternalServerError || !strings.Contains(st.Message, "bad color") {
		t.Errorf("create c: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", widgetsPath+"/c", "", ""); r.code != http.StatusNotFound {
		t.Errorf("the refused create stored c: %d %s", r.code, r.body)
	}
}

func TestRegisterStoredAs(t *testing.T) {
	tests := []struct {
		name    string
		change  func(sa *apiserver.StoredAs)
		wantErr string
	}{
		{"no kind", func(sa *apiserver.StoredAs) { sa.Kind = "" }, "StoredAs needs the Version, Kind and Resource"},
		{"no conversion", func(sa *apiserver.StoredAs) { sa.FromStored = nil }, "StoredAs needs New, ToStored and FromStored"},
		{"itself", func(sa *apiserver.StoredAs) { sa.Group, sa.Resource = "view.example.com", "widgetviews" }, "names the kind's own resource"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := widgetViewKind()
			tc.change(k.StoredAs)
			srv := apiserver.New(apiserver.Options{})
			defer srv.Close()
			if err := srv.Register(k).Err(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Err() = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
