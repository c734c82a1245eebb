package envtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// CRDInstallOptions are the options for installing CRDs.
type CRDInstallOptions struct {
	// Scheme is accepted for compatibility; conversion webhooks are not
	// pointed at the local webhook server from it.
	Scheme *runtime.Scheme
	// Paths are directories or files of CRD manifests (.yaml, .yml or
	// .json; several documents per file).
	Paths []string
	// CRDs are CRDs to install.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// ErrorIfPathMissing makes a missing path an error.
	ErrorIfPathMissing bool
	// MaxTime and PollInterval bound the wait for installed CRDs to be
	// Established and served; defaults 10s and 10ms.
	MaxTime, PollInterval time.Duration
	// CleanUpAfterUse deletes the CRDs, and so their objects, when the
	// environment stops (of use with UseExistingCluster: everything an
	// environment of its own stores goes with it anyway).
	CleanUpAfterUse bool
	// WebhookOptions is accepted for compatibility (see
	// WebhookInstallOptions).
	WebhookOptions WebhookInstallOptions
}

// ReadCRDFiles reads the CRD manifests under options.Paths and appends
// them to options.CRDs.
func ReadCRDFiles(options *CRDInstallOptions) error {
	for _, p := range options.Paths {
		crds, err := readCRDPath(p, options.ErrorIfPathMissing)
		if err != nil {
			return err
		}
		options.CRDs = append(options.CRDs, crds...)
	}
	return nil
}

// readCRDPath reads the CRDs of one file, or of the manifests directly in
// one directory, in name order.
func readCRDPath(path string, errorIfMissing bool) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := manifestFiles(path)
	if errors.Is(err, fs.ErrNotExist) && !errorIfMissing {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("envtest: CRD path: %w", err)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		err := eachDocument(f, func(doc []byte, apiVersion, kind string) error {
			if kind != "CustomResourceDefinition" || apiVersion != apiextensionsv1.SchemeGroupVersion.String() {
				return nil // other kinds are skipped, as envtest does
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(doc, crd); err != nil {
				return err
			}
			out = append(out, crd)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("envtest: %s: %w", f, err)
		}
	}
	return out, nil
}

// manifestFiles is path itself, or for a directory the .yaml, .yml and
// .json files directly in it, in name order.
func manifestFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	return files, nil
}

// eachDocument hands fn every document of a manifest file (YAML
// documents, or one JSON object) with its apiVersion and kind.
func eachDocument(path string, fn func(doc []byte, apiVersion, kind string) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var tm struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return err
		}
		if err := fn(doc, tm.APIVersion, tm.Kind); err != nil {
			return err
		}
	}
}

// mergePaths returns a's paths and then those of b not in a.
func mergePaths(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, p := range b {
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// mergeCRDs returns a's CRDs and then those of b whose names a lacks.
func mergeCRDs(a, b []*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	out := append([]*apiextensionsv1.CustomResourceDefinition(nil), a...)
	names := make([]string, 0, len(a))
	for _, c := range a {
		names = append(names, c.Name)
	}
	for _, c := range b {
		if !contains(names, c.Name) {
			out = append(out, c)
			names = append(names, c.Name)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
