// Package v1 holds the Widget webhooks as kubebuilder v4 scaffolds them
// for controller-runtime v0.25: a defaulter and a validator registered
// with the manager's webhook server.
package v1

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	stablev1 "github.com/kapi-dev/kapi/envtest/internal/widgetwebhook/api/v1"
)

// maxReplicas is the most replicas the validator lets through.
const maxReplicas = 10

// log is for logging in this package.
var widgetlog = logf.Log.WithName("widget-resource")

// SetupWidgetWebhookWithManager registers the webhook for Widget in the manager.
func SetupWidgetWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &stablev1.Widget{}).
		WithDefaulter(&WidgetCustomDefaulter{}).
		WithValidator(&WidgetCustomValidator{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-stable-example-com-v1-widget,mutating=true,failurePolicy=fail,sideEffects=None,groups=stable.example.com,resources=widgets,verbs=create;update,versions=v1,name=mwidget-v1.kb.io,admissionReviewVersions=v1

// WidgetCustomDefaulter sets default values on a Widget when it is
// created or updated.
type WidgetCustomDefaulter struct{}

var _ admission.Defaulter[*stablev1.Widget] = &WidgetCustomDefaulter{}

// Default sets replicas to 1 and color to blue when they are unset.
func (d *WidgetCustomDefaulter) Default(_ context.Context, widget *stablev1.Widget) error {
	widgetlog.Info("Defaulting for Widget", "name", widget.GetName())
	if widget.Spec.Replicas == nil {
		one := int32(1)
		widget.Spec.Replicas = &one
	}
	if widget.Spec.Color == "" {
		widget.Spec.Color = "blue"
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-stable-example-com-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=stable.example.com,resources=widgets,verbs=create;update,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1

// WidgetCustomValidator validates a Widget when it is created, updated
// or deleted.
type WidgetCustomValidator struct{}

var _ admission.Validator[*stablev1.Widget] = &WidgetCustomValidator{}

// ValidateCreate refuses more than maxReplicas replicas.
func (v *WidgetCustomValidator) ValidateCreate(_ context.Context, widget *stablev1.Widget) (admission.Warnings, error) {
	widgetlog.Info("Validation for Widget upon creation", "name", widget.GetName())
	return nil, validateWidget(nil, widget)
}

// ValidateUpdate refuses more than maxReplicas replicas and a change of
// color.
func (v *WidgetCustomValidator) ValidateUpdate(_ context.Context, oldWidget, newWidget *stablev1.Widget) (admission.Warnings, error) {
	widgetlog.Info("Validation for Widget upon update", "name", newWidget.GetName())
	return nil, validateWidget(oldWidget, newWidget)
}

// ValidateDelete lets every delete through.
func (v *WidgetCustomValidator) ValidateDelete(_ context.Context, widget *stablev1.Widget) (admission.Warnings, error) {
	widgetlog.Info("Validation for Widget upon deletion", "name", widget.GetName())
	return nil, nil
}

// validateWidget gathers the field errors of widget (and of its change
// from old, on update) into one Invalid error, as kubebuilder's
// examples do.
func validateWidget(old, widget *stablev1.Widget) error {
	var allErrs field.ErrorList
	spec := field.NewPath("spec")
	if r := widget.Spec.Replicas; r != nil && *r > maxReplicas {
		allErrs = append(allErrs, field.Invalid(spec.Child("replicas"), *r,
			fmt.Sprintf("must be %d or fewer", maxReplicas)))
	}
	if old != nil && old.Spec.Color != widget.Spec.Color {
		allErrs = append(allErrs, field.Invalid(spec.Child("color"), widget.Spec.Color, "field is immutable"))
	}
	if len(allErrs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(
		schema.GroupKind{Group: stablev1.GroupVersion.Group, Kind: "Widget"},
		widget.Name, allErrs)
}
