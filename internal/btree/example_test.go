package btree_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/internal/btree"
)

type object struct {
	name  string
	color string
}

var objects = btree.NewOps(func(o *object) string { return o.name })

func Example() {
	// Build a tree in place with one generation.
	var v1 *btree.Node[*object]
	for _, name := range []string{"a/1", "a/2", "a/3", "b/1"} {
		v1, _, _ = objects.Put(v1, &object{name: name, color: "red"}, 1)
	}

	// Later changes use new generations: v1 stays as it was.
	v2, old, replaced := objects.Put(v1, &object{name: "a/2", color: "blue"}, 2)
	fmt.Println("replaced:", old.name, old.color, replaced)
	v3, gone, removed := objects.Delete(v2, "a/1", 3)
	fmt.Println("removed:", gone.name, removed)

	for _, t := range []*btree.Node[*object]{v1, v2, v3} {
		o, _ := objects.Get(t, "a/2")
		fmt.Printf("len %d, a/2 is %s, %d under a/\n", t.Len(), o.color, objects.CountRange(t, "a/", false, "a0"))
	}

	// Page through v3, two items at a time.
	after := ""
	for {
		page := objects.AppendFrom(nil, v3, after, after != "", 2)
		if len(page) == 0 {
			break
		}
		for _, o := range page {
			fmt.Print(o.name, " ")
		}
		after = page[len(page)-1].name
		fmt.Println("| remaining:", objects.CountRange(v3, after, true, ""))
	}

	// Output:
	// replaced: a/2 red true
	// removed: a/1 true
	// len 4, a/2 is red, 3 under a/
	// len 4, a/2 is blue, 3 under a/
	// len 3, a/2 is blue, 2 under a/
	// a/2 a/3 | remaining: 1
	// b/1 | remaining: 0
}
