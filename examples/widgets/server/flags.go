package server

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"time"
)

// flags is the parsed command line.
type flags struct {
	cfg        Config
	addr       string
	kubeconfig string
	tlsCert    string
	tlsKey     string
	gcPercent  int
	// idleRelease is --idle-memory-release.
	idleRelease time.Duration
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
	a := &f.cfg.Auth
	fs.StringVar(&a.ClientCAFile, "client-ca-file", "", "authenticate client certificates signed by these CAs: CN is the user, O the groups")
	fs.StringVar(&a.TokenAuthFile, "token-auth-file", "", "authenticate bearer tokens listed in this CSV file: token,user,uid,\"group1,group2\"")
	fs.StringVar(&a.RequestHeaderClientCAFile, "requestheader-client-ca-file", "", "trust the user headers of front proxies whose client certificates these CAs sign")
	allowed := fs.String("requestheader-allowed-names", "", "comma-separated common names a front proxy's certificate may have; empty allows any")
	users := fs.String("requestheader-username-headers", "X-Remote-User", "comma-separated headers naming the user, from a front proxy")
	uids := fs.String("requestheader-uid-headers", "", "comma-separated headers carrying the user's UID, from a front proxy")
	groups := fs.String("requestheader-group-headers", "X-Remote-Group", "comma-separated headers carrying the user's groups, from a front proxy")
	extras := fs.String("requestheader-extra-headers-prefix", "X-Remote-Extra-", "comma-separated prefixes of headers carrying extra user attributes, from a front proxy")
	fs.BoolVar(&a.AnonymousAuth, "anonymous-auth", true, "with authentication configured, serve requests without credentials as system:anonymous")
	fs.StringVar(&a.AuthorizationMode, "authorization-mode", AuthorizationAlwaysAllow, "AlwaysAllow or RBAC (which serves TLS and writes a kubeconfig with an administrator's client certificate)")
	fs.StringVar(&a.AuditLogPath, "audit-log-path", "", "append one audit.k8s.io/v1 event per request to this file as JSON lines (- for standard output)")
	fs.StringVar(&a.AuditPolicyFile, "audit-policy-file", "", "audit policy (audit.k8s.io/v1 Policy) choosing each request's level; default: Metadata")
	fs.StringVar(&f.cfg.CRDs, "crds", "", "create the CustomResourceDefinitions of every manifest (YAML or JSON) in this directory at start")
	disabled := fs.String("disable-admission-plugins", "", "comma-separated admission plugins to turn off: "+strings.Join(admissionPluginNames(), ", "))
	verbose := fs.Bool("v", false, "log every request (debug level)")
	addOperationsFlags(fs, &f.cfg.Ops)
	addRuntimeFlags(fs, &f.gcPercent, &f.idleRelease)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.cfg.EtcdEndpoints = splitList(*endpoints)
	f.cfg.DisableAdmissionPlugins = splitList(*disabled)
	a.RequestHeaderAllowedNames = splitList(*allowed)
	a.RequestHeaderUsernameHeaders, a.RequestHeaderUIDHeaders = splitList(*users), splitList(*uids)
	a.RequestHeaderGroupHeaders, a.RequestHeaderExtraHeadersPrefix = splitList(*groups), splitList(*extras)
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	f.cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return &f, nil
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
