package envtest_test

import (
	"context"
	"fmt"
	"log"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/envtest"
)

// An environment with the CRDs of a directory, as a suite's TestMain
// starts it; a test may as well start one of its own.
func Example() {
	env := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			log.Print(err)
		}
	}()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ns.Name, env.CRDs[0].Name)
	// Output: default guestbooks.webapp.example.com
}
