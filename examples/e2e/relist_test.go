package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/storage/memory"
)

// breakingProxy forwards requests to the server. It can cut the watches
// going through it and hold back new watches, and it notes every 410 Gone
// it forwards (as a response code, or as an ERROR event in a watch) and
// every list (or streaming list) that follows one.
type breakingProxy struct {
	rp *httputil.ReverseProxy

	mu      sync.Mutex
	gate    chan struct{} // while not nil, watches wait for it to close
	held    int           // watches waiting at the gate
	cancels map[*http.Request]context.CancelFunc

	gone    atomic.Int64 // 410s forwarded
	relists atomic.Int64 // lists and streaming lists after a 410
}

func newBreakingProxy(target string) *breakingProxy {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	p := &breakingProxy{cancels: map[*http.Request]context.CancelFunc{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        func(r *httputil.ProxyRequest) { r.SetURL(u) },
		FlushInterval:  -1,
		ModifyResponse: p.inspect,
		ErrorLog:       log.New(io.Discard, "", 0), // cut watches are expected
	}
	return p
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

func (p *breakingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if p.gone.Load() > 0 && (!isWatch(r) || q.Get("sendInitialEvents") == "true") {
		p.relists.Add(1)
	}
	if !isWatch(r) {
		p.rp.ServeHTTP(w, r)
		return
	}
	p.mu.Lock()
	gate := p.gate
	if gate != nil {
		p.held++
	}
	p.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	ctx, cancel := context.WithCancel(r.Context())
	p.mu.Lock()
	p.cancels[r] = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.cancels, r)
		p.mu.Unlock()
		cancel()
	}()
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

// inspect counts 410 responses and wraps watch bodies to spot 410 ERROR
// events.
func (p *breakingProxy) inspect(resp *http.Response) error {
	if resp.StatusCode == http.StatusGone {
		p.gone.Add(1)
	}
	if isWatch(resp.Request) {
		resp.Body = &goneSpotter{ReadCloser: resp.Body, gone: &p.gone}
	}
	return nil
}

// goneSpotter counts the ERROR events carrying a 410 Status in a JSON
// watch stream.
type goneSpotter struct {
	io.ReadCloser
	gone *atomic.Int64
	tail []byte // the end of the previous read, for matches across reads
}

var goneMarker = []byte(`"code":410`)

func (s *goneSpotter) Read(b []byte) (int, error) {
	n, err := s.ReadCloser.Read(b)
	buf := append(s.tail, b[:n]...)
	if c := bytes.Count(buf, goneMarker); c > 0 {
		s.gone.Add(int64(c))
		buf = buf[bytes.LastIndex(buf, goneMarker)+len(goneMarker):]
	}
	s.tail = append(s.tail[:0], buf[max(0, len(buf)-len(goneMarker)+1):]...)
	return n, err
}

// hold makes new watches wait; heldWatches says how many do.
func (p *breakingProxy) hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gate = make(chan struct{})
}

func (p *breakingProxy) heldWatches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

func (p *breakingProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.gate)
	p.gate, p.held = nil, 0
}

// cutWatches breaks every watch going through the proxy.
func (p *breakingProxy) cutWatches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cancel := range p.cancels {
		cancel()
	}
	return len(p.cancels)
}

// TestInformerRelistsAfterGone: an informer whose watch breaks while more
// changes happen than the server's watch cache keeps watches again from
// its last resourceVersion. When the store has compacted those changes it
// gets 410 Gone, lists again and ends up with exactly the server's
// objects at their current resourceVersions, with the classic list+watch
// and with streaming lists. When the store still holds them, the server
// replays them from the store: the informer converges without a 410 and
// without listing again.
func TestInformerRelistsAfterGone(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		for _, compacted := range []bool{true, false} {
			t.Run(fmt.Sprintf("watchList=%v,compacted=%v", watchList, compacted), func(t *testing.T) {
				t.Setenv("KUBE_FEATURE_WatchListClient", fmt.Sprint(watchList))
				testRelist(t, compacted)
			})
		}
	}
}

func testRelist(t *testing.T, compacted bool) {
	const window = 10
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New(memory.Options{})
	t.Cleanup(func() { store.Close() })
	srv := apiserver.New(apiserver.Options{Storage: store, WatchCache: apiserver.WatchCacheOptions{EventWindow: window}, RuleEngine: rules})
	srv.Register(api.WidgetKind()).Register(api.GadgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(srv)
	t.Cleanup(server.Close)
	proxy := newBreakingProxy(server.URL)
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)

	direct, err := dynamic.NewForConfig(restConfig(server.URL))
	if err != nil {
		t.Fatal(err)
	}
	proxied, err := dynamic.NewForConfig(restConfig(front.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	widgets := direct.Resource(widgetsGVR).Namespace("default")
	for i := range 5 {
		if _, err := widgets.Create(ctx, newWidget(fmt.Sprintf("w%d", i), "red"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	factory := dynamicinformer.NewDynamicSharedInformerFactory(proxied, 0)
	inf := factory.ForResource(widgetsGVR).Informer()
	factory.Start(ctx.Done())
	defer func() {
		cancel() // stops the informer, which Shutdown waits for
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	// One change seen through the watch: the watch is up and has events.
	if _, err := widgets.Patch(ctx, "w0", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitConverged(ctx, t, inf, widgets)

	// Cut the watch and hold the informer's next one while the server
	// makes more changes than its window keeps.
	proxy.hold()
	if n := proxy.cutWatches(); n == 0 {
		t.Fatal("no watch went through the proxy")
	}
	for proxy.heldWatches() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the informer did not watch again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := range 3 * window {
		patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, i+2)
		if _, err := widgets.Patch(ctx, fmt.Sprintf("w%d", i%3), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"w3", "w4"} {
		if err := widgets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"new1", "new2"} {
		if _, err := widgets.Create(ctx, newWidget(name, "green"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if compacted {
		rev, err := store.Revision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Compact(ctx, rev); err != nil {
			t.Fatal(err)
		}
	}
	proxy.release()

	waitConverged(ctx, t, inf, widgets)
	if !compacted {
		if proxy.gone.Load() != 0 || proxy.relists.Load() != 0 {
			t.Fatalf("%d 410 Gone and %d lists with the changes still in the store", proxy.gone.Load(), proxy.relists.Load())
		}
		return
	}
	if proxy.gone.Load() == 0 {
		t.Fatal("the informer converged without a 410 Gone")
	}
	if proxy.relists.Load() == 0 {
		t.Fatal("the informer did not list again after the 410 Gone")
	}
	t.Logf("%d 410 Gone forwarded, %d lists after it", proxy.gone.Load(), proxy.relists.Load())
}

// waitConverged waits until the informer's store holds exactly the
// server's Widgets at their resourceVersions.
func waitConverged(ctx context.Context, t *testing.T, inf cache.SharedIndexInformer, widgets dynamic.ResourceInterface) {
	t.Helper()
	for {
		l, err := widgets.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, u := range l.Items {
			want[u.GetName()] = u.GetResourceVersion()
		}
		got := map[string]string{}
		for _, o := range inf.GetStore().List() {
			u := o.(*unstructured.Unstructured)
			got[u.GetName()] = u.GetResourceVersion()
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("informer holds %v, server %v", got, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
