package server

import (
	"flag"
	"io"
	"log/slog"
	"strings"
)

// flags is the parsed command line.
type flags struct {
	cfg        Config
	addr       string
	kubeconfig string
	tlsCert    string
	tlsKey     string
}

// parseFlags parses the command line; -h prints the usage to stderr.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	var f flags
	fs := flag.NewFlagSet("widgets", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "./kapi.kubeconfig", "path of the kubeconfig to write for kubectl")
	fs.StringVar(&f.cfg.Storage, "storage", StorageMemory, "storage backend: "+supportedStorage)
	endpoints := fs.String("etcd-endpoints", "", "--storage etcd: comma-separated client URLs of the etcd cluster, e.g. http://127.0.0.1:2379")
	fs.StringVar(&f.cfg.DataDir, "data-dir", "", "--storage embedded-etcd: data directory of the in-process etcd (created if missing, reopened if not)")
	fs.StringVar(&f.cfg.EtcdPrefix, "etcd-prefix", DefaultEtcdPrefix, "--storage etcd and embedded-etcd: prefix of every etcd key")
	fs.StringVar(&f.cfg.StorageMediaType, "storage-media-type", "application/json", "encoding of stored objects: application/json, application/vnd.kubernetes.protobuf or application/cbor")
	fs.StringVar(&f.tlsCert, "tls-cert-file", "", "serve HTTPS with this certificate (and --tls-private-key-file)")
	fs.StringVar(&f.tlsKey, "tls-private-key-file", "", "private key of --tls-cert-file")
	verbose := fs.Bool("v", false, "log every request (debug level)")
	addOperationsFlags(fs, &f.cfg.Ops)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, e := range strings.Split(*endpoints, ",") {
		if e = strings.TrimSpace(e); e != "" {
			f.cfg.EtcdEndpoints = append(f.cfg.EtcdEndpoints, e)
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	f.cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return &f, nil
}
