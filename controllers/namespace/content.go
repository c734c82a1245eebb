package namespace

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// remaining is what a namespace still holds after its content was
// deleted.
type remaining struct {
	counts     map[string]int // resource.group → objects
	finalizers map[string]int // finalizer → objects holding it
}

func (r remaining) objects() int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

// deleteContent deletes the objects of every namespaced resource in
// namespace ns that can be deleted, one version of each (res holds
// those), and returns what remains. A resource whose objects could not
// all be deleted is reported as a content failure, and the others are
// deleted still.
func (c *Controller) deleteContent(ctx context.Context, ns string, res []apiclient.Resource, report *conditionReport) remaining {
	left := remaining{counts: map[string]int{}, finalizers: map[string]int{}}
	for _, r := range res {
		if !r.Namespaced || !r.Can("delete") {
			continue
		}
		n, finalizers, err := c.deleteResource(ctx, ns, r)
		if err != nil {
			report.contentFailed(err)
		}
		if n == 0 {
			continue
		}
		left.counts[r.Resource+"."+r.Group] += n
		for f, k := range finalizers {
			left.finalizers[f] += k
		}
	}
	return left
}

// deleteResource deletes the objects of resource r in namespace ns and
// returns how many remain and how many of those hold each finalizer. One
// that remains without a finalizer should have gone: that is an error,
// which kube's namespace controller words as here.
func (c *Controller) deleteResource(ctx context.Context, ns string, r apiclient.Resource) (int, map[string]int, error) {
	if err := c.deleteAll(ctx, ns, r); err != nil {
		return 0, nil, err
	}
	if !r.Can("list") {
		return 0, nil, nil
	}
	items, _, err := c.c.List(ctx, r.Path(ns), nil)
	switch {
	case unsupported(err):
		return 0, nil, nil
	case err != nil:
		return 0, nil, err
	case len(items) == 0:
		return 0, nil, nil
	}
	finalizers := map[string]int{}
	for _, it := range items {
		for _, f := range it.Metadata.Finalizers {
			finalizers[f]++
		}
	}
	if len(finalizers) > 0 {
		return len(items), finalizers, nil
	}
	return len(items), nil, fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %s/%s, Resource=%s", ns, r.Group, r.Version, r.Resource)
}

// deleteAll deletes every object of resource r in namespace ns, in the
// background, so that the garbage collector adds no orphan finalizer:
// with one deletecollection where the resource serves it, else one by
// one.
func (c *Controller) deleteAll(ctx context.Context, ns string, r apiclient.Resource) error {
	background := meta.DeletePropagationBackground
	opts := meta.DeleteOptions{PropagationPolicy: &background}
	if r.Can("deletecollection") {
		if err := c.c.Delete(ctx, r.Path(ns), opts); !unsupported(err) {
			return err
		}
	}
	if !r.Can("list") {
		return nil
	}
	items, _, err := c.c.List(ctx, r.Path(ns), nil)
	if err != nil {
		if unsupported(err) {
			return nil
		}
		return err
	}
	for _, it := range items {
		if it.Metadata.DeletionTimestamp != nil {
			continue // being deleted already
		}
		if err := c.c.Delete(ctx, r.ObjectPath(ns, it.Metadata.Name), opts); err != nil && !unsupported(err) {
			return err
		}
	}
	return nil
}

// unsupported reports whether err says a resource does not serve a verb
// after all (or is gone since discovery): not a failure to report.
func unsupported(err error) bool {
	return status.IsNotFound(err) || status.IsMethodNotAllowed(err)
}

// describe lists the counts of m, sorted, each as format words it.
func describe(m map[string]int, format string) string {
	parts := make([]string, 0, len(m))
	for k, n := range m {
		if n > 0 {
			parts = append(parts, fmt.Sprintf(format, k, n))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
