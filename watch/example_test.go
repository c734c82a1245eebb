package watch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

func Example() {
	ctx := context.Background()
	store := memory.New(memory.Options{})
	defer store.Close()
	write := func(name, color string, expected int64) {
		value := []byte(`{"color":"` + color + `"}`)
		store.OptimisticPut(ctx, "/widgets/default/"+name, value, expected, storage.PutOptions{})
	}
	write("a", "red", 0)  // revision 2
	write("b", "blue", 0) // revision 3

	// One cache per resource; objects are decoded on first use.
	c := watch.New(store, "/widgets/", watch.Options{
		Decode: func(kv *storage.KeyValue) (any, error) {
			var w struct{ Color string }
			err := json.Unmarshal(kv.Value, &w)
			return w.Color, err
		},
	})
	defer c.Stop()
	red := func(e *watch.Entry) bool {
		color, _ := e.Object()
		return color == "red"
	}

	// A consistent list (resourceVersion unset) of the red widgets.
	list, err := c.List(ctx, "/widgets/default/", watch.ListOptions{
		List:   resourceversion.List{Semantics: resourceversion.MostRecent},
		Filter: red,
	})
	if err != nil {
		panic(err)
	}
	for _, e := range list.Entries {
		// Encoded once per media type, shared by every later reader.
		b, _ := e.Encoded("application/json", func() ([]byte, error) { return e.KV.Value, nil })
		fmt.Printf("listed at %d: %s %s\n", list.Revision, e.KV.Key, b)
	}

	// Watch the red widgets: the state now, then every change after it.
	w, err := c.WatchWithInitialState(ctx, "/widgets/", resourceversion.List{Semantics: resourceversion.MostRecent},
		watch.WatchOptions{Filter: red, InitialEventsEnd: true})
	if err != nil {
		panic(err)
	}
	defer w.Stop()
	write("b", "red", 3)   // revision 4: b starts to match
	write("a", "green", 2) // revision 5: a stops matching
	for i := 0; i < 4; i++ {
		ev := <-w.Events()
		switch {
		case ev.InitialEventsEnd:
			fmt.Printf("%v %d: end of the initial events\n", ev.Type, ev.Revision)
		default:
			fmt.Printf("%v %d: %s\n", ev.Type, ev.Revision, ev.Entry.KV.Key)
		}
	}
	// Output:
	// listed at 3: /widgets/default/a {"color":"red"}
	// ADDED 2: /widgets/default/a
	// BOOKMARK 3: end of the initial events
	// ADDED 4: /widgets/default/b
	// DELETED 5: /widgets/default/a
}

// Each change is encoded once per media type, however many watchers
// deliver it: the first watcher to ask encodes, the others get the same
// bytes.
func ExampleEvent_Encoded() {
	ctx := context.Background()
	store := memory.New(memory.Options{})
	defer store.Close()
	counters := new(watch.Counters)
	c := watch.New(store, "/widgets/", watch.Options{Counters: counters})
	defer c.Stop()
	var watchers []*watch.Watcher
	for range 3 {
		w, err := c.Watch(ctx, "/widgets/", 0, watch.WatchOptions{})
		if err != nil {
			panic(err)
		}
		defer w.Stop()
		watchers = append(watchers, w)
	}
	store.OptimisticPut(ctx, "/widgets/default/a", []byte(`{"color":"red"}`), 0, storage.PutOptions{})
	for _, w := range watchers {
		ev := <-w.Events()
		frame, _ := ev.Encoded("application/json", func() ([]byte, error) {
			return fmt.Appendf(nil, `{"type":%q,"object":%s}`, ev.Type, ev.Entry.KV.Value), nil
		})
		fmt.Printf("%s\n", frame)
	}
	fmt.Println("encodings:", counters.Encodings())
	// Output:
	// {"type":"ADDED","object":{"color":"red"}}
	// {"type":"ADDED","object":{"color":"red"}}
	// {"type":"ADDED","object":{"color":"red"}}
	// encodings: 1
}
