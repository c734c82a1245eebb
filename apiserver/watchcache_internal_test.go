package apiserver

import (
	"reflect"
	"testing"
	"time"
)

// TestWatchCacheOptionsReachTheCache: every tunable of WatchCacheOptions
// is handed to the watch caches under the same name, and the caches count
// into the server's counters.
func TestWatchCacheOptionsReachTheCache(t *testing.T) {
	var in WatchCacheOptions
	v := reflect.ValueOf(&in).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			if f.Type() == reflect.TypeFor[time.Duration]() {
				f.SetInt(int64(time.Duration(i+1) * time.Second))
			} else {
				f.SetInt(int64(i + 1))
			}
		default:
			t.Fatalf("%s: add a case for %s", v.Type().Field(i).Name, f.Kind())
		}
	}
	s := newServer(Options{WatchCache: in})
	out := reflect.ValueOf(s.kinds.watchOptions())
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		got := out.FieldByName(name)
		if !got.IsValid() {
			t.Errorf("watch.Options has no %s", name)
			continue
		}
		if got.Int() != v.Field(i).Int() {
			t.Errorf("%s = %v, want %v", name, got.Interface(), v.Field(i).Interface())
		}
	}
	if s.kinds.watchOptions().Counters != s.kinds.WatchCounters() {
		t.Error("the caches do not count into Server.WatchCounters")
	}
}
