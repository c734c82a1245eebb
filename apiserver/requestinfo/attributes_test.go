package requestinfo

import (
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/auth"
)

func TestRequestAttributes(t *testing.T) {
	const g = "stable.example.com"
	tests := []struct {
		method, url string
		want        auth.Attributes
	}{
		{"GET", "/apis/stable.example.com/v1/namespaces/ns1/widgets/w1", auth.Attributes{ResourceRequest: true, Verb: "get", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1", Name: "w1"}},
		{"HEAD", "/apis/stable.example.com/v1/namespaces/ns1/widgets/w1", auth.Attributes{ResourceRequest: true, Verb: "get", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1", Name: "w1"}},
		{"GET", "/apis/stable.example.com/v1/namespaces/ns1/widgets", auth.Attributes{ResourceRequest: true, Verb: "list", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1"}},
		{"GET", "/apis/stable.example.com/v1/widgets", auth.Attributes{ResourceRequest: true, Verb: "list", APIGroup: g, APIVersion: "v1", Resource: "widgets"}},
		{"GET", "/apis/stable.example.com/v1/widgets?watch=true", auth.Attributes{ResourceRequest: true, Verb: "watch", APIGroup: g, APIVersion: "v1", Resource: "widgets"}},
		{"GET", "/apis/stable.example.com/v1/watch/namespaces/ns1/widgets", auth.Attributes{ResourceRequest: true, Verb: "watch", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1"}},
		{"GET", "/apis/stable.example.com/v1/namespaces/ns1/widgets?fieldSelector=metadata.name%3Dw1", auth.Attributes{ResourceRequest: true, Verb: "list", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1", Name: "w1"}},
		{"POST", "/apis/stable.example.com/v1/namespaces/ns1/widgets", auth.Attributes{ResourceRequest: true, Verb: "create", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1"}},
		{"PUT", "/apis/stable.example.com/v1/namespaces/ns1/widgets/w1/status", auth.Attributes{ResourceRequest: true, Verb: "update", APIGroup: g, APIVersion: "v1", Resource: "widgets", Subresource: "status", Namespace: "ns1", Name: "w1"}},
		{"PATCH", "/apis/stable.example.com/v1/namespaces/ns1/widgets/w1/scale", auth.Attributes{ResourceRequest: true, Verb: "patch", APIGroup: g, APIVersion: "v1", Resource: "widgets", Subresource: "scale", Namespace: "ns1", Name: "w1"}},
		{"DELETE", "/apis/stable.example.com/v1/namespaces/ns1/widgets", auth.Attributes{ResourceRequest: true, Verb: "deletecollection", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1"}},
		{"DELETE", "/apis/stable.example.com/v1/gadgets/g1", auth.Attributes{ResourceRequest: true, Verb: "delete", APIGroup: g, APIVersion: "v1", Resource: "gadgets", Name: "g1"}},
		{"GET", "/api/v1/namespaces/ns1/configmaps/c", auth.Attributes{ResourceRequest: true, Verb: "get", APIVersion: "v1", Resource: "configmaps", Namespace: "ns1", Name: "c"}},
		{"GET", "/api/v1/namespaces/ns1", auth.Attributes{ResourceRequest: true, Verb: "get", APIVersion: "v1", Resource: "namespaces", Namespace: "ns1", Name: "ns1"}},
		{"PUT", "/api/v1/namespaces/ns1/finalize", auth.Attributes{ResourceRequest: true, Verb: "update", APIVersion: "v1", Resource: "namespaces", Subresource: "finalize", Namespace: "ns1", Name: "ns1"}},
		// An encoded slash stays inside its segment, as the router sees it.
		{"GET", "/apis/stable.example.com/v1/namespaces/ns1/widgets/w1%2Fstatus", auth.Attributes{ResourceRequest: true, Verb: "get", APIGroup: g, APIVersion: "v1", Resource: "widgets", Namespace: "ns1", Name: "w1/status"}},
		{"GET", "/apis/stable.example.com/v1/namespaces/ns1%2Fwidgets/w1", auth.Attributes{ResourceRequest: true, Verb: "list", APIGroup: g, APIVersion: "v1", Resource: "w1", Namespace: "ns1/widgets"}},
		{"GET", "/api/v1", auth.Attributes{Verb: "get", Path: "/api/v1"}},
		{"GET", "/apis/stable.example.com/v1", auth.Attributes{Verb: "get", Path: "/apis/stable.example.com/v1"}},
		{"GET", "/apis", auth.Attributes{Verb: "get", Path: "/apis"}},
		{"POST", "/healthz", auth.Attributes{Verb: "post", Path: "/healthz"}},
		{"GET", "/openapi/v3/apis/stable.example.com/v1", auth.Attributes{Verb: "get", Path: "/openapi/v3/apis/stable.example.com/v1"}},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			got := AttributesOf(httptest.NewRequest(tc.method, tc.url, nil), nil)
			if got.ResourceRequest {
				got.Path = ""
			}
			if got != tc.want {
				t.Errorf("\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
