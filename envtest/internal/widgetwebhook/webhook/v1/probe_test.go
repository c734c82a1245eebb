package v1

import (
	"context"
	"encoding/json"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	stablev1 "github.com/kapi-dev/kapi/envtest/internal/widgetwebhook/api/v1"
)

func TestProbe(t *testing.T) {
	ctx := context.Background()
	w := &stablev1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "default"}}
	err := k8sClient.Create(ctx, w)
	t.Logf("create: %v %+v", err, w.Spec)
	if w.Spec.Replicas != nil { t.Logf("replicas %d", *w.Spec.Replicas) }
	eleven := int32(11)
	bad := &stablev1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "probe2", Namespace: "default"}, Spec: stablev1.WidgetSpec{Replicas: &eleven}}
	err = k8sClient.Create(ctx, bad)
	if se, ok := err.(*apierrors.StatusError); ok { b, _ := json.MarshalIndent(se.ErrStatus, "", " "); t.Logf("%s", b) } else { t.Logf("err %v", err) }
	w.Spec.Color = "red"
	err = k8sClient.Update(ctx, w)
	if se, ok := err.(*apierrors.StatusError); ok { b, _ := json.MarshalIndent(se.ErrStatus, "", " "); t.Logf("%s", b) } else { t.Logf("err %v", err) }
}
