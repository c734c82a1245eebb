package envtest

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// User is a user of the environment: its name and the groups it
// belongs to.
type User struct {
	// Name is the user's name.
	Name string
	// Groups are the groups it belongs to.
	Groups []string
}

// AuthenticatedUser is a user the environment made credentials for.
type AuthenticatedUser struct {
	cfg *rest.Config
}

// Config returns the rest.Config connecting to the environment as the
// user.
func (u *AuthenticatedUser) Config() *rest.Config { return u.cfg }

// KubeConfig returns a kubeconfig connecting to the environment as the
// user.
func (u *AuthenticatedUser) KubeConfig() ([]byte, error) { return KubeConfigFromREST(u.cfg) }

// AddUser makes a client certificate for user, signed by the CA the
// environment's server trusts, and returns a copy of baseConfig (nil
// for none) that connects with it. With RBAC (the default), the user
// may do only what its roles, or the system:masters group, allow.
func (te *Environment) AddUser(user User, baseConfig *rest.Config) (*AuthenticatedUser, error) {
	if te.running == nil {
		return nil, fmt.Errorf("envtest: AddUser before Start")
	}
	if user.Name == "" {
		return nil, fmt.Errorf("envtest: a user needs a name")
	}
	certPEM, keyPEM, err := te.running.ca.issue(user.Name, user.Groups, false)
	if err != nil {
		return nil, err
	}
	cfg := &rest.Config{}
	if baseConfig != nil {
		cfg = rest.CopyConfig(baseConfig)
	}
	cfg.Host = te.running.url
	cfg.CAData = te.running.ca.pem
	cfg.CertData, cfg.KeyData = certPEM, keyPEM
	return &AuthenticatedUser{cfg: cfg}, nil
}

// KubeConfigFromREST renders cfg as a kubeconfig, for kubectl or
// anything else that reads one.
func KubeConfigFromREST(cfg *rest.Config) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["envtest"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		Token: cfg.BearerToken, Username: cfg.Username, Password: cfg.Password,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "envtest"}
	kc.CurrentContext = "envtest"
	return clientcmd.Write(*kc)
}
