package openapi

import (
	"cmp"
	"slices"
)

// queryParam returns the query parameter name as kube-apiserver publishes
// it: a scalar schema with uniqueItems, inline (never a $ref, which
// kubectl's query parameter check would not follow).
func queryParam(name string) parameter {
	typ, desc := queryParamDoc(name)
	return parameter{Name: name, In: "query", Description: desc, Schema: paramSchema{Type: typ, UniqueItems: true}}
}

func queryParams(names ...string) []parameter {
	out := make([]parameter, len(names))
	for i, n := range names {
		out[i] = queryParam(n)
	}
	return out
}

func pathParam(name, desc string) parameter {
	return parameter{Name: name, In: "path", Description: desc, Required: true, Schema: paramSchema{Type: "string", UniqueItems: true}}
}

// queryParamDoc returns the type and description of a query parameter.
func queryParamDoc(name string) (typ, desc string) {
	switch name {
	case "pretty":
		return "string", "If 'true', the output is indented for people to read."
	case "dryRun":
		return "string", "When present, the request goes through every stage but nothing is persisted. The only valid value is All."
	case "fieldManager":
		return "string", "Name of the actor making the change, recorded in managedFields. Required for apply patches; at most 128 printable characters."
	case "fieldValidation":
		return "string", "What to do with unknown or duplicate fields in the body: Ignore drops them silently, Warn drops them with a Warning header (the default), Strict rejects the request."
	case "force":
		return "boolean", "For apply patches only: take ownership of fields other managers own instead of failing with a conflict."
	case "labelSelector":
		return "string", "Only objects whose labels match this selector. Defaults to everything."
	case "fieldSelector":
		return "string", "Only objects whose fields match this selector. Defaults to everything."
	case "limit":
		return "integer", "The most items to return in one response; with more available the list metadata carries a continue token."
	case "continue":
		return "string", "The continue token of the previous page, to fetch the next one."
	case "resourceVersion":
		return "string", "Which version of the collection to read, or where a watch starts; see resourceVersionMatch."
	case "resourceVersionMatch":
		return "string", "How resourceVersion applies to a list: NotOlderThan or Exact."
	case "sendInitialEvents":
		return "boolean", "With watch=true, start the stream with a synthetic ADDED event for every existing object, then a bookmark."
	case "timeoutSeconds":
		return "integer", "Time limit for the list or watch call, in seconds."
	case "watch":
		return "boolean", "Stream changes (adds, updates and deletes) to the selected objects instead of listing them."
	case "allowWatchBookmarks":
		return "boolean", "Ask for BOOKMARK events, which carry only a resourceVersion. Servers may ignore it."
	case "gracePeriodSeconds":
		return "integer", "Seconds before the object is deleted; zero means at once, unset means the kind's default."
	case "propagationPolicy":
		return "string", "How dependents are garbage collected: Orphan, Background or Foreground."
	case "orphanDependents":
		return "boolean", "Deprecated: use propagationPolicy. True to orphan the dependents."
	}
	return "string", ""
}

// hoistParameters moves the parameters every operation of a path shares to
// the path, as kube-apiserver's OpenAPI builder does, and sorts both lists
// by name. fieldValidation always stays on the operations: kubectl looks
// for it among the PATCH operation's own parameters.
func hoistParameters(paths map[string]*pathItem) {
	for _, item := range paths {
		ops := item.operations()
		count := map[parameter]int{}
		for _, op := range ops {
			for _, p := range op.Parameters {
				count[p]++
			}
		}
		common := func(p parameter) bool { return count[p] == len(ops) && p.Name != "fieldValidation" }
		for p := range count {
			if common(p) {
				item.Parameters = append(item.Parameters, p)
			}
		}
		sortParameters(item.Parameters)
		for _, op := range ops {
			op.Parameters = slices.DeleteFunc(op.Parameters, common)
			sortParameters(op.Parameters)
			if len(op.Parameters) == 0 {
				op.Parameters = nil
			}
		}
	}
}

func (p *pathItem) operations() []*operation {
	var ops []*operation
	for _, op := range []*operation{p.Get, p.Put, p.Post, p.Delete, p.Patch} {
		if op != nil {
			ops = append(ops, op)
		}
	}
	return ops
}

func sortParameters(ps []parameter) {
	slices.SortFunc(ps, func(a, b parameter) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.In, b.In))
	})
}
