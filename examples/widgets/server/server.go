// Package server runs the Widget example: kapi serving the Widget and
// Gadget kinds and the run-time Sprocket kind, mounted on a plain
// net/http mux.
package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/examples/internal/kubeconfig"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// Config configures the example server.
type Config struct {
	// Storage names the store: "memory" (the default).
	Storage string
	// Logger receives the request log; nil discards it.
	Logger *slog.Logger
}

// NewHandler builds the API server with the example kinds, mounted on a
// new mux as a host service would mount it.
func NewHandler(cfg Config) (http.Handler, error) {
	store, err := openStorage(cfg.Storage)
	if err != nil {
		return nil, err
	}
	srv := apiserver.New(apiserver.Options{Storage: store, Logger: cfg.Logger})
	sprocket, err := api.SprocketKind()
	if err != nil {
		return nil, err
	}
	srv.Register(api.WidgetKind()).Register(api.GadgetKind()).Register(sprocket)
	if err := srv.Err(); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", srv)
	return mux, nil
}

func openStorage(name string) (storage.Interface, error) {
	switch name {
	case "", "memory":
		return memory.New(memory.Options{}), nil
	}
	return nil, fmt.Errorf("unknown storage %q (supported: memory)", name)
}

// Run parses the command line, serves until ctx is done and shuts down
// gracefully.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("widgets", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	kubeconfigPath := fs.String("kubeconfig", "./kapi.kubeconfig", "path of the kubeconfig to write for kubectl")
	storageName := fs.String("storage", "memory", "storage backend: memory")
	tlsCert := fs.String("tls-cert-file", "", "serve HTTPS with this certificate (and --tls-private-key-file)")
	tlsKey := fs.String("tls-private-key-file", "", "private key of --tls-cert-file")
	verbose := fs.Bool("v", false, "log every request (debug level)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	h, err := NewHandler(Config{Storage: *storageName, Logger: logger})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if *tlsCert != "" {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String()
	if err := kubeconfig.Write(*kubeconfigPath, url, "default"); err != nil {
		_ = ln.Close()
		return err
	}
	fmt.Fprintf(stdout, "kapi widgets server listening on %s (storage: %s)\n", url, *storageName)
	fmt.Fprintf(stdout, "use it with kubectl:\n  export KUBECONFIG=%s\n  kubectl api-resources\n  kubectl get widgets\n", *kubeconfigPath)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() {
		if *tlsCert != "" {
			errc <- hs.ServeTLS(ln, *tlsCert, *tlsKey)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
