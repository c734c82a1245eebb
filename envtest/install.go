package envtest

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

const (
	defaultPollInterval = 10 * time.Millisecond
	defaultMaxWait      = 10 * time.Second
)

var definitions = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

func defaultCRDOptions(o *CRDInstallOptions) {
	if o.MaxTime <= 0 {
		o.MaxTime = defaultMaxWait
	}
	if o.PollInterval <= 0 {
		o.PollInterval = defaultPollInterval
	}
}

// InstallCRDs reads the CRDs of options.Paths, creates them and those of
// options.CRDs through the API at config, and waits until they are
// Established and served.
func InstallCRDs(config *rest.Config, options CRDInstallOptions) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	defaultCRDOptions(&options)
	if err := ReadCRDFiles(&options); err != nil {
		return nil, err
	}
	if err := CreateCRDs(config, options.CRDs); err != nil {
		return options.CRDs, err
	}
	if err := WaitForCRDs(config, options.CRDs, options); err != nil {
		return options.CRDs, err
	}
	return options.CRDs, nil
}

// CreateCRDs creates each CRD, or updates it when it exists.
func CreateCRDs(config *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	dc, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, crd := range crds {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		if err != nil {
			return fmt.Errorf("envtest: CRD %s: %w", crd.Name, err)
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetAPIVersion(apiextensionsv1.SchemeGroupVersion.String())
		u.SetKind("CustomResourceDefinition")
		u.SetResourceVersion("")
		_, err = dc.Resource(definitions).Create(ctx, u, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var cur *unstructured.Unstructured
			if cur, err = dc.Resource(definitions).Get(ctx, crd.Name, metav1.GetOptions{}); err == nil {
				u.SetResourceVersion(cur.GetResourceVersion())
				_, err = dc.Resource(definitions).Update(ctx, u, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("envtest: creating CRD %s: %w", crd.Name, err)
		}
	}
	return nil
}

// WaitForCRDs waits until every CRD is Established and each of its
// served versions lists the resource in discovery.
func WaitForCRDs(config *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition, options CRDInstallOptions) error {
	defaultCRDOptions(&options)
	dc, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), options.MaxTime)
	defer cancel()
	for _, crd := range crds {
		for {
			last := crdReady(ctx, dc, disc, crd)
			if last == nil {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("envtest: CRD %s not served within %v: %w", crd.Name, options.MaxTime, last)
			case <-time.After(options.PollInterval):
			}
		}
	}
	return nil
}

// crdReady returns nil once crd is Established and served in every
// served version, or what is still missing.
func crdReady(ctx context.Context, dc dynamic.Interface, disc discovery.DiscoveryInterface, crd *apiextensionsv1.CustomResourceDefinition) error {
	u, err := dc.Resource(definitions).Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	var cur apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cur); err != nil {
		return err
	}
	established := false
	for _, c := range cur.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			established = true
		}
	}
	if !established {
		return fmt.Errorf("not Established (conditions %v)", cur.Status.Conditions)
	}
	for _, v := range cur.Spec.Versions {
		if !v.Served {
			continue
		}
		gv := schema.GroupVersion{Group: cur.Spec.Group, Version: v.Name}.String()
		list, err := disc.ServerResourcesForGroupVersion(gv)
		if err != nil {
			return err
		}
		found := false
		for _, r := range list.APIResources {
			found = found || r.Name == cur.Spec.Names.Plural
		}
		if !found {
			return fmt.Errorf("%s not in the discovery of %s", cur.Spec.Names.Plural, gv)
		}
	}
	return nil
}

// UninstallCRDs deletes the CRDs of options (read from its Paths too)
// and waits until they are gone, with their objects.
func UninstallCRDs(config *rest.Config, options CRDInstallOptions) error {
	defaultCRDOptions(&options)
	if err := ReadCRDFiles(&options); err != nil {
		return err
	}
	dc, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), options.MaxTime)
	defer cancel()
	for _, crd := range options.CRDs {
		if err := dc.Resource(definitions).Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("envtest: deleting CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range options.CRDs {
		for {
			_, err := dc.Resource(definitions).Get(ctx, crd.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("envtest: CRD %s not gone within %v (last: %v)", crd.Name, options.MaxTime, err)
			case <-time.After(options.PollInterval):
			}
		}
	}
	return nil
}
