package auth

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/status"
)

// allowOnly allows the impersonation checks it lists, as resource/name.
func allowOnly(allowed ...string) Authorizer {
	return AuthorizerFunc(func(_ context.Context, a Attributes) (Decision, string, error) {
		key := a.Resource + "/" + a.Name
		if a.Subresource != "" {
			key = a.Resource + "/" + a.Subresource + "/" + a.Name
		}
		if a.Namespace != "" {
			key = a.Namespace + ":" + key
		}
		for _, k := range allowed {
			if k == key && a.Verb == "impersonate" {
				return DecisionAllow, "", nil
			}
		}
		return DecisionNoOpinion, "", nil
	})
}

func TestImpersonate(t *testing.T) {
	admin := &User{Name: "admin", Groups: []string{AllAuthenticated}}
	tests := []struct {
		name    string
		headers map[string][]string
		authz   Authorizer
		want    *User
		code    int32
		msg     string
	}{
		{"no headers", nil, allowOnly(), admin, 0, ""},
		{"user", map[string][]string{"Impersonate-User": {"alice"}}, allowOnly("users/alice"),
			&User{Name: "alice", Groups: []string{AllAuthenticated}}, 0, ""},
		{"user and groups", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Group": {"qa", "dev"}}, allowOnly("users/alice", "groups/dev", "groups/qa"),
			&User{Name: "alice", Groups: []string{"dev", "qa", AllAuthenticated}}, 0, ""},
		{"uid and extra", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Uid": {"42"}, "Impersonate-Extra-Scopes": {"s1"}},
			allowOnly("users/alice", "uids/42", "userextras/scopes/s1"),
			&User{Name: "alice", UID: "42", Groups: []string{AllAuthenticated}, Extra: map[string][]string{"scopes": {"s1"}}}, 0, ""},
		{"service account", map[string][]string{"Impersonate-User": {"system:serviceaccount:ns1:robot"}}, allowOnly("ns1:serviceaccounts/robot"),
			&User{Name: "system:serviceaccount:ns1:robot", Groups: []string{AllAuthenticated}}, 0, ""},
		{"anonymous", map[string][]string{"Impersonate-User": {Anonymous}}, allowOnly("users/" + Anonymous),
			&User{Name: Anonymous, Groups: []string{AllUnauthenticated}}, 0, ""},
		{"user denied", map[string][]string{"Impersonate-User": {"alice"}}, allowOnly(), nil, 403,
			`users "alice" is forbidden: User "admin" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{"group denied", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Group": {"system:masters"}}, allowOnly("users/alice"), nil, 403,
			`groups "system:masters" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{"extra denied", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Extra-Scopes": {"s1"}}, allowOnly("users/alice"), nil, 403,
			`userextras.authentication.k8s.io "s1" is forbidden: User "admin" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`},
		{"group without user", map[string][]string{"Impersonate-Group": {"dev"}}, allowOnly(), nil, 400,
			"requested impersonation of groups, uid or extra without impersonating a user"},
		{"extra without key", map[string][]string{"Impersonate-User": {"a"}, "Impersonate-Extra-": {"v"}}, allowOnly("users/a"), nil, 400,
			"an Impersonate-Extra- header needs a key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header(tc.headers)
			if h == nil {
				h = http.Header{}
			}
			u, err := Impersonate(context.Background(), h, admin, tc.authz)
			if tc.code != 0 {
				if status.CodeOf(err) != tc.code || err.Error() != tc.msg {
					t.Fatalf("error %v (%d), want %d %s", err, status.CodeOf(err), tc.code, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %+v %v, want %+v", u, err, tc.want)
			}
			if diff := cmp.Diff(tc.want, u); diff != "" {
				t.Fatalf("user (-want +got):\n%s", diff)
			}
			if len(tc.headers) > 0 && len(h) != 0 {
				t.Errorf("headers left: %v", h)
			}
		})
	}
}

func TestAuthorizers(t *testing.T) {
	deny := AuthorizerFunc(func(context.Context, Attributes) (Decision, string, error) { return DecisionDeny, "no", nil })
	none := AuthorizerFunc(func(context.Context, Attributes) (Decision, string, error) { return DecisionNoOpinion, "shrug", nil })
	masters := PrivilegedGroups{SystemPrivilegedGroup}
	alice, root := &User{Name: "alice"}, &User{Name: "root", Groups: []string{SystemPrivilegedGroup}}
	tests := []struct {
		name   string
		chain  Authorizers
		user   *User
		want   Decision
		reason string
	}{
		{"privileged group", Authorizers{masters, deny}, root, DecisionAllow, ""},
		{"not in the group, next decides", Authorizers{masters, deny}, alice, DecisionDeny, "no"},
		{"no opinion collects reasons", Authorizers{none, none}, alice, DecisionNoOpinion, "shrug\nshrug"},
		{"allow all", Authorizers{AlwaysAllow{}}, alice, DecisionAllow, ""},
		{"empty chain", Authorizers{}, alice, DecisionNoOpinion, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, reason, err := tc.chain.Authorize(context.Background(), Attributes{User: tc.user, Verb: "get"})
			if err != nil || d != tc.want || reason != tc.reason {
				t.Errorf("got %v %q %v, want %v %q", d, reason, err, tc.want, tc.reason)
			}
		})
	}
}
