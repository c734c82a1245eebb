package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Swagger merges OpenAPI v3 documents built by [Document] into the one
// Swagger 2.0 document kube-apiserver serves at /openapi/v2, as JSON:
// every path of every group-version, and the v3 component schemas as
// definitions under the same names (com.example.stable.v1.Widget,
// io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta).
//
// Schemas are written as kube-apiserver writes those of custom resources
// in v2, which has no place for some of v3: defaults, nullable, anyOf,
// oneOf and not are left out, and a reference wrapped in allOf to carry a
// description is written as the reference with the description beside
// it. Request bodies become body parameters, media types consumes and
// produces. Parameters are written inline in each path, where
// kube-apiserver shares them under #/parameters: a client reads the same
// thing from both.
func Swagger(docs map[string][]byte) ([]byte, error) {
	paths := map[string]any{}
	definitions := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(docs)) {
		var d struct {
			Paths      map[string]map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(docs[key], &d); err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", key, err)
		}
		for name, s := range d.Components.Schemas {
			definitions[name] = swaggerSchema(s)
		}
		for p, item := range d.Paths {
			paths[p] = swaggerPathItem(item)
		}
	}
	doc := map[string]any{
		"swagger":     "2.0",
		"info":        map[string]any{"title": "Kubernetes", "version": "v0.0.0"},
		"paths":       paths,
		"definitions": definitions,
		"securityDefinitions": map[string]any{"BearerToken": map[string]any{
			"description": "Bearer Token authentication", "type": "apiKey", "name": "authorization", "in": "header",
		}},
		"security": []any{map[string]any{"BearerToken": []any{}}},
	}
	return json.Marshal(doc)
}

// SwaggerETag is the entity tag kube-apiserver gives its /openapi/v2
// document: the upper-case hex SHA-512 of its JSON, quoted.
func SwaggerETag(doc []byte) string {
	sum := sha512.Sum512(doc)
	return `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`
}

// swaggerPathItem converts a v3 path item: its operations and the
// parameters they share.
func swaggerPathItem(item map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range item {
		switch k {
		case "parameters":
			out[k] = swaggerParameters(v)
		case "get", "put", "post", "delete", "patch", "head", "options":
			if op, ok := v.(map[string]any); ok {
				out[k] = swaggerOperation(op)
			}
		}
	}
	return out
}

// swaggerOperation converts a v3 operation: its request body becomes a
// body parameter and the body's media types consumes, its responses'
// media types produces.
func swaggerOperation(op map[string]any) map[string]any {
	out := map[string]any{}
	params := swaggerParameters(op["parameters"])
	for k, v := range op {
		switch {
		case k == "tags" || k == "description" || k == "operationId" || strings.HasPrefix(k, "x-"):
			out[k] = v
		}
	}
	if rb, ok := op["requestBody"].(map[string]any); ok {
		content, _ := rb["content"].(map[string]any)
		out["consumes"] = slices.Sorted(maps.Keys(content))
		for _, mt := range content {
			if s, ok := mt.(map[string]any)["schema"]; ok {
				params = append([]any{map[string]any{"name": "body", "in": "body", "required": true, "schema": swaggerSchema(s)}}, params...)
			}
			break
		}
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	produces := map[string]bool{}
	responses := map[string]any{}
	rs, _ := op["responses"].(map[string]any)
	for code, r := range rs {
		rm, _ := r.(map[string]any)
		resp := map[string]any{"description": rm["description"]}
		content, _ := rm["content"].(map[string]any)
		for _, t := range slices.Sorted(maps.Keys(content)) {
			produces[t] = true
			if s, ok := content[t].(map[string]any)["schema"]; ok && resp["schema"] == nil {
				resp["schema"] = swaggerSchema(s)
			}
		}
		responses[code] = resp
	}
	out["responses"] = responses
	if len(produces) > 0 {
		out["produces"] = slices.Sorted(maps.Keys(produces))
	}
	if _, ok := out["consumes"]; !ok && len(produces) > 0 {
		// kube-apiserver lists the kind's media types for operations
		// without a body too.
		out["consumes"] = out["produces"]
	}
	out["schemes"] = []string{"https"}
	return out
}

// swaggerParameters converts v3 parameters, whose type is in a schema,
// to v2's, where it is beside the name.
func swaggerParameters(v any) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, p := range list {
		pm, _ := p.(map[string]any)
		np := map[string]any{}
		for k, v := range pm {
			if k == "schema" {
				if sm, ok := v.(map[string]any); ok {
					for sk, sv := range sm {
						np[sk] = sv
					}
				}
				continue
			}
			np[k] = v
		}
		out = append(out, np)
	}
	return out
}

// swaggerSchema converts a v3 schema to v2's form.
func swaggerSchema(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			switch k {
			case "default", "nullable", "anyOf", "oneOf", "not":
				continue
			case "$ref":
				out[k] = strings.Replace(v.(string), "#/components/schemas/", "#/definitions/", 1)
			case "properties", "patternProperties", "definitions":
				props := map[string]any{}
				for name, s := range v.(map[string]any) {
					props[name] = swaggerSchema(s)
				}
				out[k] = props
			case "x-kubernetes-group-version-kind", "enum", "required", "example":
				out[k] = v
			default:
				out[k] = swaggerSchema(v)
			}
		}
		// {allOf: [{$ref}], description} is v3's way of describing a
		// reference; v2 writes the reference with the description.
		if all, ok := out["allOf"].([]any); ok && len(all) == 1 {
			if ref, ok := all[0].(map[string]any)["$ref"]; ok && len(all[0].(map[string]any)) == 1 {
				delete(out, "allOf")
				out["$ref"] = ref
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = swaggerSchema(e)
		}
		return out
	}
	return v
}
