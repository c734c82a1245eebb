package meta_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/meta"
)

func ExampleParseLabelSelector() {
	sel, err := meta.ParseLabelSelector("tier in (frontend, backend), app=web, !canary, replicas>2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "frontend", "replicas": "3"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "frontend", "replicas": "3", "canary": "true"}))
	fmt.Println(sel.Matches(map[string]string{"app": "db", "tier": "backend", "replicas": "5"}))
	// Output:
	// app=web,!canary,replicas>2,tier in (backend,frontend)
	// true
	// false
	// false
}

func ExampleParseLabelSelector_error() {
	for _, s := range []string{"app web", "app in (web", "app_=web"} {
		_, err := meta.ParseLabelSelector(s)
		fmt.Println(err)
	}
	// Output:
	// unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt
	// unable to parse requirement: found '', expected: ',' or ')'
	// unable to parse requirement: <nil>: Invalid value: "app_": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
}

func ExampleLabelSelector_Empty() {
	sel, _ := meta.ParseLabelSelector("")
	fmt.Println(sel.Empty(), sel.Matches(map[string]string{"any": "thing"}))
	// Output:
	// true true
}

func ExampleParseFieldSelector() {
	sel, err := meta.ParseFieldSelector(`status.phase!=Failed,metadata.name=web`)
	if err != nil {
		fmt.Println(err)
		return
	}
	obj := map[string]string{"metadata.name": "web", "metadata.namespace": "default", "status.phase": "Running"}
	get := func(field string) (string, bool) {
		v, ok := obj[field]
		return v, ok
	}
	fmt.Println(sel)
	fmt.Println(sel.Fields())
	fmt.Println(sel.Matches(get))
	// Output:
	// metadata.name=web,status.phase!=Failed
	// [metadata.name status.phase]
	// true
}

func ExampleParseFieldSelector_escaping() {
	sel, _ := meta.ParseFieldSelector(`spec.note=a\,b\=c`)
	fmt.Println(sel.RequiresExactMatch("spec.note"))
	fmt.Println(sel)
	_, err := meta.ParseFieldSelector(`spec.note=a,b`)
	fmt.Println(err)
	// Output:
	// a,b=c true
	// spec.note=a\,b\=c
	// invalid selector: 'spec.note=a,b'; can't understand 'b'
}

func ExampleFieldSelector_RequiresExactMatch() {
	sel, _ := meta.ParseFieldSelector("metadata.name=web,metadata.namespace=default")
	if name, ok := sel.RequiresExactMatch("metadata.name"); ok {
		fmt.Println("get", name, "instead of listing")
	}
	// Output:
	// get web instead of listing
}
