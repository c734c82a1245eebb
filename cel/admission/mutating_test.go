package admission_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	celadm "github.com/kapi-dev/kapi/cel/admission"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// widgetSchema is the Widget CRD's schema in the reference.
const widgetSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer, format: int32, default: 1, minimum: 0, maximum: 1000}
      color: {type: string, pattern: '^[a-z]+$'}
      size: {type: string}
      tags:
        type: array
        x-kubernetes-list-type: set
        items: {type: string}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name, port]
          properties:
            name: {type: string}
            port: {type: integer, format: int32}
            protocol: {type: string, default: TCP}
      selector:
        type: object
        x-kubernetes-map-type: atomic
        additionalProperties: {type: string}
`

// crdWidgetKind is the Widget as the reference serves it: unstructured,
// with its schema.
func crdWidgetKind(t *testing.T) apiserver.Kind {
	t.Helper()
	s, err := schema.FromOpenAPI([]byte(widgetSchema))
	if err != nil {
		t.Fatal(err)
	}
	return apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, Schema: s, New: func() meta.Object { return &meta.Unstructured{} }}
}

func mutatingPolicyKinds() []apiserver.Kind {
	g, v := "admissionregistration.k8s.io", "v1"
	return []apiserver.Kind{
		{Group: g, Version: v, Kind: "MutatingAdmissionPolicy", Resource: "mutatingadmissionpolicies",
			New: func() meta.Object { return &admissionregistrationv1.MutatingAdmissionPolicy{} }},
		{Group: g, Version: v, Kind: "MutatingAdmissionPolicyBinding", Resource: "mutatingadmissionpolicybindings",
			New: func() meta.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBinding{} }},
	}
}

// newMutatingServer is a server with the mutating policy plugin, and
// extra mutating functions after it.
func newMutatingServer(t *testing.T, after ...apiserver.AdmissionFunc) *testServer {
	t.Helper()
	p, err := celadm.NewMutating(celadm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{MutatingAdmission: append([]apiserver.AdmissionFunc{p.Mutate}, after...)})
	srv.Register(crdWidgetKind(t)).Register(corev1.ConfigMapKind()).Register(corev1.NamespaceKind())
	for _, k := range mutatingPolicyKinds() {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	p.Start(srv)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return &testServer{t: t, url: ts.URL}
}

const (
	mPoliciesPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	mBindingsPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"
	amWidgetsPath = "/apis/stable.example.com/v1/namespaces/am-mut/widgets"
)

// mPolicy is a policy on the widget named name, as the reference's
// scenario declared them.
func mPolicy(name, failure, reinvoke, extra, mutations string) string {
	conds := `"matchConditions":[{"name":"mine","expression":"object.metadata.name == '` + name + `'"}],`
	if strings.Contains(extra, `"matchConditions"`) {
		conds = ""
	}
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"` + name + `"},
	"spec":{"failurePolicy":"` + failure + `","reinvocationPolicy":"` + reinvoke + `",
	"matchConstraints":{"resourceRules":[{"apiGroups":["stable.example.com"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["widgets"]}]},
	` + conds + extra + `"mutations":` + mutations + `}}`
}

func applyConfig(expr string) string {
	b, _ := json.Marshal(expr)
	return `{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":` + string(b) + `}}`
}

func jsonPatch(expr string) string {
	b, _ := json.Marshal(expr)
	return `{"patchType":"JSONPatch","jsonPatch":{"expression":` + string(b) + `}}`
}

// amWidget is the widget every case creates.
func amWidget(name string) string {
	return `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"replicas":1,"color":"red","ports":[{"name":"web","port":80}]}}`
}

// result is what a case compares: the answer, and the object created.
type result struct {
	Outcome             outcome
	Labels, Annotations map[string]string
	Spec                map[string]any
}

func resultOf(r response) result {
	res := result{Outcome: outcomeOf(r)}
	if r.code >= 300 {
		return res
	}
	var w struct {
		Metadata struct{ Labels, Annotations map[string]string }
		Spec     map[string]any
	}
	_ = json.Unmarshal([]byte(r.body), &w)
	res.Labels, res.Annotations, res.Spec = w.Metadata.Labels, w.Metadata.Annotations, w.Spec
	return res
}

// mDenied is the reference's refusal by a policy's binding.
func mDenied(name, msg string) outcome {
	full := "policy '" + name + "' with binding '" + name + "-b' denied request: " + msg
	return outcome{Code: 403, Reason: meta.StatusReasonInvalid, Message: full, Causes: []meta.StatusCause{{Message: full}}}
}

// baseSpec is amWidget's spec as stored, with changes.
func baseSpec(changes map[string]any) map[string]any {
	s := map[string]any{"replicas": float64(1), "color": "red",
		"ports": []any{map[string]any{"name": "web", "port": float64(80), "protocol": "TCP"}}}
	for k, v := range changes {
		s[k] = v
	}
	return s
}

// TestMutatingPoliciesReference replays the reference's scenario: each
// policy mutates the widget of its name; the answers and the objects
// stored are kube-apiserver v1.37's.
func TestMutatingPoliciesReference(t *testing.T) {
	ports := []any{map[string]any{"name": "web", "port": float64(80), "protocol": "TCP"}}
	tests := []struct {
		name, failure, extra, mutations string
		want                            result
	}{
		{name: "am-apply", failure: "Fail", mutations: "[" + applyConfig(`Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}, spec: Object.spec{size: 'large', tags: ['a']}}`) + "]",
			want: result{Outcome: outcome{Code: 201}, Labels: map[string]string{"mutated": "yes"}, Spec: baseSpec(map[string]any{"size": "large", "tags": []any{"a"}})}},
		{name: "am-jp", failure: "Fail", mutations: "[" + jsonPatch(`[JSONPatch{op: 'replace', path: '/spec/color', value: 'blue'}, JSONPatch{op: 'add', path: '/metadata/annotations', value: {'a/b': 'x'}}]`) + "]",
			want: result{Outcome: outcome{Code: 201}, Annotations: map[string]string{"a/b": "x"}, Spec: baseSpec(map[string]any{"color": "blue"})}},
		{name: "am-badtype", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{replicas: 'many'}}`) + "]",
			want: result{Outcome: mDenied("am-badtype", "error applying patch: failed to convert patch object to typed object: .spec.replicas: expected numeric (int or float), got string")}},
		{name: "am-badign", failure: "Ignore", mutations: "[" + applyConfig(`Object{spec: Object.spec{replicas: 'many'}}`) + "]",
			want: result{Outcome: outcome{Code: 201}, Spec: baseSpec(nil)}},
		{name: "am-evalerr", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{size: object.spec.nope}}`) + "]",
			want: result{Outcome: mDenied("am-evalerr", "expression 'Object{spec: Object.spec{size: object.spec.nope}}' resulted in error: no such key: nope")}},
		{name: "am-typename", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.metadata{size: 'x'}}`) + "]",
			want: result{Outcome: mDenied("am-typename", `type mismatch: unexpected type name "Object.metadata", expected "Object.spec", which matches field name path from root Object type`)}},
		{name: "am-jptest", failure: "Fail", mutations: "[" + jsonPatch(`[JSONPatch{op: 'test', path: '/spec/color', value: 'green'}, JSONPatch{op: 'replace', path: '/spec/color', value: 'blue'}]`) + "]",
			want: result{Outcome: outcome{Code: 201}, Spec: baseSpec(nil)}},
		{name: "am-jpbadpath", failure: "Fail", mutations: "[" + jsonPatch(`[JSONPatch{op: 'remove', path: '/spec/nothere'}]`) + "]",
			want: result{Outcome: mDenied("am-jpbadpath", "JSON Patch: error in remove for path: '/spec/nothere': Unable to remove nonexistent key: nothere: missing value")}},
		{name: "am-params", failure: "Fail", extra: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},`, mutations: "[" + applyConfig(`Object{spec: Object.spec{size: params.data.size}}`) + "]",
			want: result{Outcome: outcome{Code: 201}, Spec: baseSpec(map[string]any{"size": "huge"})}},
		{name: "am-vars", failure: "Fail", extra: `"variables":[{"name":"c","expression":"object.spec.color + \"-x\""}],`, mutations: "[" + jsonPatch(`[JSONPatch{op: 'add', path: '/metadata/labels', value: {'c': variables.c}}]`) + "]",
			want: result{Outcome: outcome{Code: 201}, Labels: map[string]string{"c": "red-x"}, Spec: baseSpec(nil)}},
		{name: "am-twomut", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{size: 'a'}}`) + "," + applyConfig(`Object{spec: Object.spec{color: object.spec.size + 'b'}}`) + "]",
			want: result{Outcome: outcome{Code: 201}, Spec: baseSpec(map[string]any{"size": "a", "color": "ab"})}},
		{name: "am-ports", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{ports: [Object.spec.ports{name: 'http', port: 8080}]}}`) + "]",
			want: result{Outcome: outcome{Code: 201}, Spec: baseSpec(map[string]any{"ports": append(ports, map[string]any{"name": "http", "port": float64(8080), "protocol": "TCP"})})}},
		{name: "am-cost", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{size: [1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true)))))) ? 'x' : 'y'}}`) + "]",
			want: result{Outcome: mDenied("am-cost", "expression 'Object{spec: Object.spec{size: [1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true)))))) ? 'x' : 'y'}}' resulted in error: operation cancelled: actual cost limit exceeded")}},
		{name: "am-escape", failure: "Fail", mutations: "[" + jsonPatch(`[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('ex/ample'), value: 'y'}]`) + "]",
			want: result{Outcome: mDenied("am-escape", `JSON Patch: add operation does not apply: doc is missing path: "/metadata/labels/ex~1ample": missing value`)}},
		// Values read from the object (JSON) go into both kinds of patch.
		{name: "am-copy", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{tags: object.spec.ports.map(p, p.name), replicas: object.spec.ports[0].port / 40}}`) + "," +
			jsonPatch(`[JSONPatch{op: 'add', path: '/metadata/annotations', value: object.metadata.labels}, JSONPatch{op: 'add', path: '/spec/ports/-', value: {'name': dyn('copy'), 'port': dyn(object.spec.ports[0].port + 1)}}]`) + "]",
			want: result{Outcome: outcome{Code: 201}, Labels: map[string]string{"x": "y"}, Annotations: map[string]string{"x": "y"},
				Spec: baseSpec(map[string]any{"replicas": float64(2), "tags": []any{"web"},
					"ports": append(ports, map[string]any{"name": "copy", "port": float64(81), "protocol": "TCP"})})}},
		// A matchCondition that fails to evaluate, under Fail.
		{name: "am-mcerr", failure: "Fail", extra: `"matchConditions":[{"name":"mine","expression":"object.metadata.name == 'am-mcerr'"},{"name":"bad","expression":"object.spec.nope == 1"}],`,
			mutations: "[" + applyConfig(`Object{spec: Object.spec{size: 'x'}}`) + "]",
			want:      result{Outcome: mDenied("am-mcerr", "expression 'object.spec.nope == 1' resulted in error: no such key: nope")}},
		// Every failing mutation is a cause; the ones between still apply.
		{name: "am-twoerr", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{size: object.spec.nope}}`) + "," +
			applyConfig(`Object{spec: Object.spec{size: 'ok'}}`) + "," + jsonPatch(`[JSONPatch{op: 'remove', path: '/spec/nothere'}]`) + "]",
			want: result{Outcome: outcome{Code: 403, Reason: meta.StatusReasonInvalid,
				Message: "policy 'am-twoerr' with binding 'am-twoerr-b' denied request: expression 'Object{spec: Object.spec{size: object.spec.nope}}' resulted in error: no such key: nope",
				Causes: []meta.StatusCause{
					{Message: "policy 'am-twoerr' with binding 'am-twoerr-b' denied request: expression 'Object{spec: Object.spec{size: object.spec.nope}}' resulted in error: no such key: nope"},
					{Message: "policy 'am-twoerr' with binding 'am-twoerr-b' denied request: JSON Patch: error in remove for path: '/spec/nothere': Unable to remove nonexistent key: nothere: missing value"},
				}}}},
		// Not in the reference's scenario (it refuses such a policy when
		// it is written; a server without the expression check stores
		// it): an expression that does not compile fails when applied,
		// with kube's compiler's words, and failurePolicy decides.
		{name: "am-nocompile", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{size: nope}}`) + "]",
			want: result{Outcome: mDenied("am-nocompile", "compilation failed: ERROR: <input>:1:32: undeclared reference to 'nope' (in container '')\n | Object{spec: Object.spec{size: nope}}\n | ...............................^")}},
		{name: "am-nocompile-ign", failure: "Ignore", mutations: "[" + applyConfig(`Object{spec: Object.spec{size: nope}}`) + "]",
			want: result{Outcome: outcome{Code: 201}, Spec: baseSpec(nil)}},
		// Not in the reference's scenario: an atomic map set by an apply
		// configuration, as kube's patcher refuses it.
		{name: "am-atomic", failure: "Fail", mutations: "[" + applyConfig(`Object{spec: Object.spec{selector: {'a': 'b'}}}`) + "]",
			want: result{Outcome: mDenied("am-atomic", "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector")}},
	}
	s := newMutatingServer(t)
	s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"am-mut","labels":{"am-test":"yes"}}}`)
	s.mustCreate("/api/v1/namespaces/am-mut/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"am-size"},"data":{"size":"huge"}}`)
	for _, tc := range tests {
		s.mustCreate(mPoliciesPath, mPolicy(tc.name, tc.failure, "Never", tc.extra, tc.mutations))
		b := `{"metadata":{"name":"` + tc.name + `-b"},"spec":{"policyName":"` + tc.name + `"}}`
		if tc.name == "am-params" {
			b = `{"metadata":{"name":"am-params-b"},"spec":{"policyName":"am-params","paramRef":{"name":"am-size","parameterNotFoundAction":"Deny"}}}`
		}
		s.mustCreate(mBindingsPath, b)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := amWidget(tc.name)
			if tc.name == "am-copy" {
				w = strings.Replace(w, `"name":"am-copy"}`, `"name":"am-copy","labels":{"x":"y"}}`, 1)
			}
			got := resultOf(s.do("POST", amWidgetsPath, w))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// reinvPolicy is a policy on the widget am-reinv that sets annotation
// key to whether it sees annotation r2.
func reinvPolicy(name, reinvoke, key string) string {
	expr := `Object{metadata: Object.metadata{annotations: {"` + key + `": has(object.metadata.annotations) && "r2" in object.metadata.annotations ? "saw-r2" : "no-r2"}}}`
	if key == "r2" {
		expr = `Object{metadata: Object.metadata{annotations: {"r2": "x"}}}`
	}
	p := mPolicy(name, "Fail", reinvoke, "", "["+applyConfig(expr)+"]")
	return strings.Replace(p, "== '"+name+"'", "== 'am-reinv'", 1)
}

// TestMutatingReinvocation checks reinvocationPolicy: an IfNeeded
// policy runs again when a later policy or mutating function changed
// the object, a Never one does not. The reference answered
// {"r1":"saw-r2","r2":"x"} for r1 IfNeeded and r2 Never.
func TestMutatingReinvocation(t *testing.T) {
	addR2 := func(_ context.Context, a *apiserver.AdmissionRequest) error {
		u, ok := a.Object.(*meta.Unstructured)
		if !ok {
			return nil
		}
		if u.Annotations == nil {
			u.Annotations = map[string]string{}
		}
		u.Annotations["r2"] = "x"
		return nil
	}
	tests := []struct {
		name     string
		policies []string
		after    []apiserver.AdmissionFunc
		want     map[string]string
	}{
		{name: "later policy, IfNeeded", policies: []string{reinvPolicy("am-r0", "Never", "r0"), reinvPolicy("am-r1", "IfNeeded", "r1"), reinvPolicy("am-r2", "Never", "r2")},
			want: map[string]string{"r0": "no-r2", "r1": "saw-r2", "r2": "x"}},
		{name: "later policy, Never", policies: []string{reinvPolicy("am-r1", "Never", "r1"), reinvPolicy("am-r2", "Never", "r2")},
			want: map[string]string{"r1": "no-r2", "r2": "x"}},
		{name: "later function, IfNeeded", policies: []string{reinvPolicy("am-r1", "IfNeeded", "r1")}, after: []apiserver.AdmissionFunc{addR2},
			want: map[string]string{"r1": "saw-r2", "r2": "x"}},
		{name: "later function, Never", policies: []string{reinvPolicy("am-r1", "Never", "r1")}, after: []apiserver.AdmissionFunc{addR2},
			want: map[string]string{"r1": "no-r2", "r2": "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newMutatingServer(t, tc.after...)
			s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"am-mut"}}`)
			for _, p := range tc.policies {
				var m struct{ Metadata struct{ Name string } }
				_ = json.Unmarshal([]byte(p), &m)
				s.mustCreate(mPoliciesPath, p)
				s.mustCreate(mBindingsPath, `{"metadata":{"name":"`+m.Metadata.Name+`-b"},"spec":{"policyName":"`+m.Metadata.Name+`"}}`)
			}
			got := resultOf(s.do("POST", amWidgetsPath, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"am-reinv"},"spec":{"color":"red"}}`))
			if d := cmp.Diff(tc.want, got.Annotations); d != "" {
				t.Errorf("annotations (-want +got)\n%s\n%+v", d, got.Outcome)
			}
		})
	}
}

// TestMutatingTypedKind checks mutations of a kind served as a Go type
// (ConfigMap): kube-apiserver's answers when a JSON patch gives a value
// the type cannot hold (500) and when an apply configuration does not
// fit its schema (403), recorded from the reference.
func TestMutatingTypedKind(t *testing.T) {
	s := newMutatingServer(t)
	s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"am-mut"}}`)
	s.mustCreate(mPoliciesPath, `{"metadata":{"name":"am-cm"},"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",
	"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	"matchConditions":[{"name":"mine","expression":"object.metadata.name.startsWith('am-cm')"}],
	"mutations":[`+jsonPatch(`object.metadata.name == 'am-cm-int' ? [JSONPatch{op: 'add', path: '/data/x', value: 1}] : [JSONPatch{op: 'add', path: '/data/x', value: 'one'}]`)+`,`+
		applyConfig(`object.metadata.name == 'am-cm-ac' ? Object{data: {'y': 2}} : Object{data: {'y': 'two'}}`)+`]}}`)
	s.mustCreate(mBindingsPath, `{"metadata":{"name":"am-cm-b"},"spec":{"policyName":"am-cm"}}`)
	acMsg := "policy 'am-cm' with binding 'am-cm-b' denied request: error applying patch: failed to convert patch object to typed object: .data.y: expected string, got &value.valueUnstructured{Value:2}"
	intMsg := "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"
	tests := []struct {
		name string
		want outcome
		data map[string]string
	}{
		{name: "am-cm-ok", want: outcome{Code: 201}, data: map[string]string{"a": "b", "x": "one", "y": "two"}},
		{name: "am-cm-int", want: outcome{Code: 500, Reason: meta.StatusReasonInternalError, Message: "Internal error occurred: " + intMsg, Causes: []meta.StatusCause{{Message: intMsg}}}},
		{name: "am-cm-ac", want: outcome{Code: 403, Reason: meta.StatusReasonInvalid, Message: acMsg, Causes: []meta.StatusCause{{Message: acMsg}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do("POST", "/api/v1/namespaces/am-mut/configmaps", `{"metadata":{"name":"`+tc.name+`"},"data":{"a":"b"}}`)
			if d := cmp.Diff(tc.want, outcomeOf(r)); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
			var cm struct{ Data map[string]string }
			_ = json.Unmarshal([]byte(r.body), &cm)
			if d := cmp.Diff(tc.data, cm.Data); r.code < 300 && d != "" {
				t.Errorf("data (-want +got)\n%s", d)
			}
		})
	}
}

// TestMutatingConfigErrors checks policies and bindings that cannot be
// applied: the reference's 403 Forbidden naming the binding for params
// that are missing under Deny (collected before matchConditions, so
// every widget is refused), the policy for a paramKind not served, and
// nothing under failurePolicy Ignore.
func TestMutatingConfigErrors(t *testing.T) {
	forbidden := func(msg string) outcome {
		return outcome{Code: 403, Reason: meta.StatusReasonForbidden, Message: msg, Causes: []meta.StatusCause{{Message: msg}}}
	}
	tests := []struct {
		name, failure, paramKind, paramRef string
		want                               outcome
	}{
		{name: "param missing", failure: "Fail", paramKind: `{"apiVersion":"v1","kind":"ConfigMap"}`, paramRef: `{"name":"absent","parameterNotFoundAction":"Deny"}`,
			want: forbidden("policy 'am-p' with binding 'am-p-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")},
		{name: "param missing, ignored", failure: "Ignore", paramKind: `{"apiVersion":"v1","kind":"ConfigMap"}`, paramRef: `{"name":"absent","parameterNotFoundAction":"Deny"}`,
			want: outcome{Code: 201}},
		{name: "param missing, allowed", failure: "Fail", paramKind: `{"apiVersion":"v1","kind":"ConfigMap"}`, paramRef: `{"name":"absent","parameterNotFoundAction":"Allow"}`,
			want: outcome{Code: 201}},
		{name: "binding to a missing policy", failure: "Fail", paramKind: `{"apiVersion":"v1","kind":"ConfigMap"}`, paramRef: `{"name":"absent","parameterNotFoundAction":"Deny"}`,
			want: outcome{Code: 201}},
		{name: "paramKind not served", failure: "Fail", paramKind: `{"apiVersion":"example.com/v1","kind":"Nothing"}`, paramRef: `{"name":"x","parameterNotFoundAction":"Allow"}`,
			want: forbidden(`policy "am-p" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newMutatingServer(t)
			s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"am-mut"}}`)
			p := mPolicy("am-p", tc.failure, "Never", `"paramKind":`+tc.paramKind+`,`, "["+applyConfig(`Object{spec: Object.spec{size: 'x'}}`)+"]")
			s.mustCreate(mPoliciesPath, strings.Replace(p, "== 'am-p'", "== 'nothing'", 1))
			policyName := "am-p"
			if tc.name == "binding to a missing policy" {
				policyName = "absent"
			}
			s.mustCreate(mBindingsPath, `{"metadata":{"name":"am-p-b"},"spec":{"policyName":"`+policyName+`","paramRef":`+tc.paramRef+`}}`)
			got := outcomeOf(s.do("POST", amWidgetsPath, amWidget("w")))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// TestMutatingUpdate checks policies mutate updates too: the reference
// put back color blue and the annotation on a replace that changed
// them, and kept generation 1 (the object's spec ended unchanged).
func TestMutatingUpdate(t *testing.T) {
	s := newMutatingServer(t)
	s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"am-mut"}}`)
	s.mustCreate(mPoliciesPath, mPolicy("am-jp", "Fail", "Never", "", "["+jsonPatch(`[JSONPatch{op: 'replace', path: '/spec/color', value: 'blue'}, JSONPatch{op: 'add', path: '/metadata/annotations', value: {'a/b': 'x'}}]`)+"]"))
	s.mustCreate(mBindingsPath, `{"metadata":{"name":"am-jp-b"},"spec":{"policyName":"am-jp"}}`)
	s.mustCreate(amWidgetsPath, amWidget("am-jp"))
	r := s.do("PUT", amWidgetsPath+"/am-jp", strings.Replace(amWidget("am-jp"), `"red"`, `"green"`, 1))
	var w struct {
		Metadata struct {
			Annotations map[string]string
			Generation  int64
		}
		Spec map[string]any
	}
	_ = json.Unmarshal([]byte(r.body), &w)
	if r.code != 200 || w.Spec["color"] != "blue" || w.Metadata.Annotations["a/b"] != "x" || w.Metadata.Generation != 1 {
		t.Errorf("update: %d %s", r.code, r.body)
	}
}
