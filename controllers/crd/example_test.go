package crd_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/crd"
)

// Serve CustomResourceDefinitions, and the kinds they define, on a
// server: create one and its kind is served.
func Example() {
	srv := apiserver.New(apiserver.Options{})
	defer srv.Close()
	ctrl := crd.Serve(srv, crd.Options{})
	if err := srv.Err(); err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { _ = ctrl.Run(ctx) }()

	crds, err := crd.Manifests([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {cronSpec: {type: string}}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := crd.Create(ctx, srv, crds...); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range srv.Served() {
		if r.Installed {
			fmt.Println(r.Group, r.Version, r.Resource, r.Kind)
		}
	}
	// Output: stable.example.com v1 crontabs CronTab
}
