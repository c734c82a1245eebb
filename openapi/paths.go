package openapi

import (
	"slices"
	"strings"
	"unicode"
)

// The encoded shape of paths and operations.
type pathItem struct {
	Get        *operation  `json:"get,omitempty"`
	Put        *operation  `json:"put,omitempty"`
	Post       *operation  `json:"post,omitempty"`
	Delete     *operation  `json:"delete,omitempty"`
	Patch      *operation  `json:"patch,omitempty"`
	Parameters []parameter `json:"parameters,omitempty"`
}

type operation struct {
	Tags        []string            `json:"tags"`
	Description string              `json:"description"`
	OperationID string              `json:"operationId"`
	Parameters  []parameter         `json:"parameters,omitempty"`
	RequestBody *requestBody        `json:"requestBody,omitempty"`
	Responses   map[string]response `json:"responses"`
	Action      string              `json:"x-kubernetes-action"`
	GVK         gvk                 `json:"x-kubernetes-group-version-kind"`
}

// gvk is an operation's x-kubernetes-group-version-kind: one object.
type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type parameter struct {
	Name        string      `json:"name"`
	In          string      `json:"in"`
	Description string      `json:"description,omitempty"`
	Required    bool        `json:"required,omitempty"`
	Schema      paramSchema `json:"schema"`
}

type paramSchema struct {
	Type        string `json:"type"`
	UniqueItems bool   `json:"uniqueItems"`
}

type requestBody struct {
	Content  map[string]mediaType `json:"content"`
	Required bool                 `json:"required,omitempty"`
}

type mediaType struct {
	Schema map[string]any `json:"schema"`
}

type response struct {
	Description string               `json:"description"`
	Content     map[string]mediaType `json:"content,omitempty"`
}

// pathBuilder adds the paths of kinds in one group-version.
type pathBuilder struct {
	prefix string // "/apis/<group>/<version>" or "/api/<version>"
	opGV   string // group and version in operation ids, as StableExampleComV1
	tag    string // the operations' tag, as stableExampleCom_v1
}

func newPathBuilder(group, version string) *pathBuilder {
	prefix, g := "/api/"+version, "core"
	if group != "" {
		prefix, g = "/apis/"+group+"/"+version, strings.TrimSuffix(group, ".k8s.io")
	}
	return &pathBuilder{
		prefix: prefix,
		opGV:   camel(g, true) + camel(version, true),
		tag:    camel(g, false) + "_" + camel(version, false),
	}
}

// camel turns s into an identifier as kube-apiserver's operation ids do:
// letters, digits (not first) and underscores are kept, anything else is
// dropped and upper-cases the letter after it.
func camel(s string, upperFirst bool) string {
	var b strings.Builder
	upper := upperFirst
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// kindPaths builds the operations of one kind.
type kindPaths struct {
	*pathBuilder
	k       Kind
	ns      string // "Namespaced" for namespaced kinds
	kindRef string // component name of the kind
}

// addKind adds every path and operation kind k serves to paths.
func (p *pathBuilder) addKind(paths map[string]*pathItem, k Kind) {
	kp := &kindPaths{pathBuilder: p, k: k, kindRef: componentName(k.Group, k.Version, k.Kind)}
	collection := p.prefix + "/" + k.Resource
	if k.Namespaced {
		kp.ns = "Namespaced"
		collection = p.prefix + "/namespaces/{namespace}/" + k.Resource
	}
	item := collection + "/{name}"
	if kp.has("list") || kp.has("watch") {
		if k.Namespaced {
			add(paths, p.prefix+"/"+k.Resource, "get", kp.list(true))
		}
		add(paths, collection, "get", kp.list(false))
	}
	if kp.has("create") {
		add(paths, collection, "post", kp.create())
	}
	if kp.has("deletecollection") {
		add(paths, collection, "delete", kp.deleteCollection())
	}
	kp.addItem(paths, item, "")
	for _, sub := range k.Subresources {
		kp.addItem(paths, item+"/"+sub, sub)
	}
}

// addItem adds the operations on one object, or on its subresource sub.
func (kp *kindPaths) addItem(paths map[string]*pathItem, path, sub string) {
	if sub == "finalize" {
		// kube-apiserver serves a namespace's finalize with PUT alone.
		if kp.has("update") {
			add(paths, path, "put", kp.replace(sub))
		}
		return
	}
	if kp.has("get") {
		add(paths, path, "get", kp.read(sub))
	}
	if kp.has("update") {
		add(paths, path, "put", kp.replace(sub))
	}
	if kp.has("patch") {
		add(paths, path, "patch", kp.patch(sub))
	}
	if kp.has("delete") && sub == "" {
		add(paths, path, "delete", kp.delete())
	}
}

func add(paths map[string]*pathItem, path, method string, op *operation) {
	item := paths[path]
	if item == nil {
		item = &pathItem{}
		paths[path] = item
	}
	switch method {
	case "get":
		item.Get = op
	case "put":
		item.Put = op
	case "post":
		item.Post = op
	case "delete":
		item.Delete = op
	case "patch":
		item.Patch = op
	}
}

func (kp *kindPaths) has(verb string) bool { return slices.Contains(kp.k.Verbs, verb) }

// op starts an operation: its id is idVerb, the group-version, then rest.
func (kp *kindPaths) op(action, idVerb, rest, desc string, allNamespaces bool, name bool) *operation {
	o := &operation{
		Tags:        []string{kp.tag},
		Description: desc,
		OperationID: idVerb + kp.opGV + rest,
		Action:      action,
		GVK:         gvk{Group: kp.k.Group, Version: kp.k.Version, Kind: kp.k.Kind},
		Responses:   map[string]response{"401": {Description: "Unauthorized"}},
	}
	if kp.k.Namespaced && !allNamespaces {
		o.Parameters = append(o.Parameters, pathParam("namespace", "The namespace of the object."))
	}
	if name {
		o.Parameters = append(o.Parameters, pathParam("name", "name of the "+kp.k.Kind))
	}
	o.Parameters = append(o.Parameters, queryParam("pretty"))
	return o
}

func (kp *kindPaths) list(allNamespaces bool) *operation {
	rest := kp.ns + kp.k.Kind
	if allNamespaces {
		rest = kp.k.Kind + "ForAllNamespaces"
	}
	o := kp.op("list", "list", rest, "list objects of kind "+kp.k.Kind, allNamespaces, false)
	names := []string{"continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "timeoutSeconds"}
	if kp.has("watch") {
		names = append(names, "allowWatchBookmarks", "sendInitialEvents", "watch")
	}
	o.Parameters = append(o.Parameters, queryParams(names...)...)
	listRef := componentName(kp.k.Group, kp.k.Version, kp.k.ListKind)
	kp.respond(o, listRef, kp.listMediaTypes(), "200")
	return o
}

func (kp *kindPaths) create() *operation {
	o := kp.op("post", "create", kp.ns+kp.k.Kind, "create "+article(kp.k.Kind)+kp.k.Kind, false, false)
	o.Parameters = append(o.Parameters, queryParams("dryRun", "fieldManager", "fieldValidation")...)
	o.RequestBody = kp.body(kp.kindRef, kp.mediaTypes(), true)
	kp.respond(o, kp.kindRef, kp.mediaTypes(), "200", "201", "202")
	return o
}

func (kp *kindPaths) deleteCollection() *operation {
	o := kp.op("deletecollection", "delete", "Collection"+kp.ns+kp.k.Kind, "delete collection of "+kp.k.Kind, false, false)
	o.Parameters = append(o.Parameters, queryParams("continue", "dryRun", "fieldSelector", "gracePeriodSeconds",
		"labelSelector", "limit", "orphanDependents", "propagationPolicy", "resourceVersion",
		"resourceVersionMatch", "sendInitialEvents", "timeoutSeconds")...)
	o.RequestBody = kp.body(deleteOptsRef, kp.mediaTypes(), false)
	kp.respond(o, statusRef, kp.mediaTypes(), "200")
	return o
}

func (kp *kindPaths) read(sub string) *operation {
	o := kp.op("get", "read", kp.ns+kp.k.Kind+title(sub), "read"+subOf(sub)+" the specified "+kp.k.Kind, false, true)
	kp.respond(o, kp.subRef(sub), kp.mediaTypes(), "200")
	return o
}

func (kp *kindPaths) replace(sub string) *operation {
	o := kp.op("put", "replace", kp.ns+kp.k.Kind+title(sub), "replace"+subOf(sub)+" the specified "+kp.k.Kind, false, true)
	o.Parameters = append(o.Parameters, queryParams("dryRun", "fieldManager", "fieldValidation")...)
	o.RequestBody = kp.body(kp.subRef(sub), kp.mediaTypes(), true)
	kp.respond(o, kp.subRef(sub), kp.mediaTypes(), "200", "201")
	return o
}

func (kp *kindPaths) patch(sub string) *operation {
	o := kp.op("patch", "patch", kp.ns+kp.k.Kind+title(sub), "partially update"+subOf(sub)+" the specified "+kp.k.Kind, false, true)
	o.Parameters = append(o.Parameters, queryParams("dryRun", "fieldManager", "fieldValidation", "force")...)
	types := []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml", "application/apply-patch+cbor"}
	if kp.k.StrategicMergePatch {
		types = append(types, "application/strategic-merge-patch+json")
	}
	o.RequestBody = kp.body(patchRef, types, true)
	kp.respond(o, kp.subRef(sub), kp.mediaTypes(), "200", "201")
	return o
}

func (kp *kindPaths) delete() *operation {
	o := kp.op("delete", "delete", kp.ns+kp.k.Kind, "delete "+article(kp.k.Kind)+kp.k.Kind, false, true)
	o.Parameters = append(o.Parameters, queryParams("dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy")...)
	o.RequestBody = kp.body(deleteOptsRef, kp.mediaTypes(), false)
	kp.respond(o, statusRef, kp.mediaTypes(), "200", "202")
	return o
}

// subRef is the component a subresource reads and writes.
func (kp *kindPaths) subRef(sub string) string {
	if sub == "scale" {
		return scaleRef
	}
	return kp.kindRef
}

func (kp *kindPaths) mediaTypes() []string {
	if kp.k.Protobuf {
		return []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	}
	return []string{"application/json", "application/yaml"}
}

// listMediaTypes adds the watch stream types to mediaTypes when the kind
// can be watched.
func (kp *kindPaths) listMediaTypes() []string {
	types := kp.mediaTypes()
	if kp.has("watch") {
		types = append(types, "application/json;stream=watch")
		if kp.k.Protobuf {
			types = append(types, "application/vnd.kubernetes.protobuf;stream=watch")
		}
	}
	return types
}

func (kp *kindPaths) body(refName string, types []string, required bool) *requestBody {
	return &requestBody{Content: content(refName, types), Required: required}
}

func statusText(code string) string {
	switch code {
	case "201":
		return "Created"
	case "202":
		return "Accepted"
	}
	return "OK"
}

func (kp *kindPaths) respond(o *operation, refName string, types []string, codes ...string) {
	for _, code := range codes {
		o.Responses[code] = response{Description: statusText(code), Content: content(refName, types)}
	}
}

func content(refName string, types []string) map[string]mediaType {
	m := make(map[string]mediaType, len(types))
	for _, t := range types {
		m[t] = mediaType{Schema: ref(refName)}
	}
	return m
}

func title(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func subOf(sub string) string {
	if sub == "" {
		return ""
	}
	return " " + sub + " of"
}

// article returns "a " or "an " for noun, as kube-apiserver's descriptions
// use them.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("AEIOU", unicode.ToUpper(rune(noun[0]))) {
		return "an "
	}
	return "a "
}
