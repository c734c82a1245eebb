package e2e

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

var sprocketsGVR = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "sprockets"}

func newSprocket(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Sprocket",
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	}}
}

// TestSprocketDynamic drives the run-time Sprocket kind with client-go's
// dynamic client: schema defaults show on reads, bad values are 422 with
// one cause per field, unknown fields are pruned or rejected as
// fieldValidation asks.
func TestSprocketDynamic(t *testing.T) {
	ts := startServer(t)
	dc, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sprockets := dc.Resource(sprocketsGVR).Namespace("default")

	if _, err := sprockets.Create(ctx, newSprocket("s1", map[string]any{"teeth": int64(12), "label": "main"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := sprockets.Get(ctx, "s1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if finish, _, _ := unstructured.NestedString(got.Object, "spec", "finish"); finish != "matte" {
		t.Errorf("default finish %q in %v", finish, got.Object)
	}

	_, err = sprockets.Create(ctx, newSprocket("bad", map[string]any{"teeth": int64(99), "finish": "shiny", "label": "Main"}), metav1.CreateOptions{})
	if !errors.IsInvalid(err) {
		t.Fatalf("bad values: %v", err)
	}
	causes := map[string]string{}
	for _, c := range err.(errors.APIStatus).Status().Details.Causes {
		causes[c.Field] = string(c.Type) + ": " + c.Message
	}
	want := map[string]string{
		"spec.teeth":  "FieldValueInvalid: Invalid value: 99: spec.teeth in body should be less than or equal to 60",
		"spec.finish": `FieldValueNotSupported: Unsupported value: "shiny": supported values: "matte", "gloss"`,
		"spec.label":  `FieldValueInvalid: Invalid value: "Main": spec.label in body should match '^[a-z]+$'`,
		// The schema's CEL rules are not evaluated on an object of the
		// wrong shape, as kube-apiserver says.
		"<nil>": "FieldValueInvalid: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
	}
	for f, w := range want {
		if causes[f] != w {
			t.Errorf("cause %s = %q, want %q", f, causes[f], w)
		}
	}
	if len(causes) != len(want) {
		t.Errorf("causes %v", causes)
	}

	unknown := newSprocket("s2", map[string]any{"teeth": int64(5), "colour": "red", "settings": map[string]any{"any": "thing"}})
	_, err = sprockets.Create(ctx, unknown, metav1.CreateOptions{FieldValidation: "Strict"})
	if !errors.IsBadRequest(err) || !strings.Contains(err.Error(), `unknown field "spec.colour"`) {
		t.Fatalf("strict: %v", err)
	}
	created, err := sprockets.Create(ctx, unknown, metav1.CreateOptions{FieldValidation: "Ignore"})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(created.Object, "spec", "colour"); found {
		t.Errorf("unknown field kept: %v", created.Object)
	}
	if v, _, _ := unstructured.NestedString(created.Object, "spec", "settings", "any"); v != "thing" {
		t.Errorf("preserved field dropped: %v", created.Object)
	}

	_, err = sprockets.Patch(ctx, "s1", types.MergePatchType, []byte(`{"spec":{"teeth":2}}`), metav1.PatchOptions{})
	if !errors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.teeth in body should be greater than or equal to 3") {
		t.Errorf("patch: %v", err)
	}
}

// TestSprocketKubectl checks kubectl's default strict validation and its
// rendering of a run-time kind.
func TestSprocketKubectl(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	manifest := "apiVersion: stable.example.com/v1\nkind: Sprocket\nmetadata:\n  name: k1\nspec:\n  teeth: 20\n"
	if out := kubectl(t, k, manifest, "create", "-f", "-"); !strings.Contains(out, "sprocket.stable.example.com/k1 created") {
		t.Errorf("create: %s", out)
	}
	if out := kubectl(t, k, "", "get", "sprocket", "k1", "-o", "jsonpath={.spec.finish} {.spec.teeth}"); out != "matte 20" {
		t.Errorf("get: %q", out)
	}
	errOut := kubectlFails(t, k, strings.Replace(manifest, "k1", "k2", 1)+"  colour: red\n", "create", "-f", "-")
	if !strings.Contains(errOut, `unknown field "spec.colour"`) {
		t.Errorf("strict validation: %s", errOut)
	}
	errOut = kubectlFails(t, k, strings.NewReplacer("k1", "k3", "teeth: 20", "teeth: 100").Replace(manifest), "apply", "--server-side", "-f", "-")
	if !strings.Contains(errOut, "spec.teeth: Invalid value: 100: spec.teeth in body should be less than or equal to 60") {
		t.Errorf("apply: %s", errOut)
	}
}
