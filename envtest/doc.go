// Package envtest starts an in-process kapi server for controller tests,
// in the shape of controller-runtime's envtest: an [Environment] with
// CRDDirectoryPaths, CRDs, ErrorIfCRDPathMissing, CRDInstallOptions,
// WebhookInstallOptions, Scheme and Config; Start returns an
// administrator's rest.Config, Stop ends it, and AddUser makes more
// users. A suite written for sigs.k8s.io/controller-runtime/pkg/envtest
// switches by changing that import.
//
// Where controller-runtime's envtest starts etcd and kube-apiserver
// binaries (seconds per environment, and binaries to pin), Start builds
// a kapi server in the process, in milliseconds: one environment per
// test is affordable. It serves over TLS on a free loopback port, with a
// CA made for it, and authenticates client certificates that CA signs.
// It serves core/v1 Namespaces, ConfigMaps, Secrets, Events and
// ServiceAccounts, events.k8s.io/v1 Events, coordination.k8s.io/v1
// Leases, rbac.authorization.k8s.io/v1 (under RBAC, the default, with
// kube's default roles), admissionregistration.k8s.io/v1 (webhook
// configurations and admission policies, called and evaluated on every
// write as kube-apiserver does: WebhookInstallOptions installs a suite's
// webhooks, pointed at its local webhook server) and apiextensions.k8s.io/v1
// CustomResourceDefinitions: Start creates the CRDs through the API and
// waits until they are Established and in discovery, as envtest does,
// and [InstallCRDs], [UninstallCRDs] and any client may add, change and
// delete more while it runs. It runs the namespace controller and the
// garbage collector, which kube-apiserver alone, as envtest runs it,
// does not: deleting an owner deletes its dependents, and deleting a
// namespace empties it.
//
// # What differs from controller-runtime's envtest
//
//   - CRD conversion webhooks are not pointed at the local webhook
//     server from the Scheme's convertible types; give them their URL
//     and caBundle in the CRD.
//   - CRDInstallOptions.PollInterval defaults to 10ms rather than
//     100ms: the wait for a CRD is a few milliseconds here.
//   - Built-in kinds are the ones listed above: no Pods, Deployments,
//     Services or other workload kinds.
//   - There is no ControlPlane field to pass kube-apiserver flags;
//     AuthorizationMode chooses RBAC or AlwaysAllow. The binary fields
//     (BinaryAssetsDirectory and the like) are accepted and ignored.
//   - Users are authenticated by client certificates only; AuthenticatedUser
//     has no Kubectl method.
//   - The default Scheme is client-go's scheme.Scheme, which this package
//     leaves as it is (controller-runtime's envtest adds the
//     apiextensions.k8s.io/v1 types to it).
//
// Stores are in memory: everything an environment holds is gone when
// it stops.
package envtest
