package crd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/status"
)

// Manifests reads the CustomResourceDefinitions in a YAML or JSON
// stream of one or more documents; documents of other kinds and empty
// ones are skipped.
func Manifests(data []byte) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for i, doc := range splitYAML(data) {
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if len(bytes.TrimSpace(j)) == 0 || string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		var tm struct{ APIVersion, Kind string }
		if err := json.Unmarshal(j, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if tm.Kind != "CustomResourceDefinition" || tm.APIVersion != apiextensionsv1.Group+"/"+apiextensionsv1.Version {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(j, crd); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// splitYAML splits a stream at its "---" document separators.
func splitYAML(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "---") && strings.TrimSpace(strings.TrimLeft(line, "-")) == "" {
			docs = append(docs, bytes.Clone(cur.Bytes()))
			cur.Reset()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	return append(docs, cur.Bytes())
}

// ReadDir reads the definitions of every .yaml, .yml and .json file in
// dir, in name order.
func ReadDir(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		crds, err := Manifests(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, crds...)
	}
	return out, nil
}

// Create creates each definition through the server's handler h, or
// updates it when it exists, then waits until every one is Established
// (its kind served by this server) or ctx is done.
func Create(ctx context.Context, h http.Handler, crds ...*apiextensionsv1.CustomResourceDefinition) error {
	c := apiclient.New(h)
	for _, crd := range crds {
		crd.APIVersion, crd.Kind = apiextensionsv1.Group+"/"+apiextensionsv1.Version, "CustomResourceDefinition"
		err := c.Create(ctx, definitions, crd)
		if status.IsAlreadyExists(err) {
			var cur apiextensionsv1.CustomResourceDefinition
			if err = c.Get(ctx, definitions+"/"+crd.Name, &cur); err == nil {
				next := *crd
				next.ResourceVersion = cur.ResourceVersion
				err = c.Update(ctx, definitions+"/"+crd.Name, &next)
			}
		}
		if err != nil {
			return fmt.Errorf("custom resource definition %s: %w", crd.Name, err)
		}
	}
	names := make([]string, len(crds))
	for i, crd := range crds {
		names[i] = crd.Name
	}
	return WaitEstablished(ctx, h, names...)
}

// WaitEstablished waits until each named definition is Established and
// its kind is served through h, or ctx is done.
func WaitEstablished(ctx context.Context, h http.Handler, names ...string) error {
	c := apiclient.New(h)
	for _, name := range names {
		for {
			var crd apiextensionsv1.CustomResourceDefinition
			err := c.Get(ctx, definitions+"/"+name, &crd)
			if err == nil && crd.IsEstablished() {
				path := "/apis/" + crd.Spec.Group + "/" + crd.StorageVersion() + "/" + crd.Spec.Names.Plural + "?limit=1"
				if _, err = c.Do(ctx, http.MethodGet, path, "", nil); err == nil {
					break
				}
			}
			select {
			case <-ctx.Done():
				if err == nil {
					err = fmt.Errorf("not established")
				}
				return fmt.Errorf("custom resource definition %s: %w (%v)", name, ctx.Err(), err)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nil
}
