package admissionregistrationv1_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscovery compares the group version's discovery with
// kube-apiserver's: the six resources, cluster-scoped, their singular
// names, category api-extensions, the status subresource of
// validatingadmissionpolicies and the storage version hashes.
func TestDiscovery(t *testing.T) {
	ts := newServer(t)
	resp, err := http.Get(ts.URL + "/apis/admissionregistration.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Resources []struct {
			Name       string   `json:"name"`
			Singular   string   `json:"singularName"`
			Namespaced bool     `json:"namespaced"`
			Kind       string   `json:"kind"`
			Verbs      []string `json:"verbs"`
			Categories []string `json:"categories"`
			Hash       string   `json:"storageVersionHash"`
		} `json:"resources"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list.Resources {
		got = append(got, strings.Join([]string{r.Name, r.Singular, r.Kind, strings.Join(r.Categories, ","), r.Hash, strings.Join(sorted(r.Verbs), ",")}, " "))
		if r.Namespaced {
			t.Errorf("%s is namespaced", r.Name)
		}
	}
	all := "create,delete,deletecollection,get,list,patch,update,watch"
	want := []string{
		"mutatingadmissionpolicies mutatingadmissionpolicy MutatingAdmissionPolicy api-extensions mHCkTKpUTrE= " + all,
		"mutatingadmissionpolicybindings mutatingadmissionpolicybinding MutatingAdmissionPolicyBinding api-extensions ZKgZT1uTmZ0= " + all,
		"mutatingwebhookconfigurations mutatingwebhookconfiguration MutatingWebhookConfiguration api-extensions Sqi0GUgDaX0= " + all,
		"validatingadmissionpolicies validatingadmissionpolicy ValidatingAdmissionPolicy api-extensions 6OxvlMmQ6is= " + all,
		"validatingadmissionpolicies/status  ValidatingAdmissionPolicy   get,patch,update",
		"validatingadmissionpolicybindings validatingadmissionpolicybinding ValidatingAdmissionPolicyBinding api-extensions v9715VZqakg= " + all,
		"validatingwebhookconfigurations validatingwebhookconfiguration ValidatingWebhookConfiguration api-extensions B0wHjQmsGNk= " + all,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("discovery (-kube +kapi):\n%s", diff)
	}
}

func sorted(s []string) []string {
	return slices.Sorted(slices.Values(s))
}

// TestTables creates one object of each kind and compares the Table
// kubectl gets with kube-apiserver's for the same objects: the columns
// (names, types) and the cells but Age.
func TestTables(t *testing.T) {
	ts := newServer(t)
	rule := `{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}`
	cases := []struct {
		resource, body string
		columns        []string
		cells          []any
	}{
		{"mutatingwebhookconfigurations", `{"metadata":{"name":"m"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://x.y"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			[]string{"Name string", "Webhooks integer", "Age string"}, []any{"m", 1.0}},
		{"validatingwebhookconfigurations", `{"metadata":{"name":"v"}}`,
			[]string{"Name string", "Webhooks integer", "Age string"}, []any{"v", 0.0}},
		{"validatingadmissionpolicies", `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"matchConstraints":{"resourceRules":[` + rule + `]},"validations":[{"expression":"true"},{"expression":"true"}]}}`,
			[]string{"Name string", "Validations integer", "ParamKind string", "Age string"}, []any{"p", 2.0, "v1/ConfigMap"}},
		{"mutatingadmissionpolicies", `{"metadata":{"name":"mp"},"spec":{"reinvocationPolicy":"Never","matchConstraints":{"resourceRules":[` + rule + `]},"mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{}"}}]}}`,
			[]string{"Name string", "Mutations integer", "ParamKind string", "Age string"}, []any{"mp", 1.0, "<unset>"}},
		{"validatingadmissionpolicybindings", `{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Deny"],"paramRef":{"name":"cm","parameterNotFoundAction":"Allow"}}}`,
			[]string{"Name string", "PolicyName string", "ParamRef string", "Age string"}, []any{"b", "p", "*/cm"}},
		{"mutatingadmissionpolicybindings", `{"metadata":{"name":"mb"},"spec":{"policyName":"x"}}`,
			[]string{"Name string", "PolicyName string", "ParamRef string", "Age string"}, []any{"mb", "x", "<unset>"}},
	}
	for _, c := range cases {
		t.Run(c.resource, func(t *testing.T) {
			url := ts.URL + "/apis/admissionregistration.k8s.io/v1/" + c.resource
			resp, err := http.Post(url, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("create: %s", resp.Status)
			}
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var table struct {
				Columns []struct{ Name, Type string } `json:"columnDefinitions"`
				Rows    []struct{ Cells []any }       `json:"rows"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, col := range table.Columns {
				cols = append(cols, col.Name+" "+col.Type)
			}
			if diff := cmp.Diff(c.columns, cols); diff != "" {
				t.Errorf("columns (-kube +kapi):\n%s", diff)
			}
			if len(table.Rows) != 1 {
				t.Fatalf("%d rows", len(table.Rows))
			}
			cells := table.Rows[0].Cells
			if diff := cmp.Diff(c.cells, cells[:len(cells)-1]); diff != "" {
				t.Errorf("cells (-kube +kapi):\n%s", diff)
			}
		})
	}
}
